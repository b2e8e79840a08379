import {
  API_VERSION,
  type ReplicaSchedulingPreference,
  ReplicaSchedulingPreferenceType,
  RSP_KIND,
} from '../../api/scheduling/v1alpha1/index.ts';
import type { ResolvedKubeFedConfig } from '../../config/index.ts';
import { CoreTypes, errorMessage, type KubeClient, type KubeObject } from '../../kube/client/index.ts';
import type { Members } from '../../members/members.ts';
import { type Placement, selectedClusterNames } from '../../propagation/placement.ts';
import { Controller } from '../../runtime/controller.ts';
import { EventRecorder, type EventType, eventsAbout } from '../../runtime/events.ts';
import { logFailure } from '../../runtime/failure-log.ts';
import { enqueueObject } from '../../runtime/handlers.ts';
import { type Informer, objectKey } from '../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { afterWriteError, ok, type ReconcileResult, requeueAfter } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { applySchedule } from '../../scheduling/overrides.ts';
import { plan } from '../../scheduling/planner.ts';
import { analysePods } from '../../scheduling/pod-analysis.ts';
import { preferencesOf, validateRsp } from '../../scheduling/preferences.ts';
import type { FederatedObject } from '../../sources/federated/federated-object.ts';
import type { SyncController } from '../../sources/federated/sync-controller.ts';
import type { FederatedTypeConfigController } from '../../sources/federated/type-config-controller.ts';
import { dropUndefined } from '../../util/drop-undefined.ts';
import { FederatedTypeMembers } from '../federated-type-members.ts';

import { buildRspStatus, type RspStatusInput, rspStatusChanged } from './status.ts';
import { SCHEDULING_TARGETS } from './targets.ts';

type RspObject = ReplicaSchedulingPreference & KubeObject;
const RSP_TYPE_META = { apiVersion: API_VERSION, kind: RSP_KIND };

/** KubeFed rechecks every 10 s while pods are unschedulable but not yet for 60 s. */
const RECHECK_MS = 10_000;
/** A member object change is looked at after this delay (KubeFed: 10 s). */
const MEMBER_EVENT_DELAY_MS = 2_000;

export interface SchedulingControllerOptions {
  host: KubeClient;
  namespace: string;
  config: ResolvedKubeFedConfig;
  /** Federated objects of the scheduled types come from their sync controllers. */
  ftcs: FederatedTypeConfigController;
  /** The registry, member clients and the member Deployments/ReplicaSets (shared caches). */
  members: Members;
  logger?: Logger;
}

/**
 * The ReplicaSchedulingPreference controller (KubeFed pkg/controller/schedulingpreference/controller.go and
 * pkg/schedulingtypes/replicascheduler.go): spreads `totalReplicas` of a FederatedDeployment or
 * FederatedReplicaSet over the ready clusters with KubeFed's planner, owning the placement list and the
 * `/spec/replicas` overrides. It reads member Deployments/ReplicaSets from the shared member caches (the
 * informers the sync controllers read) instead of keeping its own, and lists pods only in clusters where not
 * every replica is ready.
 */
export class SchedulingController implements Runnable {
  readonly name = 'replicaschedulingpreference';
  readonly leaderOnly = true;
  readonly #opts: SchedulingControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #events: EventRecorder;
  readonly #unobserve = new Map<string, () => void>();
  readonly #rsps: Informer<RspObject>;
  /** The managed member objects of each scheduled type (by FTC name), while it is enabled. */
  readonly #targets: Map<string, FederatedTypeMembers>;

  constructor(opts: SchedulingControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#events = new EventRecorder(opts.host, `${this.name}-controller`, this.#log);
    this.#targets = new Map(
      Object.values(SCHEDULING_TARGETS).map((ftcName) => [
        ftcName,
        new FederatedTypeMembers({
          members: opts.members,
          ftcs: opts.ftcs,
          ftcName,
          onObject: (_cluster, key) => this.#controller.enqueue(key, MEMBER_EVENT_DELAY_MS),
        }),
      ]),
    );
    this.#controller = new Controller({
      name: this.name,
      logger: this.#log,
      reconcile: (key) => this.reconcile(key),
    });
    this.#rsps = this.#controller.watch<RspObject>(
      {
        client: opts.host,
        type: ReplicaSchedulingPreferenceType,
        namespace: opts.config.scope === 'Namespaced' ? opts.namespace : undefined,
      },
      enqueueObject(),
    );
    this.#controller
      // Federated and member objects of the scheduled types: follow whichever sync controller runs now.
      .source(() => {
        this.#opts.ftcs.addSyncListener((ftc, controller) => this.#follow(ftc, controller));
        for (const ftc of Object.values(SCHEDULING_TARGETS))
          this.#follow(ftc, this.#opts.ftcs.syncController(ftc));
        return () => {
          for (const u of this.#unobserve.values()) u();
        };
      })
      // Member objects of the scheduled types, from the shared member caches while each type is enabled.
      .cache(this.#opts.members.asCache())
      .source(() => {
        for (const t of this.#targets.values()) t.start();
        return () => Promise.all([...this.#targets.values()].map((t) => t.close())).then(() => undefined);
      })
      // Readiness decides the candidates: re-plan everything when a cluster comes or goes.
      .source((enqueue) =>
        this.#opts.members.registry.addListener({
          onClusterChange: () => {
            for (const r of this.#rsps.store.list()) enqueue(objectKey(r));
          },
        }),
      );
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  #follow(ftc: string, controller: SyncController | undefined): void {
    if (!Object.values(SCHEDULING_TARGETS).includes(ftc)) return;
    this.#unobserve.get(ftc)?.();
    this.#unobserve.delete(ftc);
    if (!controller) return;
    this.#unobserve.set(
      ftc,
      controller.addObserver({
        onFederatedObject: (key) => this.#controller.enqueue(key),
      }),
    );
    for (const r of this.#rsps.store.list()) this.#controller.enqueue(objectKey(r));
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const cached = this.#rsps.store.get(key);
    // Deleting an RSP leaves placement and overrides as they are, as in KubeFed.
    if (!cached) return ok();
    const rsp = structuredClone(cached);
    const report = (input: RspStatusInput) => this.#writeStatus(rsp, input);

    const errors = validateRsp(rsp.spec);
    if (errors.length > 0) {
      const message = errors.join('; ');
      this.#event(rsp, 'Warning', 'InvalidSpec', message);
      return report({ ready: false, reason: 'InvalidSpec', message });
    }
    const ftcName = SCHEDULING_TARGETS[rsp.spec.targetKind] ?? '';
    const sync = this.#opts.ftcs.syncController(ftcName);
    if (!sync) {
      return report({
        ready: false,
        reason: 'TargetTypeNotEnabled',
        message: `FederatedTypeConfig "${ftcName}" is not enabled`,
      });
    }
    const fedCached = sync.federatedObject(key);
    if (!fedCached) {
      return report({
        ready: false,
        reason: 'TargetNotFound',
        message: `${rsp.spec.targetKind} "${key}" does not exist`,
      });
    }
    const fed = structuredClone(fedCached);
    const registry = this.#opts.members.registry;
    let candidates = registry
      .list()
      .map((c) => c.metadata.name ?? '')
      .filter((n) => registry.isReady(n));
    if (rsp.spec.intersectWithClusterSelector) {
      try {
        candidates = this.#selectorClusters(fed, candidates);
      } catch (e) {
        return report({ ready: false, reason: 'ComputePlacementFailed', message: errorMessage(e) });
      }
    }
    if (candidates.length === 0) {
      return report({ ready: false, reason: 'NoClusters', message: 'no ready cluster is a candidate' });
    }

    const current: Record<string, number> = {};
    const capacity: Record<string, number> = {};
    let needsRecheck = false;
    for (const cluster of candidates) {
      const member = this.#targets.get(ftcName)?.get(cluster, key);
      if (!member) continue;
      const spec = (member.spec ?? {}) as {
        replicas?: number;
        selector?: { matchLabels?: Record<string, string> };
      };
      const replicas = spec.replicas ?? 0;
      const ready = ((member.status ?? {}) as { readyReplicas?: number }).readyReplicas ?? 0;
      if (replicas === ready) {
        current[cluster] = ready;
        continue;
      }
      const matchLabels = spec.selector?.matchLabels;
      if (!matchLabels || Object.keys(matchLabels).length === 0) {
        this.#log.info(
          { cluster, rsp: key, err: 'the object has no spec.selector.matchLabels' },
          'cannot analyse pods; using ready replicas',
        );
        current[cluster] = ready;
        continue;
      }
      try {
        const pods = await this.#pods(cluster, member.metadata.namespace ?? '', matchLabels);
        const a = analysePods(pods, new Date());
        current[cluster] = a.runningAndReady;
        if (a.unschedulable > 0) capacity[cluster] = Math.max(0, replicas - a.unschedulable);
        if (a.recentUnschedulable > 0) needsRecheck = true;
      } catch (e) {
        logFailure(this.#log, 'cannot analyse pods; using ready replicas', {
          cluster,
          err: e,
          fields: { rsp: key },
        });
        current[cluster] = ready;
      }
    }

    const { plan: planned, overflow } = plan({
      preferences: preferencesOf(rsp.spec),
      totalReplicas: rsp.spec.totalReplicas,
      rebalance: rsp.spec.rebalance === true,
      clusters: candidates,
      current,
      capacity,
      key,
    });
    const result: Record<string, number> = {};
    for (const c of Object.keys(current)) result[c] = 0;
    for (const [c, n] of Object.entries(planned)) result[c] = n;
    for (const [c, n] of Object.entries(overflow)) result[c] = (result[c] ?? 0) + n;

    let change: ReturnType<typeof applySchedule>;
    try {
      change = applySchedule(fed, result);
    } catch (e) {
      const message = `cannot apply the schedule to ${rsp.spec.targetKind} "${key}": ${errorMessage(e)}`;
      this.#event(rsp, 'Warning', 'ScheduleFailed', message);
      return report({ ready: false, reason: 'ScheduleFailed', message });
    }
    if (change.placementClusters !== undefined || change.overrides !== undefined) {
      const spec: Record<string, unknown> = {};
      if (change.placementClusters !== undefined) {
        spec.placement = { clusters: change.placementClusters.map((name) => ({ name })) };
      }
      if (change.overrides !== undefined) spec.overrides = change.overrides;
      try {
        await this.#opts.host.patch(
          sync.fedType,
          fed.metadata.name ?? '',
          { metadata: { resourceVersion: fed.metadata.resourceVersion }, spec },
          { namespace: fed.metadata.namespace, patchType: 'merge' },
        );
        this.#event(
          rsp,
          'Normal',
          'Scheduled',
          `Scheduled ${rsp.spec.targetKind} "${key}": ${Object.entries(result)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([c, n]) => `${c}=${n}`)
            .join(', ')}`,
        );
      } catch (e) {
        return afterWriteError(e);
      }
    }
    const written = await report({ ready: true, reason: 'Scheduled', result, overflow, candidates });
    if (written.kind !== 'ok') return written;
    return needsRecheck ? requeueAfter(RECHECK_MS) : ok();
  }

  /**
   * KubeFed (*ReplicaScheduler).Reconcile with intersectWithClusterSelector: selector-only placement,
   * intersected with the FederatedNamespace's selector-only one.
   */
  #selectorClusters(fed: FederatedObject, ready: string[]): string[] {
    const clusters = this.#opts.members.registry
      .list()
      .map((c) => ({ name: c.metadata.name ?? '', labels: c.metadata.labels }));
    const selectorOnly = (p: Placement | undefined) =>
      selectedClusterNames({ clusterSelector: p?.clusterSelector }, clusters);
    let selected = selectorOnly(fed.spec?.placement);
    const ns = fed.metadata.namespace ?? '';
    const fedNs = this.#opts.ftcs.syncController('namespaces')?.federatedObject(`${ns}/${ns}`);
    if (fedNs) {
      const nsSelected = selectorOnly(fedNs.spec?.placement);
      selected = new Set([...selected].filter((c) => nsSelected.has(c)));
    }
    return ready.filter((c) => selected.has(c));
  }

  async #pods(
    cluster: string,
    namespace: string,
    matchLabels: Record<string, string>,
  ): Promise<KubeObject[]> {
    const labelSelector = Object.entries(matchLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const client = this.#opts.members.registry.clientFor(cluster);
    const list = await client.list(CoreTypes.pods, { namespace, labelSelector });
    return list.items;
  }

  #event(rsp: RspObject, type: EventType, reason: string, message: string): void {
    eventsAbout(this.#events, rsp, RSP_TYPE_META)(type, reason, message);
  }

  async #writeStatus(rsp: RspObject, input: RspStatusInput): Promise<ReconcileResult> {
    const now = new Date();
    const written = await writeStatusIfChanged({
      client: this.#opts.host,
      type: ReplicaSchedulingPreferenceType,
      typeMeta: RSP_TYPE_META,
      object: rsp,
      compute: (current) => {
        const status = buildRspStatus(current, input, now);
        return { status: dropUndefined(status), changed: rspStatusChanged(current.status, status) };
      },
    });
    return statusWriteResult(written);
  }
}
