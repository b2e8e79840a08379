import { isScopedRbac } from '../api/core/v1beta1/index.ts';
import {
  ApiError,
  errorMessage,
  type KubeObject,
  type ResourceType,
  resourceTypeName,
} from '../kube/client/index.ts';
import { Informer, type Store, withoutManagedFields } from '../runtime/informer/index.ts';
import { informerSpecKey } from '../runtime/informer/shared-informers.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import type { ClusterRegistry } from './cluster-registry.ts';
import { pullMemberObjects } from './pull-objects.ts';
import type { WorkObject } from './pull-works.ts';

/** What is known of one member's cache of one type. */
export type MemberCacheState =
  | { kind: 'synced'; store: Store<KubeObject> }
  /** Listing has not finished yet and nothing has failed: worth waiting a moment for. */
  | { kind: 'syncing' }
  /** The member does not serve the type (404 on list): a CRD missing in that member. */
  | { kind: 'typeNotServed'; message: string }
  | { kind: 'failed'; message: string }
  /** No client could be built (ConfigMalformed cluster). */
  | { kind: 'clientError'; message: string }
  /** Not ready or not registered: no informer runs. */
  | { kind: 'none' };

/** Which member objects a cache holds: one type, optionally one namespace and a label selector. */
export interface MemberCacheSpec {
  type: ResourceType;
  /** Watch one namespace only (namespaced control plane); all namespaces otherwise. */
  namespace?: string;
  labelSelector?: string;
  /**
   * Leave out members joined with `--scoped-rbac`: their credentials grant only the enabled federated types,
   * so a type the controller manager adds of its own (the MCS types) would only meet 403s there. Such a
   * member reads as not serving the type.
   */
  fullAccessOnly?: boolean;
}

export interface MemberCacheHandlers {
  /** A member object changed (added, updated or deleted). */
  onObject?(cluster: string, obj: KubeObject): void;
  /** A cluster became ready or unready (or went away); its informer has been restarted or stopped. */
  onClusterChange?(cluster: string, ready: boolean): void;
  /**
   * A member's cache finished loading — possibly after failing for a while, e.g. until the type's CRD was
   * installed there — or was already loaded when this reader joined. Objects that could not be worked on
   * in that member should be looked at again now.
   */
  onCacheSynced?(cluster: string): void;
}

/** One reader's view of a shared member cache. */
export interface MemberCache {
  readonly spec: MemberCacheSpec;
  state(cluster: string): MemberCacheState;
  /** The cached object, if that member's cache is loaded (shared: copy before changing it). */
  get(cluster: string, key: string): KubeObject | undefined;
  /** The cached object, or for a member not ready (or still loading) what its last loaded cache held. */
  lastSeen(cluster: string, key: string): KubeObject | undefined;
  /**
   * See Informer.ownWrite: this reader writes the member object at `key` (replacing
   * `previousResourceVersion`, undefined for a create); its watch event is then no change to report to this
   * reader. The other readers of the cache hear of it as of any change.
   */
  ownWrite(
    cluster: string,
    key: string,
    previousResourceVersion: string | undefined,
    write: () => Promise<KubeObject>,
  ): Promise<KubeObject>;
  /** This reader is done: the informers stop once no reader is left. */
  close(): Promise<void>;
}

/**
 * Shared member caches, like Karmada's MultiClusterInformerManager: one informer per ready cluster × type ×
 * namespace × label selector, however many controllers read it, started when the first reader asks and
 * stopped when the last one leaves. Each member's cache stands alone: one that cannot list (type missing,
 * unreachable, throttled) is reported for that member only and never blocks the others (KubeFed's federated
 * informer waited for all of them and then exited the process, kubefed#1241).
 */
export class MemberCaches {
  readonly #registry: ClusterRegistry;
  readonly #log: Logger;
  readonly #shared = new Map<string, SharedCache>();
  #unsubscribe: (() => void) | undefined;
  #unsubscribeWorks: (() => void) | undefined;

  constructor(opts: { registry: ClusterRegistry; logger?: Logger }) {
    this.#registry = opts.registry;
    this.#log = (opts.logger ?? silentLogger).child({ component: 'member-caches' });
  }

  /**
   * Follows the registry: informers restart on every change of a cluster's readiness, spec or Secret. A Pull
   * cluster has no informer: its objects' changes come from the status of the ManifestWorks its agent
   * reports, told to the readers as the member objects the hub knows of them.
   */
  start(): void {
    this.#unsubscribe ??= this.#registry.addListener({
      onClusterChange: (name, change, ready) => {
        for (const c of [...this.#shared.values()]) c.clusterChanged(name, change !== 'removed' && ready);
      },
    });
    this.#unsubscribeWorks ??= this.#registry.pullWorks.addListener({
      onWork: (cluster, work, old) => {
        for (const c of [...this.#shared.values()]) c.workChanged(cluster, work, old);
      },
      onSynced: () => {
        const pull = this.#registry
          .list()
          .map((c) => c.metadata.name ?? '')
          .filter((n) => this.#registry.isPull(n));
        for (const c of [...this.#shared.values()]) for (const n of pull) c.announceCluster(n);
      },
    });
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#unsubscribeWorks?.();
    this.#unsubscribeWorks = undefined;
    const all = [...this.#shared.values()];
    this.#shared.clear();
    await Promise.all(all.map((c) => c.stop()));
  }

  /** Opens a reader on the cache of `spec`, sharing the informers of any reader of the same spec. */
  open(spec: MemberCacheSpec, handlers: MemberCacheHandlers = {}): MemberCache {
    const key = `${informerSpecKey(spec)}|${spec.fullAccessOnly ? 'full-access' : ''}`;
    let shared = this.#shared.get(key);
    if (!shared) {
      shared = new SharedCache(spec, this.#registry, this.#log);
      this.#shared.set(key, shared);
      shared.startReadyClusters();
    }
    const cache = shared;
    const reader: Reader = { handlers };
    cache.readers.add(reader);
    cache.announceSynced(reader);
    let closed = false;
    return {
      spec,
      state: (cluster) => cache.state(cluster),
      get: (cluster, k) => cache.get(cluster, k),
      lastSeen: (cluster, k) => cache.lastSeen(cluster, k),
      ownWrite: (cluster, k, rv, write) => cache.ownWrite(cluster, k, rv, write, reader),
      close: async () => {
        if (closed) return;
        closed = true;
        cache.readers.delete(reader);
        if (cache.readers.size > 0) return;
        if (this.#shared.get(key) === cache) this.#shared.delete(key);
        await cache.stop();
      },
    };
  }

  /** How many shared caches are open (for tests and metrics). */
  get size(): number {
    return this.#shared.size;
  }
}

interface Reader {
  handlers: MemberCacheHandlers;
}

/** The informers of one spec, one per ready cluster, and the readers they notify. */
class SharedCache {
  readonly readers = new Set<Reader>();
  readonly #spec: MemberCacheSpec;
  readonly #registry: ClusterRegistry;
  readonly #log: Logger;
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #clientErrors = new Map<string, string>();
  /** The last synced store of each member whose informer stopped (not ready): what it held then. */
  readonly #lastSeen = new Map<string, Store<KubeObject>>();
  #stopped = false;

  constructor(spec: MemberCacheSpec, registry: ClusterRegistry, log: Logger) {
    this.#spec = spec;
    this.#registry = registry;
    this.#log = log.child({ resource: resourceTypeName(spec.type), labelSelector: spec.labelSelector });
  }

  startReadyClusters(): void {
    for (const c of this.#registry.list()) {
      const name = c.metadata.name ?? '';
      if (this.#registry.isReady(name) && !this.#registry.isPull(name)) this.#restart(name, true);
    }
  }

  /**
   * A Pull cluster's ManifestWork changed: the readers hear of each of its objects of this cache's type (before
   * and after), as the member objects the hub knows, so they requeue their owners as for a member event.
   */
  workChanged(cluster: string, work: WorkObject, old: WorkObject | undefined): void {
    if (this.#stopped || this.readers.size === 0) return;
    const seen = new Set<string>();
    for (const w of old ? [work, old] : [work]) {
      for (const obj of pullMemberObjects(w, this.#spec.type)) {
        const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        for (const r of [...this.readers]) r.handlers.onObject?.(cluster, obj);
      }
    }
  }

  /** The Pull works loaded: the readers look again at what was waiting for them in `cluster`. */
  announceCluster(cluster: string): void {
    if (this.#stopped) return;
    for (const r of [...this.readers]) r.handlers.onCacheSynced?.(cluster);
  }

  clusterChanged(name: string, ready: boolean): void {
    if (this.#stopped) return;
    this.#restart(name, ready);
    for (const r of [...this.readers]) r.handlers.onClusterChange?.(name, ready);
  }

  /** A reader that joins a cache already loaded hears so, as it would from an informer of its own. */
  announceSynced(reader: Reader): void {
    const synced = [...this.#informers].filter(([, i]) => i.hasSynced()).map(([name]) => name);
    if (synced.length === 0 || !reader.handlers.onCacheSynced) return;
    queueMicrotask(() => {
      if (!this.readers.has(reader)) return;
      for (const name of synced) reader.handlers.onCacheSynced?.(name);
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const all = [...this.#informers.values()].map((i) => i.stop());
    this.#informers.clear();
    await Promise.all(all);
  }

  state(cluster: string): MemberCacheState {
    if (this.#excluded(cluster)) {
      return {
        kind: 'typeNotServed',
        message: `the cluster was joined with --scoped-rbac: its credentials grant no ${resourceTypeName(this.#spec.type)}`,
      };
    }
    const clientError = this.#clientErrors.get(cluster);
    if (clientError !== undefined) return { kind: 'clientError', message: clientError };
    const informer = this.#informers.get(cluster);
    if (!informer) return { kind: 'none' };
    if (informer.hasSynced()) return { kind: 'synced', store: informer.store };
    const err = informer.lastError;
    if (err === undefined) return { kind: 'syncing' };
    if (err instanceof ApiError && err.statusCode === 404) {
      return {
        kind: 'typeNotServed',
        message: `the cluster does not serve ${resourceTypeName(this.#spec.type)}`,
      };
    }
    return { kind: 'failed', message: errorMessage(err) };
  }

  get(cluster: string, key: string): KubeObject | undefined {
    const informer = this.#informers.get(cluster);
    return informer?.hasSynced() ? informer.store.get(key) : undefined;
  }

  lastSeen(cluster: string, key: string): KubeObject | undefined {
    const informer = this.#informers.get(cluster);
    if (informer?.hasSynced()) return informer.store.get(key);
    return this.#lastSeen.get(cluster)?.get(key);
  }

  ownWrite(
    cluster: string,
    key: string,
    previousResourceVersion: string | undefined,
    write: () => Promise<KubeObject>,
    writer: Reader,
  ): Promise<KubeObject> {
    const informer = this.#informers.get(cluster);
    if (!informer) return write();
    // The writer is not told of its own write; every other reader is, as of any change.
    const tellOthers = (o: KubeObject) => {
      for (const r of [...this.readers]) if (r !== writer) r.handlers.onObject?.(cluster, o);
    };
    return informer.ownWrite(
      key,
      write,
      (object) => ({ object, replaced: previousResourceVersion }),
      tellOthers,
    );
  }

  #excluded(cluster: string): boolean {
    return this.#spec.fullAccessOnly === true && isScopedRbac(this.#registry.get(cluster));
  }

  #restart(name: string, ready: boolean): void {
    const old = this.#informers.get(name);
    this.#informers.delete(name);
    this.#clientErrors.delete(name);
    if (old) void old.stop();
    if (old?.hasSynced()) this.#lastSeen.set(name, old.store);
    if (!ready || this.#registry.isPull(name) || this.#excluded(name)) return;
    let client: ReturnType<ClusterRegistry['clientFor']>;
    try {
      client = this.#registry.clientFor(name);
    } catch (e) {
      this.#clientErrors.set(name, errorMessage(e));
      return;
    }
    const informer = new Informer<KubeObject>({
      client,
      type: this.#spec.type,
      namespace: this.#spec.namespace,
      labelSelector: this.#spec.labelSelector,
      logger: this.#log,
      // A member that lacks the type answers 404 forever; retry it slowly rather than hammer it.
      backoffMaxMs: 30_000,
      // No reader of a member cache reads field ownership; it would be most of what a cached copy holds.
      transform: withoutManagedFields,
    });
    const notify = (o: KubeObject) => {
      for (const r of [...this.readers]) r.handlers.onObject?.(name, o);
    };
    informer.addHandlers({ onAdd: notify, onUpdate: (_, o) => notify(o), onDelete: notify });
    this.#informers.set(name, informer);
    informer.start();
    void informer.waitForSync().then(() => {
      if (this.#stopped || this.#informers.get(name) !== informer || !informer.hasSynced()) return;
      this.#lastSeen.delete(name);
      for (const r of [...this.readers]) r.handlers.onCacheSynced?.(name);
    });
    this.#log.debug({ cluster: name }, 'started member informer');
  }
}
