// Application failover's decision (karmada pkg/controllers/applicationfailover: detectFailure,
// distinguishUnhealthyClustersWithOthers, buildTaskOptions): a cluster whose copy has been Unhealthy for
// decisionConditions.tolerationSeconds is evicted. Karmada keeps "unhealthy since" in memory, and so do we:
// the caller holds the map between calls. Pure.

import type { FailoverBehavior } from '../../../api/policy/v1alpha1/index.ts';
import {
  EvictionProducer,
  EvictionReason,
  type ResourceBindingSpec,
  type ResourceBindingStatus,
} from '../../../api/work/v1alpha2/resourcebinding.ts';
import { type EvictionTaskOptions, normalizedPurgeMode, PurgeMode } from './evict.ts';

/** decisionConditions.tolerationSeconds default (the API's). */
export const DEFAULT_APPLICATION_TOLERATION_SECONDS = 300;
/** gracePeriodSeconds default for purgeMode Gracefully (karmada-webhook's). */
export const DEFAULT_APPLICATION_GRACE_PERIOD_SECONDS = 600;

export interface ApplicationFailures {
  /** Clusters whose copy was Unhealthy for longer than tolerated. */
  evict: string[];
  /** Since when (ms) each cluster's copy has been Unhealthy, to keep for the next call. */
  unhealthySince: Map<string, number>;
  /** When the next toleration runs out. */
  recheckAfterMs?: number;
}

/**
 * An Unknown health keeps the clock running (a gap in status collection is no recovery); Healthy, a cluster
 * no longer scheduled and one being evicted already stop it.
 */
export function applicationFailures(
  binding: { spec: ResourceBindingSpec; status?: ResourceBindingStatus },
  previous: ReadonlyMap<string, number>,
  nowMs: number,
): ApplicationFailures {
  const tolerationMs =
    (binding.spec.failover?.application?.decisionConditions.tolerationSeconds ??
      DEFAULT_APPLICATION_TOLERATION_SECONDS) * 1_000;
  const scheduled = new Set((binding.spec.clusters ?? []).map((c) => c.name));
  const evicting = new Set((binding.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster));
  const since = new Map<string, number>();
  const evict: string[] = [];
  let recheck = Number.POSITIVE_INFINITY;
  for (const item of binding.status?.aggregatedStatus ?? []) {
    const cluster = item.clusterName;
    if (!scheduled.has(cluster) || evicting.has(cluster)) continue;
    const start = previous.get(cluster);
    if (item.health === 'Unknown') {
      if (start !== undefined) since.set(cluster, start);
      continue;
    }
    if (item.health !== 'Unhealthy') continue;
    if (start === undefined) {
      since.set(cluster, nowMs);
      recheck = Math.min(recheck, tolerationMs);
      continue;
    }
    since.set(cluster, start);
    const left = start + tolerationMs - nowMs;
    if (left < 0 || (left === 0 && tolerationMs === 0)) evict.push(cluster);
    else recheck = Math.min(recheck, Math.max(left, 1));
  }
  // A copy unhealthy everywhere is a bad workload, not a bad cluster: evicting every cluster would leave
  // no replacement (the tasks then block, karmada#7455) and freeze every copy against the fix. Evict
  // only while another scheduled cluster, not itself being evicted, runs the workload Healthy.
  const healthy = (binding.status?.aggregatedStatus ?? []).some(
    (i) => scheduled.has(i.clusterName) && !evicting.has(i.clusterName) && i.health === 'Healthy',
  );
  if (!healthy) evict.length = 0;
  const out: ApplicationFailures = { evict, unhealthySince: since };
  if (Number.isFinite(recheck)) out.recheckAfterMs = recheck;
  return out;
}

/** The task an application failure makes (buildTaskOptions): Gracefully with a grace period, Never kept. */
export function applicationTaskOptions(
  behavior: NonNullable<FailoverBehavior['application']>,
  now: string,
): EvictionTaskOptions {
  const mode = normalizedPurgeMode(behavior.purgeMode);
  const o: EvictionTaskOptions = {
    reason: EvictionReason.ApplicationFailure,
    producer: EvictionProducer.ApplicationFailover,
    purgeMode: mode,
    now,
  };
  if (mode === PurgeMode.Gracefully)
    o.gracePeriodSeconds = behavior.gracePeriodSeconds ?? DEFAULT_APPLICATION_GRACE_PERIOD_SECONDS;
  if (mode === PurgeMode.Never) o.suppressDeletion = true;
  return o;
}
