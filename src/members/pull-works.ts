// The ManifestWorks the engine hands Pull clusters' agents, read from the host through one informer shared by
// every source (label-selected: only the engine's own works). A Pull cluster has no member client or member
// cache: what the hub knows of it is its KubeFedCluster (readiness from the agent's lease) and these works'
// status. Started with the first Pull cluster, so a federation without one watches nothing more.

import { API_VERSION, type ManifestWork, MW_KIND, MW_PLURAL } from '../api/ocm/work/v1/index.ts';
import type { KubeClient, KubeObject, ResourceType } from '../kube/client/index.ts';
import { Informer, withoutManagedFields } from '../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';

export const MANIFEST_WORK_TYPE: ResourceType & { kind: string } = {
  group: API_VERSION.split('/')[0] ?? '',
  version: API_VERSION.split('/')[1] ?? '',
  plural: MW_PLURAL,
  namespaced: true,
  kind: MW_KIND,
};

/** The source of the owner: every engine-made ManifestWork has it, so one hub informer selects them all. */
export const WORK_SOURCE_LABEL = 'kubefed-ts.io/owner-source';

export type WorkObject = ManifestWork & KubeObject;

export interface PullWorksListener {
  /** An engine-made ManifestWork changed (its status, usually) in the namespace of `cluster`. */
  onWork?(cluster: string, work: WorkObject, old: WorkObject | undefined): void;
  /** The informer finished loading: everything waiting for it can be looked at. */
  onSynced?(): void;
}

export class PullWorks {
  readonly #host: KubeClient;
  readonly #log: Logger;
  readonly #listeners = new Set<PullWorksListener>();
  #informer: Informer<WorkObject> | undefined;

  constructor(opts: { host: KubeClient; logger?: Logger }) {
    this.#host = opts.host;
    this.#log = (opts.logger ?? silentLogger).child({ component: 'pull-works' });
  }

  get hostClient(): KubeClient {
    return this.#host;
  }

  /** Starts the informer (idempotent): the registry calls it when it first sees a Pull cluster. */
  start(): void {
    if (this.#informer) return;
    const informer = new Informer<WorkObject>({
      client: this.#host,
      type: MANIFEST_WORK_TYPE,
      labelSelector: WORK_SOURCE_LABEL,
      logger: this.#log,
      // A work's field ownership lists every field of every manifest in it, and nothing here reads it.
      transform: withoutManagedFields,
    });
    const tell = (w: WorkObject, old?: WorkObject) => {
      const cluster = w.metadata.namespace ?? '';
      for (const l of [...this.#listeners]) l.onWork?.(cluster, w, old);
    };
    informer.addHandlers({ onAdd: (w) => tell(w), onUpdate: (o, w) => tell(w, o), onDelete: (w) => tell(w) });
    this.#informer = informer;
    informer.start();
    void informer.waitForSync().then(() => {
      if (this.#informer !== informer || !informer.hasSynced()) return;
      for (const l of [...this.#listeners]) l.onSynced?.();
    });
  }

  get started(): boolean {
    return this.#informer !== undefined;
  }

  hasSynced(): boolean {
    return this.#informer?.hasSynced() ?? false;
  }

  /** The engine-made work `name` in the hub namespace of `cluster`. */
  get(cluster: string, name: string): WorkObject | undefined {
    return this.#informer?.store.get(`${cluster}/${name}`);
  }

  /**
   * This process's own write of the work `name` of `cluster` (replacing `previousResourceVersion`, undefined
   * for a create), made through the informer (Informer.ownWrite): the cache has it at once, and its watch
   * event is told to no listener, whichever arrives first. Nobody needs it: the hub's write changes the
   * work's spec, and what the member holds is read from the status the agent reports, a change of its own.
   */
  ownWrite(
    cluster: string,
    name: string,
    previousResourceVersion: string | undefined,
    write: () => Promise<WorkObject>,
  ): Promise<WorkObject> {
    const informer = this.#informer;
    if (!informer) return write();
    return informer.ownWrite(`${cluster}/${name}`, write, (object) => ({
      object,
      replaced: previousResourceVersion,
    }));
  }

  addListener(l: PullWorksListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  async stop(): Promise<void> {
    const informer = this.#informer;
    this.#informer = undefined;
    await informer?.stop();
  }
}
