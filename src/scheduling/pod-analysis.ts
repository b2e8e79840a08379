// How many replicas a member cluster really runs, and how many it cannot schedule (KubeFed
// pkg/controller/util/podanalyzer and clustersReplicaState in pkg/schedulingtypes/replicascheduler.go).

import type { KubeObject } from '../kube/client/index.ts';
import { isPlainObject } from '../propagation/json.ts';

/** A pod counts as unschedulable only once its PodScheduled=False condition is older than this. */
export const UNSCHEDULABLE_THRESHOLD_MS = 60_000;

export interface PodAnalysis {
  total: number;
  /** Pods in phase Running with a Ready condition (of any status: see analysePods). */
  runningAndReady: number;
  /** Pods not running, unschedulable for more than UNSCHEDULABLE_THRESHOLD_MS. */
  unschedulable: number;
  /** Pods not running, unschedulable for less: the caller should look again soon (NeedsRecheck). */
  recentUnschedulable: number;
}

/** Go's zero time for a missing or unreadable timestamp: long ago, so the threshold has passed. */
function transitionTime(value: unknown): number {
  const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** KubeFed's AnalyzePods, condition by condition. */
export function analysePods(pods: readonly KubeObject[], now: Date): PodAnalysis {
  const result: PodAnalysis = { total: 0, runningAndReady: 0, unschedulable: 0, recentUnschedulable: 0 };
  for (const pod of pods) {
    result.total++;
    const status = isPlainObject(pod['status']) ? pod['status'] : {};
    const running = status['phase'] === 'Running';
    const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
    for (const c of conditions) {
      if (!isPlainObject(c)) continue;
      if (running) {
        // KubeFed quirk kept on purpose: the Ready condition's status is not checked, so a running pod
        // that is not ready still counts (changing it would change plans for rebalance=false).
        if (c['type'] === 'Ready') result.runningAndReady++;
      } else if (c['type'] === 'PodScheduled' && c['status'] === 'False' && c['reason'] === 'Unschedulable') {
        if (transitionTime(c['lastTransitionTime']) + UNSCHEDULABLE_THRESHOLD_MS < now.getTime())
          result.unschedulable++;
        else result.recentUnschedulable++;
      }
    }
  }
  return result;
}

export interface ClusterStateInput {
  /** The member workload's `spec.replicas` (0 if absent). */
  replicas: number;
  /** The member workload's `status.readyReplicas` (0 if absent). */
  readyReplicas: number;
  /** The pods matching the workload's selector; needed only when replicas != readyReplicas. */
  pods?: readonly KubeObject[];
  now: Date;
}

export interface ClusterState {
  /** Replicas running in the cluster: the planner's `current`. */
  current: number;
  /** Only when some pods have been unschedulable long enough: the planner's `capacity`. */
  capacity?: number;
  /** Some pods just became unschedulable: reconcile again shortly (KubeFed's NeedsRecheck). */
  needsRecheck: boolean;
}

/** True when the workload is not settled and its pods must be listed for clusterState. */
export function needsPodAnalysis(replicas: number, readyReplicas: number): boolean {
  return replicas !== readyReplicas;
}

/** `spec.replicas` and `status.readyReplicas` of a member Deployment/ReplicaSet, 0 where absent. */
export function replicaCounts(obj: KubeObject): { replicas: number; readyReplicas: number } {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
  const status = isPlainObject(obj['status']) ? obj['status'] : {};
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 0;
  const readyReplicas = typeof status['readyReplicas'] === 'number' ? status['readyReplicas'] : 0;
  return { replicas, readyReplicas };
}

/**
 * The label selector (`k=v,...`, keys sorted) for listing the pods of a member workload, from
 * `spec.selector.matchLabels` as KubeFed does; matchExpressions are ignored like in KubeFed. Throws
 * when the selector is missing, KubeFed's "missing selector on object".
 */
export function podLabelSelector(obj: KubeObject): string {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
  const selector = isPlainObject(spec['selector']) ? spec['selector'] : undefined;
  const labels = selector && isPlainObject(selector['matchLabels']) ? selector['matchLabels'] : undefined;
  if (!labels) throw new Error('missing selector on object');
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k])}`)
    .join(',');
}

/** One cluster's `current` and `capacity` for the planner, as KubeFed's clustersReplicaState computes them. */
export function clusterState(input: ClusterStateInput): ClusterState {
  if (!needsPodAnalysis(input.replicas, input.readyReplicas))
    return { current: input.readyReplicas, needsRecheck: false };
  if (!input.pods) throw new Error('pods are needed when replicas differ from readyReplicas');
  const pods = analysePods(input.pods, input.now);
  const state: ClusterState = { current: pods.runningAndReady, needsRecheck: pods.recentUnschedulable > 0 };
  if (pods.unschedulable > 0) state.capacity = input.replicas - pods.unschedulable;
  return state;
}
