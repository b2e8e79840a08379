// Where a binding goes and how many replicas each cluster gets: Karmada's scheduler for one binding
// (karmada pkg/scheduler/scheduler.go scheduleResourceBindingWithClusterAffinities, core/generic_scheduler.go
// findClustersThatFit, core/common.go AssignReplicas, core/assignment.go, division_algorithm.go). Pure:
// the caller turns KubeFedClusters into PolicyClusters and writes the result to spec.clusters.
// A pipeline: filter (affinity, taints, eviction, spread properties) → spread selection (spread.ts) →
// replica assignment (static weights by Webster, room-based division by KubeFed's planner: division.ts).

import type { Taint } from '../../api/core/v1beta1/kubefedcluster.ts';
import type {
  ClusterAffinity,
  Placement,
  ReplicaSchedulingStrategy,
  SpreadConstraint,
} from '../../api/policy/v1alpha1/index.ts';
import type { TargetCluster } from '../../api/work/v1alpha2/resourcebinding.ts';
import { LabelSelectorError } from '../../propagation/label-selector.ts';
import { affinityMatches, type PolicyCluster } from './cluster-affinity.ts';
import { aggregateByRoom, type Division, divideByRoom, type RoomCandidate } from './division.ts';
import {
  defaultSpreadConstraints,
  missingSpreadProperty,
  type SpreadCandidate,
  selectBySpread,
  spreadFloor,
  spreadIgnored,
  spreadShortfall,
} from './spread.ts';
import { findUntoleratedTaint, taintString, withDefaultTolerations } from './taints.ts';
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
  /**
   * The placement differs from the one the previous result was made for (Karmada's
   * policy.karmada.io/applied-placement annotation): divide again. Unchanged, a divided binding keeps its
   * result while its replicas are unchanged and its clusters still fit, whatever else joins the fleet
   * (Karmada's scheduler reschedules a divided binding only when its placement or replicas change, it is
   * rescheduled on purpose, or a cluster of it fails): a returning cluster gets nothing back unasked.
   */
  placementChanged?: boolean;
}

/** The annotation the scheduler records the placement of its last result in (karmada pkg/util). */
export const APPLIED_PLACEMENT_ANNOTATION = 'policy.karmada.io/applied-placement';

/** The placement as the applied-placement annotation holds it. */
export function placementString(placement: Placement | undefined): string {
  return JSON.stringify(placement ?? {});
}

export type ScheduleResult =
  | { ok: true; clusters: TargetCluster[]; affinityName?: string }
  | { ok: false; reason: 'NoClusterFit' | 'SchedulerError' | 'Unschedulable'; message: string };

/** What the scheduler made of one cluster, for `kubefedctl plan` and tests. */
export interface ClusterVerdict {
  cluster: string;
  /** Passed the filters and the spread selection. */
  candidate: boolean;
  /** Why it is no candidate, or why it got what it got. */
  reason?: string;
  /** Its static weight, or its room (available + previous) when divided by available replicas. */
  weight?: number;
  /** input.available for it. */
  available?: number;
  /** Replicas it has in the current spec.clusters. */
  previous?: number;
  /** Replicas it gets (0 when it gets none, or for a non-workload). */
  replicas: number;
}

type Failure = Extract<ScheduleResult, { ok: false }>;
/** capacityUnknown: the term failed only for want of capacity figures, which may yet come. */
type Explained = { result: ScheduleResult; clusters: ClusterVerdict[]; capacityUnknown?: boolean };

/** The taint Karmada's cluster controller puts on a cluster whose Ready condition is not True. */
const NOT_READY_TAINT: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' };
const HEALTH_TAINT_KEYS = ['cluster.karmada.io/not-ready', 'cluster.karmada.io/unreachable'];

// Filter plugin reasons, worded like Karmada's (clusteraffinity, tainttoleration, clustereviction).
const AFFINITY_MISMATCH = 'cluster(s) did not match the placement cluster affinity constraint';
const EVICTING = 'cluster(s) is in the process of eviction';
const CAPACITY_UNKNOWN = 'capacity for the workload is not known yet';

/**
 * Schedules one binding. Candidates are the clusters the filters keep; with clusterAffinities the terms
 * are tried in order, starting at the previously observed one (Karmada keeps a binding on its term and
 * falls over to the next only when that one fails), and the first term that schedules wins; if none
 * does, the first failure is reported. A term that fails only because some clusters' capacity is not
 * known yet stops the walk: that is no reason to move the binding to a later term for good.
 * Results are sorted by name.
 */
export function scheduleBinding(input: ScheduleInput): ScheduleResult {
  return explainSchedule(input).result;
}

/** scheduleBinding with what it made of every cluster (of the winning term, else the first failing one). */
export function explainSchedule(input: ScheduleInput): {
  result: ScheduleResult;
  clusters: ClusterVerdict[];
} {
  if (input.clusters.length === 0)
    return { result: failure('SchedulerError', 'no clusters available to schedule'), clusters: [] };
  const terms = input.placement?.clusterAffinities;
  if (!terms || terms.length === 0) return scheduleWith(input, input.placement?.clusterAffinity);
  const start = Math.max(
    0,
    terms.findIndex((t) => t.affinityName === input.previousAffinityName),
  );
  let first: Explained | undefined;
  for (const term of terms.slice(start)) {
    const explained = scheduleWith(input, term);
    if (explained.result.ok)
      return { ...explained, result: { ...explained.result, affinityName: term.affinityName } };
    if (explained.capacityUnknown) return explained;
    first ??= explained;
  }
  return (
    first ?? { result: failure('SchedulerError', 'no cluster affinity term to schedule with'), clusters: [] }
  );
}

/** spec.rescheduleTriggeredAt later than status.lastScheduledTime: Karmada's Fresh mode. */
export function rescheduleRequested(b: {
  spec: { rescheduleTriggeredAt?: string };
  status?: { lastScheduledTime?: string };
}): boolean {
  const trigger = b.spec.rescheduleTriggeredAt;
  if (!trigger) return false;
  const last = b.status?.lastScheduledTime;
  return !last || Date.parse(trigger) > Date.parse(last);
}

/** Whether the binding is divided by the clusters' room, so that scheduling needs `available`. */
export function needsAvailableReplicas(placement: Placement | undefined, replicas: number): boolean {
  const s = placement?.replicaScheduling;
  if (replicas <= 0 || !s || (s.replicaSchedulingType ?? 'Divided') !== 'Divided') return false;
  return (
    (s.replicaDivisionPreference ?? 'Weighted') === 'Aggregated' ||
    s.weightPreference?.dynamicWeight === 'AvailableReplicas'
  );
}

function failure(reason: Failure['reason'], message: string): Failure {
  return { ok: false, reason, message };
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The taints the filter sees: spec.taints, plus not-ready NoSchedule for a cluster that is not ready and
 * does not carry Karmada's not-ready or unreachable NoSchedule taint (the cluster controller's) yet.
 */
function effectiveTaints(cluster: PolicyCluster): readonly Taint[] {
  const taints = cluster.taints ?? [];
  if (cluster.ready || taints.some((t) => t.effect === 'NoSchedule' && HEALTH_TAINT_KEYS.includes(t.key)))
    return taints;
  return [...taints, NOT_READY_TAINT];
}

function scheduleWith(input: ScheduleInput, affinity: ClusterAffinity | undefined): Explained {
  const previous = new Map((input.previous ?? []).map((t) => [t.name, t.replicas ?? 0]));
  const evicting = new Set(input.evicting ?? []);
  const tolerations = withDefaultTolerations(input.placement?.clusterTolerations);
  const capacity = needsAvailableReplicas(input.placement, input.replicas);
  // The SpreadConstraint filter reads the placement's constraints even when the selection ignores them.
  const filterSpread = defaultSpreadConstraints(input.placement?.spreadConstraints);
  const spread = spreadIgnored(input.placement) ? [] : filterSpread;
  const reasons = new Map<string, number>();
  const verdicts = new Map<string, ClusterVerdict>();
  const candidates: PolicyCluster[] = [];
  const unknown: string[] = [];
  for (const cluster of [...input.clusters].sort(byName)) {
    const verdict: ClusterVerdict = { cluster: cluster.name, candidate: false, replicas: 0 };
    const available = input.available?.get(cluster.name);
    if (available !== undefined) verdict.available = available;
    if (previous.has(cluster.name)) verdict.previous = previous.get(cluster.name) ?? 0;
    verdicts.set(cluster.name, verdict);
    const scheduled = previous.has(cluster.name);
    // TaintToleration skips clusters already scheduled: evicting them for an untolerated NoExecute taint
    // is the taint manager's job (a graceful eviction task, then ClusterEviction below).
    const taint = scheduled
      ? undefined
      : findUntoleratedTaint(
          effectiveTaints(cluster),
          tolerations,
          (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute',
        );
    const reason = !matches(affinity, cluster)
      ? AFFINITY_MISMATCH
      : taint
        ? `cluster(s) had untolerated taint {${taintString(taint)}}`
        : evicting.has(cluster.name)
          ? EVICTING
          : missingSpreadProperty(filterSpread, cluster);
    if (reason !== undefined) {
      verdict.reason = reason;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    } else if (capacity && available === undefined && !scheduled) {
      verdict.reason = CAPACITY_UNKNOWN;
      unknown.push(cluster.name);
    } else candidates.push(cluster);
  }
  const explained = (result: ScheduleResult): Explained => ({ result, clusters: [...verdicts.values()] });
  // Rooms fall short while some candidates' capacity is unknown: that, not the shortage, is the news.
  const unknownCapacity = (): Explained => ({
    ...explained(
      failure(
        'Unschedulable',
        `the capacity of cluster(s) ${unknown.join(', ')} for the workload is not known yet`,
      ),
    ),
    capacityUnknown: true,
  });
  if (candidates.length === 0) {
    if (unknown.length > 0) return unknownCapacity();
    // framework.FitError: "0/N clusters are available: " and the sorted "<count> <reason>" histogram.
    const histogram = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort();
    return explained(
      failure('NoClusterFit', `0/${input.clusters.length} clusters are available: ${histogram.join(', ')}`),
    );
  }

  // A cluster's room: what it can still take plus what this binding has there (unknown counts as none).
  const rooms = new Map(
    candidates.map((c) => [c.name, (input.available?.get(c.name) ?? 0) + (previous.get(c.name) ?? 0)]),
  );
  let selected = candidates;
  if (spread.length > 0) {
    const spreadCandidates: SpreadCandidate[] = candidates.map((c) => ({
      cluster: c,
      scheduled: previous.has(c.name),
      ...(capacity ? { room: rooms.get(c.name) ?? 0 } : {}),
    }));
    const selection = selectBySpread(spread, spreadCandidates, capacity ? input.replicas : undefined);
    if (!selection.ok) {
      if (unknown.length > 0 && capacity && roomTotal(rooms) < input.replicas) return unknownCapacity();
      return explained(failure('Unschedulable', `failed to select clusters: ${selection.message}`));
    }
    const chosen = new Set(selection.clusters);
    for (const c of candidates)
      if (!chosen.has(c.name)) {
        const v = verdicts.get(c.name);
        if (v) v.reason = 'not selected by the spread constraints';
      }
    selected = candidates.filter((c) => chosen.has(c.name));
  }
  for (const c of selected) {
    const v = verdicts.get(c.name);
    if (v) v.candidate = true;
  }

  const result = assignReplicas(
    input,
    selected,
    capacity ? rooms : undefined,
    previous,
    verdicts,
    spread.length > 0 ? spread : undefined,
  );
  if (!result.ok && 'short' in result && result.short && unknown.length > 0) return unknownCapacity();
  if (result.ok)
    for (const t of result.clusters) {
      const v = verdicts.get(t.name);
      if (v) v.replicas = t.replicas ?? 0;
    }
  return explained(result.ok ? result : failure(result.reason, result.message));
}

const roomTotal = (rooms: ReadonlyMap<string, number>) =>
  [...rooms.values()].reduce((sum, r) => sum + Math.max(0, r), 0);

/** ClusterMatches treats an invalid label selector as no match. */
function matches(affinity: ClusterAffinity | undefined, cluster: PolicyCluster): boolean {
  try {
    return affinityMatches(affinity, cluster);
  } catch (err) {
    if (err instanceof LabelSelectorError) return false;
    throw err;
  }
}

/** An assignment's failure; `short`: the rooms together cannot hold the replicas. */
type Assignment = ScheduleResult | (Failure & { short?: boolean });

/**
 * AssignReplicas: a non-workload (replicas 0) goes to every candidate without replicas; Duplicated (also
 * when replicaScheduling is unset) gives each candidate all replicas; Divided divides them and drops
 * clusters left with none (removeZeroReplicasCluster). With spread constraints (`spread`) the division
 * by room keeps a replica on one cluster of every chosen group and on enough clusters for the cluster
 * minGroups, and a result that still falls short of a minGroups is Unschedulable, never half-satisfied.
 */
function assignReplicas(
  input: ScheduleInput,
  candidates: readonly PolicyCluster[],
  rooms: ReadonlyMap<string, number> | undefined,
  previous: ReadonlyMap<string, number>,
  verdicts: ReadonlyMap<string, ClusterVerdict>,
  spread: readonly SpreadConstraint[] | undefined,
): Assignment {
  if (input.replicas <= 0) return { ok: true, clusters: candidates.map((c) => ({ name: c.name })) };
  const strategy = input.placement?.replicaScheduling;
  if (!strategy || (strategy.replicaSchedulingType ?? 'Divided') === 'Duplicated')
    return { ok: true, clusters: candidates.map((c) => ({ name: c.name, replicas: input.replicas })) };
  if (rooms) {
    const roomCandidates: RoomCandidate[] = candidates.map((c) => {
      const room = rooms.get(c.name) ?? 0;
      const v = verdicts.get(c.name);
      if (v) v.weight = room;
      return { name: c.name, room, previous: previous.get(c.name) ?? 0 };
    });
    const opts: { fresh: boolean; key: string; seeds?: ReadonlySet<string> } = {
      fresh: input.fresh === true,
      key: input.bindingUid,
    };
    const byNames = (names: readonly string[]) => candidates.filter((c) => names.includes(c.name));
    // Steady mode with the replicas unchanged and every cluster holding some still a candidate: the
    // previous result stands (Karmada's steady division returns it as is). Rooms count on the binding's
    // pods having taken their place, which lags behind a schedule; re-dividing then would move replicas.
    const kept = steadyResult(input, candidates, spread, byNames);
    if (kept) return kept;
    if (spread) {
      const floor = spreadFloor(
        spread,
        candidates.map((c) => ({
          cluster: c,
          scheduled: previous.has(c.name),
          room: rooms.get(c.name) ?? 0,
        })),
        input.replicas,
      );
      if (!floor.ok) return failure('Unschedulable', floor.message);
      opts.seeds = new Set(floor.seeds);
    }
    // With spread constraints the selection already decided the clusters; Aggregated packs otherwise.
    const aggregated =
      (strategy.replicaDivisionPreference ?? 'Weighted') === 'Aggregated' &&
      (input.placement?.spreadConstraints ?? []).length === 0;
    const division = aggregated
      ? aggregateByRoom(input.replicas, roomCandidates, opts)
      : divideByRoom(input.replicas, roomCandidates, opts);
    if (!division.ok) return { ...failure('Unschedulable', division.message), short: true };
    const result = divisionResult(division);
    const shortfall =
      spread && result.ok ? spreadShortfall(spread, byNames(result.clusters.map((t) => t.name))) : undefined;
    if (shortfall) return failure('Unschedulable', `failed to divide the replicas: ${shortfall}`);
    return result;
  }
  return {
    ok: true,
    clusters:
      steadyResult(input, candidates, spread, (names) => candidates.filter((c) => names.includes(c.name)))
        ?.clusters ?? staticWeighted(input, candidates, strategy, verdicts),
  };
}

/**
 * The previous division, when it still stands: not a fresh schedule, the placement it was made for
 * unchanged, the replicas unchanged, and every cluster holding some still a candidate that meets the
 * spread constraints.
 */
function steadyResult(
  input: ScheduleInput,
  candidates: readonly PolicyCluster[],
  spread: readonly SpreadConstraint[] | undefined,
  byNames: (names: readonly string[]) => PolicyCluster[],
): { ok: true; clusters: TargetCluster[] } | undefined {
  if (input.fresh === true || input.placementChanged === true) return undefined;
  const held = (input.previous ?? []).filter((t) => (t.replicas ?? 0) > 0);
  if (
    held.length > 0 &&
    held.every((t) => candidates.some((c) => c.name === t.name)) &&
    held.reduce((sum, t) => sum + (t.replicas ?? 0), 0) === input.replicas &&
    (!spread || spreadShortfall(spread, byNames(held.map((t) => t.name))) === undefined)
  )
    return {
      ok: true,
      clusters: held.map((t) => ({ name: t.name, replicas: t.replicas ?? 0 })).sort(byName),
    };
  return undefined;
}

function divisionResult(division: Division): ScheduleResult {
  if (!division.ok) return failure('Unschedulable', division.message);
  const clusters = [...division.replicas].map(([name, replicas]) => ({ name, replicas })).sort(byName);
  return { ok: true, clusters };
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
  verdicts: ReadonlyMap<string, ClusterVerdict>,
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
  for (const p of parties) {
    const v = verdicts.get(p.name);
    if (v) v.weight = p.weight;
  }
  for (const c of candidates)
    if (!parties.some((p) => p.name === c.name)) {
      const v = verdicts.get(c.name);
      if (v) v.reason = 'no static weight selects it';
    }
  const seats = websterSeats(input.replicas, parties, input.bindingUid);
  return parties.flatMap((p) => {
    const replicas = seats.get(p.name) ?? 0;
    return replicas > 0 ? [{ name: p.name, replicas }] : [];
  });
}
