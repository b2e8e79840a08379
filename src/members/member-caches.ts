import { ApiError, errorMessage, type KubeObject, type ResourceType } from '../kube/client/index.ts';
import { MANAGED_LABEL } from '../propagation/constants.ts';
import { Informer, type Store } from '../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import type { ClusterRegistry } from './cluster-registry.ts';

/** What the engine knows about one member's cache of the target type. */
export type MemberCacheState =
  | { kind: 'synced'; store: Store<KubeObject> }
  /** Listing has not finished yet and nothing has failed: worth waiting a moment for. */
  | { kind: 'syncing' }
  /** The member does not serve the target type (404 on list): a CRD missing in that member. */
  | { kind: 'typeNotServed'; message: string }
  | { kind: 'failed'; message: string }
  /** No client could be built (ConfigMalformed cluster). */
  | { kind: 'clientError'; message: string }
  /** Not ready or not registered: no informer runs. */
  | { kind: 'none' };

export interface MemberInformersOptions {
  registry: ClusterRegistry;
  type: ResourceType;
  /** Watch one namespace only (namespaced control plane); all namespaces otherwise. */
  namespace?: string;
  logger?: Logger;
  /** A managed member object changed: key is `namespace/name` (or `name`) of the target object. */
  onObject(cluster: string, key: string): void;
  /** A cluster became ready or unready (or went away); its informer has been restarted or stopped. */
  onClusterChange(cluster: string, ready: boolean): void;
  /**
   * A member's cache finished loading — possibly after failing for a while, e.g. until the type's CRD was
   * installed there. Objects that could not be propagated to it should be looked at again now.
   */
  onCacheSynced?(cluster: string): void;
}

/**
 * KubeFed's federated informer (§3.3) for one target type: per ready member an informer on the type that
 * sees only objects labelled `kubefed.io/managed=true`. Each member's cache stands alone: one that cannot
 * list (type missing, unreachable, throttled) is reported for that member only and never blocks the others
 * (KubeFed waited for all of them and then exited the process, kubefed#1241).
 */
export class MemberInformers {
  readonly #opts: MemberInformersOptions;
  readonly #log: Logger;
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #clientErrors = new Map<string, string>();
  /** The last synced cache of each member whose informer stopped (not ready): what it held then. */
  readonly #lastSeen = new Map<string, Store<KubeObject>>();
  #unsubscribe: (() => void) | undefined;
  #stopped = false;

  constructor(opts: MemberInformersOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ resource: opts.type.plural });
  }

  start(): void {
    this.#unsubscribe = this.#opts.registry.addListener({
      onClusterChange: (name, change, ready) => {
        if (this.#stopped) return;
        this.#restart(name, change !== 'removed' && ready);
        this.#opts.onClusterChange(name, change !== 'removed' && ready);
      },
    });
    for (const c of this.#opts.registry.list()) {
      const name = c.metadata.name ?? '';
      if (this.#opts.registry.isReady(name)) this.#restart(name, true);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    const all = [...this.#informers.values()].map((i) => i.stop());
    this.#informers.clear();
    await Promise.all(all);
  }

  state(cluster: string): MemberCacheState {
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
        message: `the cluster does not serve ${resourceName(this.#opts.type)}`,
      };
    }
    return { kind: 'failed', message: errorMessage(err) };
  }

  /** The cached object, or for a member not ready (or still loading) what its last cache held. */
  lastSeen(cluster: string, key: string): KubeObject | undefined {
    const informer = this.#informers.get(cluster);
    if (informer?.hasSynced()) return informer.store.get(key);
    return this.#lastSeen.get(cluster)?.get(key);
  }

  /** See Informer.assume: the member object this process just wrote, before its watch event arrives. */
  assumeWritten(cluster: string, obj: KubeObject, previousResourceVersion: string | undefined): void {
    this.#informers.get(cluster)?.assume(obj, previousResourceVersion);
  }

  #restart(name: string, ready: boolean): void {
    const old = this.#informers.get(name);
    this.#informers.delete(name);
    this.#clientErrors.delete(name);
    if (old) void old.stop();
    if (old?.hasSynced()) this.#lastSeen.set(name, old.store);
    if (!ready) return;
    let client: ReturnType<ClusterRegistry['clientFor']>;
    try {
      client = this.#opts.registry.clientFor(name);
    } catch (e) {
      this.#clientErrors.set(name, errorMessage(e));
      return;
    }
    const informer = new Informer<KubeObject>({
      client,
      type: this.#opts.type,
      namespace: this.#opts.namespace,
      labelSelector: `${MANAGED_LABEL}=true`,
      logger: this.#log,
      // A member that lacks the type answers 404 forever; retry it slowly rather than hammer it.
      backoffMaxMs: 30_000,
    });
    const notify = (o: KubeObject) => {
      const ns = o.metadata.namespace;
      this.#opts.onObject(name, ns ? `${ns}/${o.metadata.name}` : (o.metadata.name ?? ''));
    };
    informer.addHandlers({ onAdd: notify, onUpdate: (_, o) => notify(o), onDelete: notify });
    this.#informers.set(name, informer);
    informer.start();
    void informer.waitForSync().then(() => {
      if (!this.#stopped && this.#informers.get(name) === informer && informer.hasSynced()) {
        this.#lastSeen.delete(name);
        this.#opts.onCacheSynced?.(name);
      }
    });
    this.#log.debug({ cluster: name }, 'started member informer');
  }
}

export function resourceName(t: ResourceType): string {
  return t.group ? `${t.plural}.${t.group}/${t.version}` : `${t.plural}/${t.version}`;
}
