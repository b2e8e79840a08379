// Where a binding goes and how many replicas each cluster gets: Karmada's scheduler for one binding
// (karmada pkg/scheduler/scheduler.go scheduleResourceBindingWithClusterAffinities, core/generic_scheduler.go
// findClustersThatFit, core/common.go AssignReplicas, core/assignment.go, division_algorithm.go). Pure:
// the caller turns KubeFedClusters into PolicyClusters and writes the result to spec.clusters.
// Spread constraints (issue 15), dynamic weights and capacity estimation are not modelled yet.

import type {
  ClusterAffinity,
  Placement,
  ReplicaSchedulingStrategy,
  Toleration,
} from '../../api/policy/v1alpha1/index.ts';
import type { TargetCluster } from '../../api/work/v1alpha2/resourcebinding.ts';
import { LabelSelectorError } from '../../propagation/label-selector.ts';
import { affinityMatches, type PolicyCluster } from './cluster-affinity.ts';
import { websterSeats } from './webster.ts';

export interface ScheduleInput {
  placement: Placement | undefined;
  clusters: readonly PolicyCluster[];
  /** The template's spec.replicas; 0 means not a workload. */
  replicas: number;
  /** The binding's spec.resource.uid: keys the per-binding tie-break of the replica division. */
  bindingUid: string;
  /** The binding's current spec.clusters. */
  previous?: readonly TargetCluster[];
  /** status.schedulerObservingAffinityName: with clusterAffinities, scheduling resumes at that term. */
  previousAffinityName?: string;
  /**
   * Estimated replicas of this workload each cluster can still take (Karmada's AvailableReplicas, from the
   * member's nodes and pods: capacity.ts), not counting what this binding already has there. A cluster
   * absent from the map has unknown capacity (its node and pod caches are not loaded).
   */
  available?: ReadonlyMap<string, number>;
  /** Clusters of spec.gracefulEvictionTasks: never candidates for this binding while the task lasts. */
  evicting?: readonly string[];
  /** spec.rescheduleTriggeredAt is later than status.lastScheduledTime: divide afresh (Karmada's Fresh mode). */
  fresh?: boolean;
}

export type ScheduleResult =
  | { ok: true; clusters: TargetCluster[]; affinityName?: string }
  | { ok: false; reason: 'NoClusterFit' | 'SchedulerError' | 'Unschedulable'; message: string };

type Failure = Extract<ScheduleResult, { ok: false }>;

/** The taint Karmada's cluster controller puts on a cluster whose Ready condition is not True. */
const NOT_READY_TAINT = { key: 'cluster.karmada.io/not-ready', value: '', effect: 'NoSchedule' } as const;

// Filter plugin reasons, worded like Karmada's (clusteraffinity, tainttoleration with corev1 Taint.ToString()).
const AFFINITY_MISMATCH = 'cluster(s) did not match the placement cluster affinity constraint';
const NOT_READY = `cluster(s) had untolerated taint {${NOT_READY_TAINT.key}:${NOT_READY_TAINT.effect}}`;

/**
 * Schedules one binding. Candidates are the clusters the cluster affinity selects; with clusterAffinities
 * the terms are tried in order, starting at the previously observed one (Karmada keeps a binding on its
 * term and falls over to the next only when that one fails), and the first term that schedules wins; if
 * none does, the first failure is reported. A cluster that is not ready is no candidate for new
 * placement unless the placement tolerates Karmada's not-ready NoSchedule taint, but stays when it is
 * already scheduled (TaintToleration skips clusters in spec.clusters). Results are sorted by name.
 */
export function scheduleBinding(input: ScheduleInput): ScheduleResult {
  if (input.clusters.length === 0) return failure('SchedulerError', 'no clusters available to schedule');
  const terms = input.placement?.clusterAffinities;
  if (!terms || terms.length === 0) return scheduleWith(input, input.placement?.clusterAffinity);
  const start = Math.max(
    0,
    terms.findIndex((t) => t.affinityName === input.previousAffinityName),
  );
  let first: Failure | undefined;
  for (const term of terms.slice(start)) {
    const result = scheduleWith(input, term);
    if (result.ok) return { ...result, affinityName: term.affinityName };
    first ??= result;
  }
  return first ?? failure('SchedulerError', 'no cluster affinity term to schedule with');
}

function failure(reason: Failure['reason'], message: string): Failure {
  return { ok: false, reason, message };
}

function scheduleWith(input: ScheduleInput, affinity: ClusterAffinity | undefined): ScheduleResult {
  const scheduled = new Set((input.previous ?? []).map((t) => t.name));
  const tolerated = (input.placement?.clusterTolerations ?? []).some(toleratesNotReady);
  const reasons = new Map<string, number>();
  const candidates: PolicyCluster[] = [];
  for (const cluster of input.clusters) {
    const reason = !matches(affinity, cluster)
      ? AFFINITY_MISMATCH
      : !cluster.ready && !tolerated && !scheduled.has(cluster.name)
        ? NOT_READY
        : undefined;
    if (reason === undefined) candidates.push(cluster);
    else reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  if (candidates.length === 0) {
    // framework.FitError: "0/N clusters are available: " and the sorted "<count> <reason>" histogram.
    const histogram = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort();
    return failure(
      'NoClusterFit',
      `0/${input.clusters.length} clusters are available: ${histogram.join(', ')}`,
    );
  }
  candidates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return assignReplicas(input, candidates);
}

/** ClusterMatches treats an invalid label selector as no match. */
function matches(affinity: ClusterAffinity | undefined, cluster: PolicyCluster): boolean {
  try {
    return affinityMatches(affinity, cluster);
  } catch (err) {
    if (err instanceof LabelSelectorError) return false;
    throw err;
  }
}

/** corev1 Toleration.ToleratesTaint against the not-ready taint. */
function toleratesNotReady(t: Toleration): boolean {
  if (t.effect && t.effect !== NOT_READY_TAINT.effect) return false;
  if (t.key && t.key !== NOT_READY_TAINT.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === NOT_READY_TAINT.value;
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * AssignReplicas: a non-workload (replicas 0) goes to every candidate without replicas; Duplicated (also
 * when replicaScheduling is unset) gives each candidate all replicas; Divided divides them and drops
 * clusters left with none (removeZeroReplicasCluster).
 */
function assignReplicas(input: ScheduleInput, candidates: readonly PolicyCluster[]): ScheduleResult {
  if (input.replicas <= 0) return { ok: true, clusters: candidates.map((c) => ({ name: c.name })) };
  const strategy = input.placement?.replicaScheduling;
  if (!strategy || (strategy.replicaSchedulingType ?? 'Divided') === 'Duplicated')
    return { ok: true, clusters: candidates.map((c) => ({ name: c.name, replicas: input.replicas })) };
  // The webhook defaults an unset division preference to Weighted.
  if ((strategy.replicaDivisionPreference ?? 'Weighted') === 'Aggregated')
    return { ok: true, clusters: aggregated(input, candidates) };
  if (strategy.weightPreference?.dynamicWeight)
    return failure(
      'SchedulerError',
      `dynamicWeight ${strategy.weightPreference.dynamicWeight} is not supported yet`,
    );
  return { ok: true, clusters: staticWeighted(input, candidates, strategy) };
}

/**
 * Divided/Weighted with static weights (getStaticWeightInfoList): a cluster weighs the maximum weight of
 * the entries whose targetCluster selects it; clusters no entry selects are dropped; if none is selected
 * (or there is no list) every candidate weighs 1. Replicas are then divided by the Webster method.
 */
function staticWeighted(
  input: ScheduleInput,
  candidates: readonly PolicyCluster[],
  strategy: ReplicaSchedulingStrategy,
): TargetCluster[] {
  const list = strategy.weightPreference?.staticWeightList ?? [];
  let parties = candidates
    .map((c) => ({
      name: c.name,
      weight: list.reduce(
        (max, rule) => (matches(rule.targetCluster, c) ? Math.max(max, rule.weight) : max),
        0,
      ),
    }))
    .filter((p) => p.weight > 0);
  if (parties.length === 0) parties = candidates.map((c) => ({ name: c.name, weight: 1 }));
  const seats = websterSeats(input.replicas, parties, input.bindingUid);
  return parties.flatMap((p) => {
    const replicas = seats.get(p.name) ?? 0;
    return replicas > 0 ? [{ name: p.name, replicas }] : [];
  });
}

/**
 * Divided/Aggregated without a capacity estimator (kubefed-ts has none yet): every cluster counts as
 * having room, so Karmada's "as few clusters as possible" is one cluster. It stays the cluster already
 * holding the most replicas, else the first candidate by name.
 */
function aggregated(input: ScheduleInput, candidates: readonly PolicyCluster[]): TargetCluster[] {
  const names = new Set(candidates.map((c) => c.name));
  const held = (input.previous ?? [])
    .filter((t) => names.has(t.name) && (t.replicas ?? 0) > 0)
    .sort(
      (a, b) => (b.replicas ?? 0) - (a.replicas ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  const target = held[0]?.name ?? candidates[0]?.name;
  return target === undefined ? [] : [{ name: target, replicas: input.replicas }];
}
