// The scheduler (karmada pkg/scheduler/scheduler.go): writes each binding's chosen clusters and their
// replicas into `spec.clusters`, and the Scheduled condition, from its placement and the registered
// clusters. The decision is scheduling.ts's; this is only the shell around it.

import { BindingCondition, type ResourceBindingStatus } from '../../api/work/v1alpha2/index.ts';
import { isConflict, isNotFound, type KubeClient } from '../../kube/client/index.ts';
import type { Members } from '../../members/members.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { typeMetaOf } from '../../runtime/type-meta.ts';
import { conditionTimestamp } from '../../util/conditions.ts';
import type { BindingObject } from './binding-spec.ts';
import { type Bindings, bindingTypeOf } from './bindings.ts';
import type { CapacityEstimator } from './capacity-estimator.ts';
import { policyClusterOf } from './clusters.ts';
import { bindingEvent } from './failover/events.ts';
import { createdScheduled, withFirstSchedule } from './first-schedule.ts';
import { firstSuccess, SCHEDULED_MESSAGE, scheduledStatus } from './scheduled-status.ts';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  needsAvailableReplicas,
  placementString,
  rescheduleRequested,
  scheduleBinding,
} from './scheduling.ts';

/**
 * How long the scheduler leaves the Scheduled status of a binding created with its schedule to the binding
 * controller's first report (first-schedule.ts createdScheduled) before writing it itself.
 */
export const FIRST_STATUS_GRACE_MS = 10_000;

export interface SchedulerOptions {
  host: KubeClient;
  /** Reconciles run at once (the sync controllers' `syncController.maxConcurrentReconciles`). */
  workers?: number;
  bindings: Bindings;
  /** The member clusters; scheduling waits for them to load (an empty list would unschedule everything). */
  members: Members;
  events: EventRecorder;
  /** Member capacity for bindings divided by available replicas (dynamicWeight, Aggregated). */
  capacity?: CapacityEstimator;
  logger?: Logger;
  /** Default FIRST_STATUS_GRACE_MS. */
  firstStatusGraceMs?: number;
}

/** A binding divided by the members' room: scheduled again whenever their nodes or pods change. */
function needsCapacity(b: BindingObject): boolean {
  return needsAvailableReplicas(b.spec.placement, b.spec.replicas ?? 0);
}

function notBefore(now: string, trigger: string | undefined): string {
  return trigger && Date.parse(trigger) > Date.parse(now) ? trigger : now;
}

export class Scheduler {
  readonly #opts: SchedulerOptions;
  readonly controller: Controller;

  constructor(opts: SchedulerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: 'policy-scheduler' });
    this.controller = new Controller({
      name: 'policy-scheduler',
      logger: log,
      reconcile: (k) => this.reconcile(k),
      workers: opts.workers ?? 2,
    });
    this.controller
      .cache(opts.members.asCache())
      .source(opts.bindings.changes)
      // A cluster joining, leaving, changing labels or readiness may change any placement.
      .source((enqueue) =>
        opts.members.registry.addListener({
          onClusterChange: () => {
            for (const key of opts.bindings.keys()) enqueue(key, 1_000);
          },
        }),
      );
    const capacity = opts.capacity;
    if (capacity)
      this.controller.source((enqueue) =>
        capacity.onChange(() => {
          for (const key of opts.bindings.keys()) {
            const b = opts.bindings.get(key);
            if (b && needsCapacity(b)) enqueue(key);
          }
        }),
      );
  }

  /**
   * The binding the detector is about to create, with its schedule in its spec when the members are
   * loaded and no capacity needs reading (first-schedule.ts): one write less per binding.
   */
  firstSchedule(b: BindingObject): BindingObject {
    if (!this.#opts.members.hasSynced() || needsCapacity(b)) return b;
    return withFirstSchedule(b, this.#opts.members.registry.list().map(policyClusterOf));
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const b = this.#opts.bindings.get(key);
    if (!b || b.metadata.deletionTimestamp) return ok();
    if (b.spec.suspension?.scheduling) return ok();
    const clusters = this.#opts.members.registry.list().map(policyClusterOf);
    let available: Map<string, number> | undefined;
    const capacity = this.#opts.capacity;
    if (capacity && needsCapacity(b)) {
      // Dividing while some members' nodes and pods are still loading would pack everything onto the
      // first ones loaded; wait for them (their loading is announced through onChange too).
      if (clusters.some((c) => c.ready && capacity.loading(c.name))) return requeueAfter(1_000);
      const request = b.spec.replicaRequirements?.resourceRequest ?? {};
      available = new Map();
      for (const c of clusters) {
        const n = capacity.available(c.name, request, b.spec.replicaRequirements?.nodeClaim);
        if (n !== undefined) available.set(c.name, n);
      }
    }
    const fresh = rescheduleRequested(b);
    const applied = placementString(b.spec.placement);
    const result = scheduleBinding({
      placement: b.spec.placement,
      clusters,
      replicas: b.spec.replicas ?? 0,
      bindingUid: b.metadata.uid ?? '',
      previous: b.spec.clusters,
      previousAffinityName: b.status?.schedulerObservingAffinityName,
      ...(available ? { available } : {}),
      evicting: (b.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster),
      fresh,
      placementChanged: b.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION] !== applied,
    });
    try {
      let binding: BindingObject = b;
      let scheduledNow = false;
      // No cluster fits: Karmada writes the empty result ("continue to patch (cleanup) the result",
      // pkg/scheduler/scheduler.go), so the copies go; a scheduler error keeps the last decision.
      const next = result.ok ? result.clusters : result.reason === 'NoClusterFit' ? [] : undefined;
      // The placement this result was made for is recorded with it (Karmada's applied-placement), also
      // when the clusters stay the same, so that the next schedule knows whether the placement changed.
      const record = result.ok && b.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION] !== applied;
      const clustersChanged = next !== undefined && !jsonEqual(next, b.spec.clusters ?? []);
      if (clustersChanged || record) {
        binding = await this.#opts.host.update(bindingTypeOf(b), {
          ...b,
          metadata: record
            ? {
                ...b.metadata,
                annotations: { ...b.metadata.annotations, [APPLIED_PLACEMENT_ANNOTATION]: applied },
              }
            : b.metadata,
          spec: clustersChanged ? { ...b.spec, clusters: next } : b.spec,
        });
        scheduledNow = result.ok && clustersChanged;
      }
      // Created with this very schedule: the binding controller's first report writes the Scheduled status
      // with its own, unless it has not within the grace period (a member still loading, say). Such a binding
      // has no affinity term to record and its applied placement is already recorded (createdScheduled).
      if (result.ok && !clustersChanged && createdScheduled(b)) {
        const wait = this.#firstStatusWait(b);
        if (wait > 0) return requeueAfter(wait);
      }
      const previous = b.status?.conditions?.find((c) => c.type === BindingCondition.Scheduled);
      // A reschedule is recorded once its clusters are written. A binding's first success (also one created
      // with its clusters: firstSchedule) is recorded once the status write that first sets Scheduled
      // succeeded, judged from the object that write read: the cache may not show that write yet, and a
      // reconcile again from it must not record the event twice.
      const rescheduled = scheduledNow && previous !== undefined;
      if (rescheduled) this.#event(binding, 'Normal', 'ScheduleBindingSucceed', SCHEDULED_MESSAGE);
      let firstScheduled = false;
      if (!result.ok && (previous?.status !== 'False' || previous.message !== result.message)) {
        this.#event(b, 'Warning', 'ScheduleBindingFailed', result.message);
      }
      const now = conditionTimestamp(new Date());
      const outcome = result.ok
        ? { ok: true as const, affinityName: result.affinityName }
        : { ok: false as const, reason: result.reason, message: result.message };
      // A fresh schedule consumes its trigger even when the clusters stay the same; never stamped before the
      // trigger (timestamps are whole seconds), or the next schedule would be fresh again.
      const stampedTime = fresh ? notBefore(now, b.spec.rescheduleTriggeredAt) : now;
      const w = await writeStatusIfChanged({
        client: this.#opts.host,
        type: bindingTypeOf(binding),
        typeMeta: typeMetaOf(bindingTypeOf(binding), bindingTypeOf(binding).kind),
        object: binding,
        compute: (current) => {
          const old: ResourceBindingStatus = current.status ?? {};
          firstScheduled = firstSuccess(old, outcome);
          const stamps = scheduledNow || (result.ok && (!old.lastScheduledTime || fresh));
          const status = scheduledStatus(old, {
            outcome,
            generation: current.metadata.generation,
            now,
            lastScheduledTime: stamps ? stampedTime : undefined,
          });
          return { status, changed: !jsonEqual(status, old) };
        },
      });
      if (w.kind === 'written' && !rescheduled && (firstScheduled || scheduledNow))
        this.#event(w.object, 'Normal', 'ScheduleBindingSucceed', SCHEDULED_MESSAGE);
      return statusWriteResult(w);
    } catch (e) {
      if (isConflict(e)) return requeueAfter(500);
      if (isNotFound(e)) return ok();
      return retry(e);
    }
  }

  /** What is left of a created-scheduled binding's grace period (none for one of unknown age). */
  #firstStatusWait(b: BindingObject): number {
    const created = Date.parse(b.metadata.creationTimestamp ?? '');
    if (Number.isNaN(created)) return 0;
    return created + (this.#opts.firstStatusGraceMs ?? FIRST_STATUS_GRACE_MS) - Date.now();
  }

  #event(b: BindingObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    bindingEvent(this.#opts.events, b, type, reason, message);
  }
}
