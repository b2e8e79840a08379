// The shell around capacity.ts: the member clusters' nodes and pods, read from the shared member caches
// (opened only once a binding is divided by available replicas), and a debounced notice when they change
// so that such bindings are scheduled again (Karmada's scheduler-estimator answers the same question over
// gRPC, one estimator per member).

import { CoreTypes, type KubeObject } from '../../kube/client/index.ts';
import type { MemberCache, MemberCaches } from '../../members/member-caches.ts';
import { canonicalJson } from '../../propagation/json.ts';
import { estimateAvailableReplicas } from './capacity.ts';

export interface CapacityEstimatorOptions {
  caches: MemberCaches;
  /** How long to gather node and pod changes of one member before telling the listeners; default 1 s. */
  debounceMs?: number;
}

export class CapacityEstimator {
  readonly #opts: CapacityEstimatorOptions;
  #nodes: MemberCache | undefined;
  #pods: MemberCache | undefined;
  readonly #listeners = new Set<(cluster: string) => void>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Estimates per cluster and (request, node claim), until that cluster's nodes or pods change. */
  readonly #memo = new Map<string, Map<string, number>>();
  #closed = false;

  constructor(opts: CapacityEstimatorOptions) {
    this.#opts = opts;
  }

  /**
   * Replicas of one with `request` and `nodeClaim` (replicaRequirements.resourceRequest and .nodeClaim)
   * the cluster can still take, or undefined while its nodes and pods are not loaded (the first call opens
   * the caches; their loading is announced through onChange).
   */
  available(
    cluster: string,
    request: Readonly<Record<string, string | number>>,
    nodeClaim?: unknown,
  ): number | undefined {
    const [nodes, pods] = this.#open();
    const n = nodes.state(cluster);
    const p = pods.state(cluster);
    if (n.kind !== 'synced' || p.kind !== 'synced') return undefined;
    // Workloads asking the same of different nodes (a GPU selector, one zone) must not share an estimate.
    const key = canonicalJson({ request, nodeClaim: nodeClaim ?? null });
    let memo = this.#memo.get(cluster);
    if (!memo) {
      memo = new Map();
      this.#memo.set(cluster, memo);
    }
    const known = memo.get(key);
    if (known !== undefined) return known;
    const value = estimateAvailableReplicas(n.store.list(), p.store.list(), request, nodeClaim);
    memo.set(key, value);
    return value;
  }

  /** Whether the cluster's nodes or pods are still loading (worth waiting for before dividing). */
  loading(cluster: string): boolean {
    const [nodes, pods] = this.#open();
    return nodes.state(cluster).kind === 'syncing' || pods.state(cluster).kind === 'syncing';
  }

  /** Called (debounced, per cluster) when a member's nodes or pods changed or finished loading. */
  onChange(listener: (cluster: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    const caches = [this.#nodes, this.#pods];
    this.#nodes = this.#pods = undefined;
    await Promise.all(caches.map((c) => c?.close()));
  }

  #open(): [MemberCache, MemberCache] {
    if (!this.#nodes || !this.#pods) {
      const handlers = {
        onObject: (cluster: string, _obj: KubeObject) => this.#changed(cluster),
        onCacheSynced: (cluster: string) => this.#changed(cluster),
        onClusterChange: (cluster: string) => this.#changed(cluster),
      };
      this.#nodes = this.#opts.caches.open({ type: CoreTypes.nodes }, handlers);
      this.#pods = this.#opts.caches.open({ type: CoreTypes.pods }, handlers);
    }
    return [this.#nodes, this.#pods];
  }

  #changed(cluster: string): void {
    this.#memo.delete(cluster);
    if (this.#closed || this.#timers.has(cluster)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(cluster);
      this.#memo.delete(cluster);
      for (const l of [...this.#listeners]) l(cluster);
    }, this.#opts.debounceMs ?? 1_000);
    timer.unref?.();
    this.#timers.set(cluster, timer);
  }
}
