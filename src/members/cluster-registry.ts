import {
  isClusterReady,
  type KubeFedCluster,
  KubeFedClusterType,
  syncModeOf,
} from '../api/core/v1beta1/index.ts';
import { CoreTypes, type KubeClient, type KubeClientOptions, type KubeObject } from '../kube/client/index.ts';
import { Informer } from '../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import { clusterClientConnectionDuration } from '../runtime/metrics.ts';
import { ClusterClients } from './cluster-clients.ts';
import { ClusterConfigError, type ClusterSecret } from './cluster-config.ts';
import { PullWorks } from './pull-works.ts';

export type ClusterObject = KubeFedCluster & KubeObject;
type SecretObject = ClusterSecret & KubeObject;

export type ClusterChange = 'added' | 'updated' | 'removed';

export interface ClusterListener {
  /**
   * A cluster appeared, disappeared, or changed in a way that invalidates member caches: readiness, spec,
   * labels, annotations or its token Secret.
   */
  onClusterChange(name: string, change: ClusterChange, ready: boolean): void;
}

/**
 * The host's view of the member clusters, shared by every sync controller: one KubeFedCluster informer, one
 * Secret informer, and one client (connection pool) per member, so that twenty federated types do not open
 * twenty connections to every member.
 */
export class ClusterRegistry {
  readonly #host: KubeClient;
  readonly #namespace: string;
  readonly #clients: ClusterClients;
  readonly #clusters: Informer<ClusterObject>;
  readonly #secrets: Informer<SecretObject>;
  readonly #listeners = new Set<ClusterListener>();
  readonly #fingerprints = new Map<string, string>();
  readonly #unresponsiveUntil = new Map<string, number>();
  /** The ManifestWorks handed to Pull clusters' agents (read through one host informer). */
  readonly pullWorks: PullWorks;

  constructor(opts: {
    host: KubeClient;
    namespace: string;
    clientOptions?: KubeClientOptions;
    logger?: Logger;
  }) {
    this.#host = opts.host;
    this.#namespace = opts.namespace;
    const log = (opts.logger ?? silentLogger).child({ component: 'cluster-registry' });
    // Writes to members are small: a member that has not answered in 10 s is hung, not busy.
    this.#clients = new ClusterClients({
      userAgent: 'kubefed-controller',
      timeoutMs: 10_000,
      // KubeFed hard-codes 20 QPS, burst 30 per member client, which caps propagation at 20 objects per
      // second per member however many sync workers run (docs/benchmarks.md). kubefed-ts gives members the
      // host client's limits (--rest-config-qps, --rest-config-burst: 250 and 500 by default); member
      // apiservers still protect themselves with priority and fairness, whose 429s are retried.
      ...opts.host.rateLimit,
      ...opts.clientOptions,
    });
    this.pullWorks = new PullWorks({ host: opts.host, logger: log });
    this.#clusters = new Informer<ClusterObject>({
      client: opts.host,
      type: KubeFedClusterType,
      namespace: opts.namespace,
      logger: log,
    });
    this.#secrets = new Informer<SecretObject>({
      client: opts.host,
      type: CoreTypes.secrets,
      namespace: opts.namespace,
      logger: log,
    });
    this.#clusters.addHandlers({
      onAdd: (c) => this.#changed(c, 'added'),
      onUpdate: (_, c) => this.#changed(c, 'updated'),
      onDelete: (c) => this.#removed(c.metadata.name ?? ''),
    });
    this.#secrets.addHandlers({
      onUpdate: (_, s) => this.#secretChanged(s),
      onAdd: (s) => this.#secretChanged(s),
    });
  }

  get namespace(): string {
    return this.#namespace;
  }

  get hostClient(): KubeClient {
    return this.#host;
  }

  start(): void {
    this.#clusters.start();
    this.#secrets.start();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([this.#clusters.waitForSync(), this.#secrets.waitForSync()]);
  }

  hasSynced(): boolean {
    return this.#clusters.hasSynced() && this.#secrets.hasSynced();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#clusters.stop(), this.#secrets.stop(), this.pullWorks.stop()]);
    await this.#clients.closeAll();
  }

  addListener(l: ClusterListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  /** Every registered cluster, ready or not, sorted by name. */
  list(): ClusterObject[] {
    return this.#clusters.store
      .list()
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  }

  get(name: string): ClusterObject | undefined {
    return this.#clusters.store.get(`${this.#namespace}/${name}`);
  }

  isReady(name: string): boolean {
    return isClusterReady(this.get(name)?.status?.conditions);
  }

  /**
   * The cluster syncs in Pull mode: its agent applies what the engine hands it as ManifestWorks in the hub
   * namespace named after it. The hub has no client for it (no secretRef) and no member cache.
   */
  isPull(name: string): boolean {
    const c = this.get(name);
    return c !== undefined && syncModeOf(c) === 'Pull';
  }

  /**
   * A request to the member got no answer at all (refused, reset, timed out). Until `ms` pass, callers skip
   * it instead of each waiting for their own timeout: a hung member must not hold every worker while the
   * health check is still deciding that it is not ready.
   */
  markUnresponsive(name: string, ms = 10_000): void {
    this.#unresponsiveUntil.set(name, performance.now() + ms);
  }

  isUnresponsive(name: string): boolean {
    const until = this.#unresponsiveUntil.get(name);
    if (until === undefined) return false;
    if (performance.now() < until) return true;
    this.#unresponsiveUntil.delete(name);
    return false;
  }

  /** The member's client; throws ClusterConfigError when the KubeFedCluster or its Secret is unusable. */
  clientFor(name: string): KubeClient {
    const cluster = this.get(name);
    if (!cluster) throw new Error(`cluster "${name}" is not registered`);
    if (syncModeOf(cluster) === 'Pull') {
      throw new ClusterConfigError(`cluster "${name}" syncs in Pull mode: the hub holds no client for it`);
    }
    const secret = this.#secrets.store.get(`${this.#namespace}/${cluster.spec?.secretRef?.name ?? ''}`);
    const before = this.#clients.get(name);
    const started = performance.now();
    const client = this.#clients.clientFor(cluster, secret);
    // Only a (re)built client is a "connection"; the cached one is handed out for free.
    if (client !== before) clusterClientConnectionDuration.observe((performance.now() - started) / 1000);
    return client;
  }

  #fingerprint(c: ClusterObject): string {
    const secret = this.#secrets.store.get(`${this.#namespace}/${c.spec?.secretRef?.name ?? ''}`);
    return clusterChangeFingerprint(c, secret?.metadata.resourceVersion ?? '');
  }

  #changed(c: ClusterObject, change: ClusterChange): void {
    const name = c.metadata.name ?? '';
    if (syncModeOf(c) === 'Pull') this.pullWorks.start();
    const fp = this.#fingerprint(c);
    if (this.#fingerprints.get(name) === fp) return;
    this.#fingerprints.set(name, fp);
    this.#emit(name, change === 'added' ? 'added' : 'updated', isClusterReady(c.status?.conditions));
  }

  #removed(name: string): void {
    this.#fingerprints.delete(name);
    void this.#clients.remove(name);
    this.#emit(name, 'removed', false);
  }

  #secretChanged(s: SecretObject): void {
    for (const c of this.#clusters.store.list()) {
      if (c.spec?.secretRef?.name === s.metadata.name) this.#changed(c, 'updated');
    }
  }

  #emit(name: string, change: ClusterChange, ready: boolean): void {
    for (const l of this.#listeners) l.onClusterChange(name, change, ready);
  }
}

/**
 * What a listener's view of a cluster depends on: readiness, spec, labels, annotations, the Secret, and the
 * region and zones the scheduler spreads by (clusters.ts policyClusterOf). Not the conditions' probe
 * times, which change on every health check.
 */
export function clusterChangeFingerprint(c: ClusterObject, secretResourceVersion: string): string {
  return JSON.stringify([
    isClusterReady(c.status?.conditions),
    c.spec,
    c.metadata.labels ?? {},
    c.metadata.annotations ?? {},
    secretResourceVersion,
    c.status?.region ?? '',
    [...(c.status?.zones ?? [])].sort(),
  ]);
}
