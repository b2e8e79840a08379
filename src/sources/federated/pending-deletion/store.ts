import {
  CoreTypes,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type ResourceType,
} from '../../../kube/client/index.ts';
import { Informer } from '../../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import {
  type ConfigMapObject,
  fromConfigMap,
  memberCopyKey,
  PENDING_DELETION_LABEL,
  type PendingDeletion,
  pendingDeletionName,
  toConfigMap,
} from './record.ts';

export interface PendingDeletionListener {
  /** A record appeared or changed (name of its ConfigMap). */
  onRecord?(name: string): void;
  /** A record was deleted: the member copy it was about may need the sync controller again. */
  onRecordDeleted?(record: PendingDeletion): void;
}

/**
 * The host's pending member deletions (ConfigMaps labelled kubefed.io/pending-deletion in the KubeFed
 * namespace), shared by the sync controllers (which write them before releasing a federated object, and
 * leave the copies they name alone) and the pending-deletion controller (which carries them out).
 */
export class PendingDeletionStore {
  readonly #host: KubeClient;
  readonly #namespace: string;
  readonly #informer: Informer<ConfigMapObject>;
  readonly #listeners = new Set<PendingDeletionListener>();
  /** Records this process wrote whose watch event has not arrived yet. */
  readonly #written = new Map<string, PendingDeletion>();

  constructor(opts: { host: KubeClient; namespace: string; logger?: Logger }) {
    this.#host = opts.host;
    this.#namespace = opts.namespace;
    const log = (opts.logger ?? silentLogger).child({ component: 'pending-deletions' });
    this.#informer = new Informer<ConfigMapObject>({
      client: opts.host,
      type: CoreTypes.configMaps,
      namespace: opts.namespace,
      labelSelector: `${PENDING_DELETION_LABEL}=true`,
      logger: log,
    });
    const changed = (cm: ConfigMapObject) => {
      const name = cm.metadata.name ?? '';
      this.#written.delete(name);
      for (const l of this.#listeners) l.onRecord?.(name);
    };
    this.#informer.addHandlers({
      onAdd: changed,
      onUpdate: (_, cm) => changed(cm),
      onDelete: (cm) => {
        const r = fromConfigMap(cm);
        if ('invalid' in r) return;
        for (const l of this.#listeners) l.onRecordDeleted?.(r);
      },
    });
  }

  start(): void {
    this.#informer.start();
  }

  waitForSync(): Promise<void> {
    return this.#informer.waitForSync();
  }

  hasSynced(): boolean {
    return this.#informer.hasSynced();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  addListener(l: PendingDeletionListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  /** The cached ConfigMap of a record (shared: copy before changing it). */
  get(name: string): ConfigMapObject | undefined {
    return this.#informer.store.get(`${this.#namespace}/${name}`);
  }

  /** Every cached record ConfigMap. */
  list(): ConfigMapObject[] {
    return this.#informer.store.list();
  }

  /** Whether a deletion is owed for this member copy (then the sync controller must not unlabel it). */
  owes(cluster: string, target: ResourceType, namespace: string | undefined, name: string): boolean {
    const key = memberCopyKey(cluster, target, namespace, name);
    const matches = (r: PendingDeletion | { invalid: string }) =>
      !('invalid' in r) && memberCopyKey(r.cluster, r.target, r.namespace, r.name) === key;
    for (const r of this.#written.values()) if (matches(r)) return true;
    for (const cm of this.#informer.store.list()) if (matches(fromConfigMap(cm))) return true;
    return false;
  }

  /** Writes the record (idempotent: one that exists already is the same record). Throws on failure. */
  async write(record: PendingDeletion): Promise<string> {
    const cm = toConfigMap(record, this.#namespace);
    const name = cm.metadata.name ?? '';
    try {
      await this.#host.create(CoreTypes.configMaps, cm);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    if (!this.get(name)) this.#written.set(name, record);
    return name;
  }

  /** Deletes a record once it is done (only that very ConfigMap: uid precondition). */
  async remove(name: string, uid: string | undefined): Promise<void> {
    // Not owed any more, whether or not the watch shows the deletion (a relist may never see the record).
    this.#written.delete(name);
    try {
      await this.#host.delete(CoreTypes.configMaps, name, {
        namespace: this.#namespace,
        ...(uid ? { preconditions: { uid } } : {}),
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Name of the record a deletion of `record` would write (for events). */
  static nameOf(record: PendingDeletion): string {
    return pendingDeletionName(record);
  }
}
