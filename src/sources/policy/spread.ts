// Spread constraints (karmada pkg/scheduler/core/spreadconstraint: group_clusters.go, select_clusters.go,
// and the SpreadConstraint filter plugin): which of the feasible clusters a binding goes to when the
// placement asks for its copies to span several clusters, regions, zones, providers or label values.
// Pure. Clusters are preferred the way Karmada scores them with its in-tree plugins: already scheduled
// first (ClusterLocality), then by room for the workload, then by name.

import type { Placement, SpreadConstraint } from '../../api/policy/v1alpha1/index.ts';
import type { PolicyCluster } from './cluster-affinity.ts';

export interface SpreadCandidate {
  cluster: PolicyCluster;
  /** In the binding's current spec.clusters. */
  scheduled: boolean;
  /** Replicas of the workload it can hold, when capacity matters (Divided by available replicas). */
  room?: number;
}

export type SpreadSelection = { ok: true; clusters: string[] } | { ok: false; message: string };

/**
 * The webhook's SetDefaultSpreadConstraints, applied here too for policies stored without the webhook:
 * no field and no label means spreadByField cluster; minGroups 0 means 1.
 */
export function defaultSpreadConstraints(
  constraints: readonly SpreadConstraint[] | undefined,
): SpreadConstraint[] {
  return (constraints ?? []).map((c) => ({
    ...c,
    ...(!c.spreadByField && !c.spreadByLabel ? { spreadByField: 'cluster' as const } : {}),
    minGroups: c.minGroups && c.minGroups > 0 ? c.minGroups : 1,
  }));
}

/**
 * shouldIgnoreSpreadConstraint: Divided/Weighted with static weights (or no weight preference at all)
 * divides over every feasible cluster whatever the spread constraints say.
 */
export function spreadIgnored(placement: Placement | undefined): boolean {
  const s = placement?.replicaScheduling;
  if (!s || (s.replicaSchedulingType ?? 'Divided') !== 'Divided') return false;
  if ((s.replicaDivisionPreference ?? 'Weighted') !== 'Weighted') return false;
  const w = s.weightPreference;
  return !w || ((w.staticWeightList ?? []).length > 0 && !w.dynamicWeight);
}

/** The SpreadConstraint filter: a cluster without the spread property is no candidate. */
export function missingSpreadProperty(
  constraints: readonly SpreadConstraint[],
  cluster: PolicyCluster,
): string | undefined {
  for (const c of constraints) {
    if (c.spreadByField === 'provider' && !cluster.provider)
      return 'cluster(s) did not have provider property';
    if (c.spreadByField === 'region' && !cluster.region) return 'cluster(s) did not have region property';
    if (c.spreadByField === 'zone' && cluster.zones.length === 0)
      return 'cluster(s) did not have zones property';
    if (c.spreadByLabel && cluster.labels[c.spreadByLabel] === undefined)
      return `cluster(s) did not have label ${c.spreadByLabel}`;
  }
  return undefined;
}

/** The one grouping level above clusters: region, then zone, provider, label (Karmada prefers region). */
function groupConstraint(constraints: readonly SpreadConstraint[]): SpreadConstraint | undefined {
  for (const field of ['region', 'zone', 'provider'] as const) {
    const c = constraints.find((x) => x.spreadByField === field);
    if (c) return c;
  }
  return constraints.find((x) => x.spreadByLabel);
}

function groupName(c: SpreadConstraint): string {
  return c.spreadByLabel ? `label ${c.spreadByLabel}` : (c.spreadByField ?? 'cluster');
}

function groupValue(c: SpreadConstraint, cluster: PolicyCluster): string {
  if (c.spreadByLabel) return cluster.labels[c.spreadByLabel] ?? '';
  if (c.spreadByField === 'region') return cluster.region ?? '';
  if (c.spreadByField === 'provider') return cluster.provider ?? '';
  return [...cluster.zones].sort()[0] ?? '';
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function preferred(a: SpreadCandidate, b: SpreadCandidate): number {
  return (
    Number(b.scheduled) - Number(a.scheduled) ||
    (b.room ?? 0) - (a.room ?? 0) ||
    byName(a.cluster.name, b.cluster.name)
  );
}

const roomOf = (cs: readonly SpreadCandidate[]) => cs.reduce((sum, c) => sum + (c.room ?? 0), 0);

/**
 * Selects the clusters the spread constraints allow (SelectBestClusters). Groups (regions, zones, ...)
 * are taken best first: at least minGroups of them, more while the selection lacks room for
 * `needReplicas` or clusters for the cluster constraint's minGroups, never more than maxGroups. Of the
 * chosen groups, the best cluster of each comes first, then the best of the rest, up to the cluster
 * constraint's maxGroups (all of them without a cluster constraint). `needReplicas` is undefined when
 * capacity does not matter (Duplicated, Karmada's shouldIgnoreAvailableResource).
 */
export function selectBySpread(
  constraints: readonly SpreadConstraint[],
  candidates: readonly SpreadCandidate[],
  needReplicas: number | undefined,
): SpreadSelection {
  const order = [...candidates].sort(preferred);
  const clusterC = constraints.find((c) => c.spreadByField === 'cluster');
  const clusterMin = clusterC?.minGroups ?? 1;
  const clusterMax =
    clusterC?.maxGroups && clusterC.maxGroups > 0 ? clusterC.maxGroups : Number.POSITIVE_INFINITY;
  const groupC = groupConstraint(constraints);

  if (clusterMax < clusterMin)
    // The webhook refuses this; a policy stored without it must not silently get fewer clusters.
    return { ok: false, message: 'the cluster spreadConstraint.MaxGroups is less than its MinGroups' };
  if (!groupC) {
    if (order.length < clusterMin)
      return {
        ok: false,
        message: 'the number of feasible clusters is less than spreadConstraint.MinGroups',
      };
    const n = Math.min(clusterMax, order.length);
    let chosen = order.slice(0, n);
    if (needReplicas !== undefined && roomOf(chosen) < needReplicas) {
      // selectClustersByAvailableResource: trade preference for room when the preferred ones lack it.
      chosen = [...order].sort((a, b) => (b.room ?? 0) - (a.room ?? 0) || preferred(a, b)).slice(0, n);
      if (roomOf(chosen) < needReplicas)
        return { ok: false, message: `no enough resource when selecting ${n} clusters` };
    }
    if (chosen.length < clusterMin)
      return {
        ok: false,
        message: 'the number of clusters is less than the cluster spreadConstraint.MinGroups',
      };
    return { ok: true, clusters: chosen.map((c) => c.cluster.name).sort(byName) };
  }

  const groups = new Map<string, SpreadCandidate[]>();
  for (const c of order) {
    const v = groupValue(groupC, c.cluster);
    const g = groups.get(v);
    if (g) g.push(c);
    else groups.set(v, [c]);
  }
  const name = groupName(groupC);
  const groupMin = groupC.minGroups ?? 1;
  const groupMax = Math.min(
    groupC.maxGroups && groupC.maxGroups > 0 ? groupC.maxGroups : Number.POSITIVE_INFINITY,
    clusterMax,
  );
  if (groups.size < groupMin)
    return { ok: false, message: `the number of feasible ${name} is less than spreadConstraint.MinGroups` };
  if (groupMax < groupMin)
    return {
      ok: false,
      message: `the cluster spreadConstraint.MaxGroups is less than the ${name} spreadConstraint.MinGroups`,
    };
  const ranked = [...groups.entries()].sort(
    ([va, a], [vb, b]) =>
      b.filter((c) => c.scheduled).length - a.filter((c) => c.scheduled).length ||
      roomOf(b) - roomOf(a) ||
      byName(va, vb),
  );
  let k = groupMin;
  const members = (n: number) => ranked.slice(0, n).flatMap(([, g]) => g);
  const lacking = (n: number) =>
    members(n).length < clusterMin || (needReplicas !== undefined && roomOf(members(n)) < needReplicas);
  while (lacking(k) && k < Math.min(groupMax, ranked.length)) k++;
  const chosenGroups = ranked.slice(0, k).map(([, g]) => g);
  const heads = chosenGroups.map((g) => g[0]).filter((c): c is SpreadCandidate => c !== undefined);
  const rest = chosenGroups.flatMap((g) => g.slice(1)).sort(preferred);
  const chosen = [...heads, ...rest].slice(0, Math.max(heads.length, clusterMax));
  if (chosen.length < clusterMin)
    return {
      ok: false,
      message: 'the number of clusters is less than the cluster spreadConstraint.MinGroups',
    };
  if (needReplicas !== undefined && roomOf(chosen) < needReplicas)
    return { ok: false, message: `no enough resource when selecting ${k} ${name} groups` };
  return { ok: true, clusters: chosen.map((c) => c.cluster.name).sort(byName) };
}

/** What a division must keep for the spread constraints to hold (spreadFloor). */
export type SpreadFloor = { ok: true; seeds: string[] } | { ok: false; message: string };

/**
 * The clusters of a spread selection that must each keep at least one replica so that the division
 * cannot undo the selection: the best cluster of each chosen group, then the best of the rest until the
 * cluster constraint's minGroups, never more than `replicas`. Fails when `replicas` are too few to meet
 * the minGroups at all (one replica per cluster or group at least).
 */
export function spreadFloor(
  constraints: readonly SpreadConstraint[],
  selected: readonly SpreadCandidate[],
  replicas: number,
): SpreadFloor {
  const order = [...selected].sort(preferred);
  const clusterMin = constraints.find((c) => c.spreadByField === 'cluster')?.minGroups ?? 1;
  const groupC = groupConstraint(constraints);
  const groupMin = groupC?.minGroups ?? 1;
  const need = Math.max(clusterMin, groupC ? groupMin : 1);
  if (replicas < need)
    return {
      ok: false,
      message: `${replicas} replica(s) cannot meet the spread constraints: they need at least ${need} (one per ${
        groupC && groupMin >= clusterMin ? groupName(groupC) : 'cluster'
      })`,
    };
  const heads: SpreadCandidate[] = [];
  if (groupC) {
    const seen = new Set<string>();
    for (const c of order) {
      const v = groupValue(groupC, c.cluster);
      if (seen.has(v)) continue;
      seen.add(v);
      heads.push(c);
    }
  }
  const seeds = heads.slice(0, replicas);
  for (const c of order) {
    if (seeds.length >= Math.min(clusterMin, replicas)) break;
    if (!seeds.includes(c)) seeds.push(c);
  }
  return { ok: true, seeds: seeds.map((c) => c.cluster.name).sort(byName) };
}

/**
 * Whether the clusters a division gave replicas meet the spread constraints' minGroups (the division
 * only drops clusters, so the maxGroups still hold): the reason when they do not.
 */
export function spreadShortfall(
  constraints: readonly SpreadConstraint[],
  clusters: readonly PolicyCluster[],
): string | undefined {
  const clusterMin = constraints.find((c) => c.spreadByField === 'cluster')?.minGroups ?? 1;
  if (clusters.length < clusterMin)
    return `the replicas went to ${clusters.length} cluster(s), fewer than the cluster spreadConstraint.MinGroups ${clusterMin}`;
  const groupC = groupConstraint(constraints);
  if (!groupC) return undefined;
  const groups = new Set(clusters.map((c) => groupValue(groupC, c))).size;
  const groupMin = groupC.minGroups ?? 1;
  if (groups < groupMin)
    return `the replicas went to ${groups} ${groupName(groupC)} group(s), fewer than the ${groupName(groupC)} spreadConstraint.MinGroups ${groupMin}`;
  return undefined;
}
