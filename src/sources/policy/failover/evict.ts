// Taking a cluster out of a binding gracefully (karmada pkg/apis/work/v1alpha2/binding_types_helper.go
// GracefulEvictCluster): the cluster leaves spec.clusters and a GracefulEvictionTask remembers it, so its copy
// stays until the graceful eviction controller ends the task. Pure.

import type {
  GracefulEvictionTask,
  ResourceBindingSpec,
  TargetCluster,
} from '../../../api/work/v1alpha2/resourcebinding.ts';

export interface EvictionTaskOptions {
  reason: string;
  producer: string;
  purgeMode?: string;
  message?: string;
  gracePeriodSeconds?: number;
  suppressDeletion?: boolean;
  /** metav1.Time of the eviction: when the task's grace period starts. */
  now: string;
}

/** The purge modes: Immediately and Graciously are the deprecated spellings of Directly and Gracefully. */
export const PurgeMode = { Directly: 'Directly', Gracefully: 'Gracefully', Never: 'Never' } as const;
export type PurgeMode = (typeof PurgeMode)[keyof typeof PurgeMode];

export function normalizedPurgeMode(mode: string | undefined): PurgeMode {
  switch (mode) {
    case 'Directly':
    case 'Immediately':
      return PurgeMode.Directly;
    case 'Never':
      return PurgeMode.Never;
    default:
      return PurgeMode.Gracefully;
  }
}

/**
 * The spec with `cluster` evicted: removed from spec.clusters and, unless a task for it exists already, a
 * task holding its replicas and the clusters before the eviction. The same spec when the cluster is not
 * scheduled.
 */
export function gracefulEvictCluster(
  spec: ResourceBindingSpec,
  cluster: string,
  o: EvictionTaskOptions,
): ResourceBindingSpec {
  const clusters = spec.clusters ?? [];
  const target = clusters.find((c) => c.name === cluster);
  if (!target) return spec;
  const remaining = clusters.filter((c) => c.name !== cluster);
  const tasks = spec.gracefulEvictionTasks ?? [];
  if (tasks.some((t) => t.fromCluster === cluster)) return { ...spec, clusters: remaining };
  const task: GracefulEvictionTask = {
    fromCluster: cluster,
    purgeMode: o.purgeMode ?? PurgeMode.Gracefully,
    reason: o.reason,
    producer: o.producer,
    creationTimestamp: o.now,
    clustersBeforeFailover: clusters.map((c) => c.name),
  };
  if (target.replicas !== undefined && target.replicas > 0) task.replicas = target.replicas;
  if (o.message) task.message = o.message;
  if (o.gracePeriodSeconds !== undefined) task.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.suppressDeletion !== undefined) task.suppressDeletion = o.suppressDeletion;
  return { ...spec, clusters: remaining, gracefulEvictionTasks: [...tasks, task] };
}

/** The clusters of the binding's eviction tasks. */
export function evictingClusters(spec: Pick<ResourceBindingSpec, 'gracefulEvictionTasks'>): string[] {
  return (spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster);
}

/** The target of a cancelled eviction: the cluster back with the replicas it had. */
export function restoredTarget(task: GracefulEvictionTask): TargetCluster {
  return task.replicas !== undefined
    ? { name: task.fromCluster, replicas: task.replicas }
    : { name: task.fromCluster };
}
