// A WorkloadRebalancer's decision (karmada pkg/controllers/workloadrebalancer/workloadrebalancer_controller.go):
// each named workload's binding gets spec.rescheduleTriggeredAt = the rebalancer's creationTimestamp, so the
// scheduler divides its replicas afresh once; the rebalancer reports per workload and, once every workload
// is done, its finishTime, and is deleted ttlSecondsAfterFinished later. Pure.

import {
  type ObservedWorkload,
  RebalanceFailedReason,
  RebalanceResult,
  type WorkloadRebalancer,
  type WorkloadReference,
} from '../../api/apps/v1alpha1/workloadrebalancer.ts';
import { conditionTimestamp } from '../../util/conditions.ts';
import { bindingName } from './binding-name.ts';

/** The binding key (`ns/name` or `name`) a workload's template has. */
export function workloadBindingKey(w: WorkloadReference): string {
  const name = bindingName(w.kind, w.name);
  return w.namespace ? `${w.namespace}/${name}` : name;
}

export interface RebalancePlan {
  /** Bindings whose rescheduleTriggeredAt must be set to `triggeredAt`. */
  trigger: string[];
  triggeredAt: string;
  status: NonNullable<WorkloadRebalancer['status']>;
  /** Milliseconds until the rebalancer is to be deleted (0: now), when it has finished and has a TTL. */
  deleteAfterMs?: number;
}

/**
 * `binding(key)` says whether the binding exists and its current rescheduleTriggeredAt. A workload whose
 * binding is missing fails (ReferencedBindingNotFound) and, like a successful one, is done.
 */
export function planRebalance(
  wr: WorkloadRebalancer,
  binding: (key: string) => { rescheduleTriggeredAt?: string } | undefined,
  now: Date,
): RebalancePlan {
  const triggeredAt = wr.metadata?.creationTimestamp ?? conditionTimestamp(now);
  const trigger: string[] = [];
  const observedWorkloads: ObservedWorkload[] = [];
  const seen = new Set<string>();
  for (const w of wr.spec.workloads) {
    const key = `${w.apiVersion}|${w.kind}|${w.namespace ?? ''}|${w.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const bkey = workloadBindingKey(w);
    const b = binding(bkey);
    if (!b) {
      observedWorkloads.push({
        workload: w,
        result: RebalanceResult.Failed,
        reason: RebalanceFailedReason.ReferencedBindingNotFound,
      });
      continue;
    }
    if (!b.rescheduleTriggeredAt || Date.parse(b.rescheduleTriggeredAt) < Date.parse(triggeredAt))
      trigger.push(bkey);
    observedWorkloads.push({ workload: w, result: RebalanceResult.Successful });
  }
  observedWorkloads.sort((a, b) => refOrder(a.workload).localeCompare(refOrder(b.workload)));
  const generation = wr.metadata?.generation;
  const old = wr.status;
  const sameGeneration =
    old?.observedGeneration !== undefined && Number(old.observedGeneration) === Number(generation);
  const finishTime = sameGeneration && old?.finishTime ? old.finishTime : conditionTimestamp(now);
  const status: RebalancePlan['status'] = { observedWorkloads, finishTime };
  if (generation !== undefined) status.observedGeneration = generation;
  const plan: RebalancePlan = { trigger, triggeredAt, status };
  const ttl = wr.spec.ttlSecondsAfterFinished;
  if (ttl !== undefined && ttl !== null) {
    plan.deleteAfterMs = Math.max(0, Date.parse(finishTime) + ttl * 1_000 - now.getTime());
  }
  return plan;
}

function refOrder(w: WorkloadReference): string {
  return `${w.apiVersion}/${w.kind}/${w.namespace ?? ''}/${w.name}`;
}
