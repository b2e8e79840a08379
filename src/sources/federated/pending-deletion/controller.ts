import { Gauge } from 'prom-client';
import {
  apiVersionOf,
  CoreTypes,
  errorMessage,
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeObject,
  TransportError,
} from '../../../kube/client/index.ts';
import type { ClusterRegistry } from '../../../members/cluster-registry.ts';
import { Controller } from '../../../runtime/controller.ts';
import { EventRecorder, type EventType } from '../../../runtime/events.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import { registry as metricsRegistry } from '../../../runtime/metrics.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../runtime/reconcile.ts';
import { judgeCluster, judgeFederatedObject, judgeMemberCopy, type Verdict } from './decide.ts';
import { type ConfigMapObject, fromConfigMap, type PendingDeletion } from './record.ts';
import type { PendingDeletionStore } from './store.ts';

/** A federated object still being finalized: its sync controller is on it; look again after this. */
const RELEASE_RECHECK_MS = 5_000;
/** After a member turns ready, give its apiserver a moment before the first request. */
const READY_DELAY_MS = 1_000;

export const pendingMemberDeletions = new Gauge({
  name: 'pending_member_deletions',
  help: 'Deletions of member copies recorded on the host and not carried out yet, by member (kubefed-ts).',
  labelNames: ['cluster'] as const,
  registers: [metricsRegistry],
});

export interface PendingDeletionControllerOptions {
  host: KubeClient;
  registry: ClusterRegistry;
  store: PendingDeletionStore;
  logger?: Logger;
}

/**
 * Carries out the member deletions that deleting a federated object left pending because the member was
 * not ready: once the member is ready, the copy is deleted if it is still the managed copy the user deleted
 * (decide.ts), and the record is removed. Retried with backoff (5 s → 60 s) while the member refuses.
 */
export class PendingDeletionController {
  readonly #opts: PendingDeletionControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #events: EventRecorder;
  readonly #client: KubeClient;

  constructor(opts: PendingDeletionControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: 'pendingdeletion' });
    this.#client = opts.host.fork();
    this.#events = new EventRecorder(this.#client, 'pendingdeletion-controller', this.#log);
    const { store, registry } = opts;
    this.#controller = new Controller({
      name: 'pendingdeletion',
      logger: this.#log,
      reconcile: (name) => this.reconcile(name),
      workers: 2,
    })
      .source((enqueue) =>
        store.addListener({
          onRecord: (name) => {
            enqueue(name);
            this.#updateGauge();
          },
          onRecordDeleted: () => this.#updateGauge(),
        }),
      )
      .source((enqueue) =>
        registry.addListener({
          onClusterChange: (cluster, change, ready) => {
            if (!ready && change !== 'removed') return;
            for (const cm of store.list()) {
              if (cm.data?.cluster === cluster) enqueue(cm.metadata.name ?? '', READY_DELAY_MS);
            }
          },
        }),
      )
      // Records loaded before this start (the store synced first) get their first look now.
      .beforeWorkers(() => {
        for (const cm of store.list()) this.#controller.enqueue(cm.metadata.name ?? '');
        this.#updateGauge();
      });
  }

  start(): void {
    this.#controller.start();
  }

  async stop(): Promise<void> {
    await this.#controller.stop();
    await this.#client.close();
  }

  #updateGauge(): void {
    const counts = new Map<string, number>();
    for (const cm of this.#opts.store.list()) {
      const c = cm.data?.cluster ?? '';
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    pendingMemberDeletions.reset();
    for (const [cluster, n] of counts) pendingMemberDeletions.set({ cluster }, n);
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const cm = this.#opts.store.get(name);
    if (!cm) return ok();
    const record = fromConfigMap(cm);
    if ('invalid' in record) {
      // Edited by hand into something else: leave it for whoever did that, and say so once.
      this.#log.warn(
        { record: name, problem: record.invalid },
        'ignoring an invalid pending-deletion record',
      );
      return ok();
    }
    const { registry } = this.#opts;
    let verdict = judgeCluster({
      registered: registry.get(record.cluster) !== undefined,
      ready: registry.isReady(record.cluster),
    });
    try {
      if (verdict.action === 'continue')
        verdict = judgeFederatedObject(record, await this.#federatedUid(record));
      let member: KubeClient | undefined;
      if (verdict.action === 'continue') {
        member = registry.clientFor(record.cluster);
        const copy = await getOrUndefined(member, record);
        const hostNamespaceUid = isNamespace(record) ? await this.#hostNamespaceUid(record.name) : undefined;
        verdict = judgeMemberCopy(record, copy, hostNamespaceUid);
      }
      return await this.#act(cm, record, verdict, member);
    } catch (e) {
      if (e instanceof TransportError) registry.markUnresponsive(record.cluster);
      this.#log.info(
        { record: name, cluster: record.cluster, err: errorMessage(e) },
        'pending deletion failed',
      );
      return retry(e);
    }
  }

  async #act(
    cm: ConfigMapObject,
    record: PendingDeletion,
    verdict: Verdict,
    member: KubeClient | undefined,
  ): Promise<ReconcileResult> {
    const what = `${record.target.kind} "${describe(record)}" in cluster "${record.cluster}"`;
    switch (verdict.action) {
      case 'waitForCluster':
      case 'continue':
        return ok();
      case 'waitForRelease':
        return requeueAfter(RELEASE_RECHECK_MS);
      case 'drop':
        await this.#opts.store.remove(cm.metadata.name ?? '', cm.metadata.uid);
        if (verdict.reason === 'gone')
          this.#event(record, 'Normal', 'PendingDeletionCompleted', `${what}: ${verdict.message}`);
        else
          this.#event(record, 'Normal', 'PendingDeletionDropped', `Not deleting ${what}: ${verdict.message}`);
        this.#log.info(
          { record: cm.metadata.name, cluster: record.cluster, reason: verdict.reason },
          'pending deletion dropped',
        );
        return ok();
      case 'delete': {
        if (!member) return ok();
        try {
          await member.delete(record.target, record.name, {
            namespace: record.namespace,
            ...record.deleteOptions,
            // Only the copy just judged: a replacement in between is not ours. The user's resourceVersion
            // precondition is left out: it named the copy as it was then, and would conflict for ever.
            preconditions: { uid: verdict.uid },
          });
        } catch (e) {
          // Gone meanwhile: done. Replaced meanwhile (uid precondition): judge it again, with backoff.
          if (isConflict(e)) return retry(e);
          if (!isNotFound(e)) {
            this.#event(
              record,
              'Warning',
              'DeleteInClusterFailed',
              `Failed to delete ${what}: ${errorMessage(e)}`,
            );
            throw e;
          }
        }
        await this.#opts.store.remove(cm.metadata.name ?? '', cm.metadata.uid);
        this.#event(
          record,
          'Normal',
          'PendingDeletionCompleted',
          `Deleted ${what}, pending since the federated object was deleted at ${record.deletedAt}`,
        );
        this.#log.info({ record: cm.metadata.name, cluster: record.cluster }, 'pending deletion carried out');
        return ok();
      }
    }
  }

  async #federatedUid(record: PendingDeletion): Promise<string | undefined> {
    try {
      const o = await this.#client.get(record.federated, record.name, record.federatedNamespace);
      return o.metadata.uid;
    } catch (e) {
      // 404 also when the federated type is gone altogether: no object can claim the copy then.
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async #hostNamespaceUid(name: string): Promise<string | undefined> {
    try {
      return (await this.#client.get(CoreTypes.namespaces, name)).metadata.uid;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Events go on the deleted federated object (by name and uid), where `kubectl get events` finds them. */
  #event(record: PendingDeletion, type: EventType, reason: string, message: string): void {
    const obj: KubeObject = {
      apiVersion: apiVersionOf(record.federated),
      kind: record.federated.kind,
      metadata: { name: record.name, namespace: record.federatedNamespace, uid: record.federatedUid },
    };
    void this.#events.record(obj, type, reason, message);
  }
}

function isNamespace(r: PendingDeletion): boolean {
  return r.target.group === '' && r.target.kind === 'Namespace';
}

function describe(r: PendingDeletion): string {
  return r.namespace ? `${r.namespace}/${r.name}` : r.name;
}

async function getOrUndefined(member: KubeClient, r: PendingDeletion): Promise<KubeObject | undefined> {
  try {
    return await member.get(r.target, r.name, r.namespace);
  } catch (e) {
    // 404 also when the member does not serve the type (any more): it cannot hold the copy.
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
