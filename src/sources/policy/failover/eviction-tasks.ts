// When a graceful eviction ends (karmada pkg/controllers/gracefuleviction/evictiontask.go assessEvictionTasks
// and assessSingleTask), with two Karmada bugs fixed: a task never ends while no replacement is scheduled
// (karmada#7455: Karmada treats an empty spec.clusters as "all healthy" and deletes the only copy), and a
// TaintUntolerated task is cleared when its cluster recovers (karmada#5803). Pure.

import {
  BindingCondition,
  EvictionReason,
  type GracefulEvictionTask,
  type ResourceBinding,
  type TargetCluster,
} from '../../../api/work/v1alpha2/resourcebinding.ts';
import { conditionTimestamp } from '../../../util/conditions.ts';
import type { PolicyCluster } from '../cluster-affinity.ts';
import { clusterRecovered } from './cluster-evictions.ts';
import { normalizedPurgeMode, PurgeMode, restoredTarget } from './evict.ts';

/** karmada-controller-manager --graceful-eviction-timeout. */
export const DEFAULT_GRACEFUL_EVICTION_TIMEOUT_SECONDS = 600;

export interface AssessOptions {
  /** The grace period of a task without gracePeriodSeconds. */
  timeoutSeconds: number;
  /** The member clusters as policies see them: an evicted cluster that is Ready and tolerated again recovered. */
  clusters: readonly PolicyCluster[];
}

export type TaskEnd = 'replaced' | 'healthy' | 'timeout' | 'confirmed' | 'recovered' | 'cancelled';

export interface Assessment {
  /** The tasks to keep (a blocked one with its message saying why). */
  tasks: GracefulEvictionTask[];
  /** spec.clusters, with the clusters whose eviction was cancelled back in it. */
  clusters: TargetCluster[];
  /** Tasks that ended, and why. */
  ended: Array<{ cluster: string; why: TaskEnd }>;
  /** Tasks newly kept because nothing can take their replicas: what their message now says. */
  blocked: Array<{ cluster: string; message: string }>;
  /** When a grace period runs out next. */
  recheckAfterMs?: number;
}

/** The message prefix of a task kept because no replacement is scheduled. */
export const BLOCKED_PREFIX = 'kept: ';

/**
 * Whether the binding's replicas have somewhere else to go: the scheduler has scheduled the current spec
 * (Scheduled True for this generation) and, for divided replicas, spec.clusters hold all of them; for
 * others spec.clusters is not empty.
 */
export function replacementScheduled(b: ResourceBinding): boolean {
  const scheduled = b.status?.conditions?.find((c) => c.type === BindingCondition.Scheduled);
  if (scheduled?.status !== 'True') return false;
  if (!schedulerCaughtUp(b)) return false;
  const clusters = b.spec.clusters ?? [];
  if (clusters.length === 0) return false;
  if (!divided(b)) return true;
  const placed = clusters.reduce((n, c) => n + (c.replicas ?? 0), 0);
  return placed >= (b.spec.replicas ?? 0);
}

function schedulerCaughtUp(b: ResourceBinding): boolean {
  const generation = b.metadata?.generation;
  return generation === undefined || Number(b.status?.schedulerObservedGeneration) === Number(generation);
}

function divided(b: ResourceBinding): boolean {
  return (
    (b.spec.replicas ?? 0) > 0 && b.spec.placement?.replicaScheduling?.replicaSchedulingType === 'Divided'
  );
}

/**
 * Every scheduled cluster's copy is Healthy, as the binding controller last saw it for this spec
 * (allScheduledResourceInHealthyState; the FullyApplied condition's observedGeneration guards against
 * health read before the new spec reached the members).
 */
export function allScheduledHealthy(b: ResourceBinding): boolean {
  const applied = b.status?.conditions?.find((c) => c.type === BindingCondition.FullyApplied);
  const generation = b.metadata?.generation;
  if (generation !== undefined && Number(applied?.observedGeneration) !== Number(generation)) return false;
  const items = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  return (b.spec.clusters ?? []).every((c) => items.get(c.name)?.health === 'Healthy');
}

function blockedMessage(b: ResourceBinding, task: GracefulEvictionTask): string {
  const scheduled = b.status?.conditions?.find((c) => c.type === BindingCondition.Scheduled);
  const why =
    scheduled?.status === 'False' && scheduled.message
      ? scheduled.message
      : `spec.clusters hold ${(b.spec.clusters ?? []).reduce((n, c) => n + (c.replicas ?? 0), 0)} of ${b.spec.replicas ?? 0} replicas`;
  const what = task.replicas !== undefined ? `its ${task.replicas} replicas` : 'it';
  return `${BLOCKED_PREFIX}no cluster can take ${what}: ${why}`.slice(0, 1024);
}

export function assessEvictionTasks(b: ResourceBinding, now: Date, opts: AssessOptions): Assessment {
  const byName = new Map(opts.clusters.map((c) => [c.name, c]));
  const replaced = replacementScheduled(b);
  const nowIso = conditionTimestamp(now);
  const out: Assessment = { tasks: [], clusters: [...(b.spec.clusters ?? [])], ended: [], blocked: [] };
  let recheck = Number.POSITIVE_INFINITY;
  for (const task of b.spec.gracefulEvictionTasks ?? []) {
    const end = (why: TaskEnd) => out.ended.push({ cluster: task.fromCluster, why });
    // karmada#5803: the cluster is back. Without a replacement the eviction is undone; with one the task
    // ends as any other, once the replacement is available (the replicas stay where they went:
    // rebalancing is asked for).
    if (
      task.reason === EvictionReason.TaintUntolerated &&
      clusterRecovered(byName.get(task.fromCluster), b.spec, now)
    ) {
      if (!replaced) {
        if (!out.clusters.some((c) => c.name === task.fromCluster)) out.clusters.push(restoredTarget(task));
        end('cancelled');
        continue;
      }
    }
    if (task.suppressDeletion === true) {
      out.tasks.push(task);
      continue;
    }
    if (task.suppressDeletion === false) {
      end('confirmed');
      continue;
    }
    // A task without a readable creation time (written by hand) starts its grace period now.
    if (!task.creationTimestamp || Number.isNaN(Date.parse(task.creationTimestamp))) {
      out.tasks.push({ ...task, creationTimestamp: nowIso });
      continue;
    }
    // karmada#7455: whatever the mode, the old copy is the only one until a replacement is scheduled.
    if (!replaced) {
      if (schedulerCaughtUp(b)) {
        const message = blockedMessage(b, task);
        if (task.message !== message) out.blocked.push({ cluster: task.fromCluster, message });
        out.tasks.push({ ...task, message });
      } else out.tasks.push(task);
      continue;
    }
    const mode = normalizedPurgeMode(task.purgeMode);
    if (mode === PurgeMode.Directly) {
      end('replaced');
      continue;
    }
    const grace = Number(task.gracePeriodSeconds ?? opts.timeoutSeconds);
    const graceMs = (Number.isFinite(grace) ? grace : opts.timeoutSeconds) * 1_000;
    const left = Date.parse(task.creationTimestamp) + graceMs - now.getTime();
    if (left <= 0) {
      end('timeout');
      continue;
    }
    if (allScheduledHealthy(b)) {
      end('healthy');
      continue;
    }
    recheck = Math.min(recheck, left);
    out.tasks.push(unblocked(task));
  }
  // The scheduler's order (code points), so that the two never rewrite spec.clusters back and forth.
  out.clusters.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  if (Number.isFinite(recheck)) out.recheckAfterMs = recheck;
  return out;
}

/** A task whose replacement is now scheduled no longer says it is kept for want of one. */
function unblocked(task: GracefulEvictionTask): GracefulEvictionTask {
  if (!task.message?.startsWith(BLOCKED_PREFIX)) return task;
  const { message: _, ...rest } = task;
  return rest;
}
