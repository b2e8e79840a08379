// What a ManifestWorkReplicaSet wants done, as OCM's controller decides it
// (ocm pkg/work/hub/controllers/manifestworkreplicasetcontroller: manifestworkreplicaset_deploy_reconcile.go
// and manifestworkreplicaset_status_reconcile.go): which ManifestWorks to create or update, which to delete,
// and the status. Pure: the controller lists, writes and requeues.

import { isDeepStrictEqual } from 'node:util';
import {
  DECISION_GROUP_INDEX_LABEL,
  DECISION_GROUP_NAME_LABEL,
  type Placement,
  type PlacementDecision,
} from '../../../api/ocm/cluster/v1beta1/index.ts';
import {
  type ManifestWork,
  MW_KIND,
  API_VERSION as WORK_API_VERSION,
  WorkCondition,
} from '../../../api/ocm/work/v1/index.ts';
import {
  type ManifestWorkReplicaSet,
  type ManifestWorkReplicaSetSummary,
  MWRS_LABEL,
  MWRS_PLACEMENT_LABEL,
  MwrsCondition,
  MwrsReason,
} from '../../../api/ocm/work/v1alpha1/index.ts';
import { type ClusterGroup, type ClusterRolloutStatus, rolloutClusters } from './rollout.ts';

type MetaCondition = NonNullable<NonNullable<ManifestWorkReplicaSet['status']>['conditions']>[number];
type Status = NonNullable<ManifestWorkReplicaSet['status']>;
type PlacementSummary = NonNullable<Status['placementSummary']>[number];

/** `<namespace>.<name>`: the value of the manifestworkreplicaset label on its works. */
export function mwrsKey(mwrs: ManifestWorkReplicaSet): string {
  return `${mwrs.metadata.namespace ?? ''}.${mwrs.metadata.name ?? ''}`;
}

/** The queue key (`namespace/name`) of the MWRS a work's label names, if any. */
export function ownerKeyOfWork(work: { metadata: { labels?: Record<string, string> } }): string | undefined {
  const value = work.metadata.labels?.[MWRS_LABEL];
  const parts = value?.split('.');
  return parts?.length === 2 ? `${parts[0]}/${parts[1]}` : undefined;
}

function condition(works: ManifestWork, type: string) {
  return works.status?.conditions?.find((c) => c.type === type);
}

function ltt(c: { lastTransitionTime?: string } | undefined): number | undefined {
  const t = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
}

/** clusterRolloutStatusFunc: the rollout status of a cluster from its work's conditions. */
export function workRolloutStatus(clusterName: string, work: ManifestWork): ClusterRolloutStatus {
  const generation = work.metadata.generation;
  const progressing = condition(work, WorkCondition.Progressing);
  const degraded = condition(work, WorkCondition.Degraded);
  const applied = condition(work, WorkCondition.Applied);
  const available = condition(work, WorkCondition.Available);
  const observed = (c: typeof applied) => c !== undefined && c.observedGeneration === generation;
  const at = (status: ClusterRolloutStatus['status'], c: typeof applied): ClusterRolloutStatus => {
    const t = ltt(c);
    return t === undefined ? { clusterName, status } : { clusterName, status, lastTransitionTime: t };
  };
  // shouldReturnToApply: Applied must be True at this generation, Progressing or Available observed, and a
  // Degraded condition, if any, must have caught up.
  if (!observed(applied) || applied?.status !== 'True') return { clusterName, status: 'ToApply' };
  if (!observed(progressing) && !observed(available)) return { clusterName, status: 'ToApply' };
  if (degraded && degraded.observedGeneration !== generation) return { clusterName, status: 'ToApply' };
  if (!observed(progressing)) {
    // No Progressing condition (no condition rules): Available decides.
    if (degraded?.status === 'True') return at('Failed', degraded);
    if (available?.status === 'True') return at('Succeeded', available);
    if (available) return at('Progressing', available);
    return { clusterName, status: 'Progressing' };
  }
  if (progressing?.status === 'True' && degraded?.status === 'True') return at('Failed', degraded);
  if (progressing?.status === 'False') return at('Succeeded', progressing);
  return at('Progressing', progressing);
}

/**
 * The decided clusters by decision group, from the PlacementDecisions' labels. A decision without a group
 * index label (hand-written) is group 0, where OCM's tracker reports an error.
 */
export function decisionGroups(decisions: readonly PlacementDecision[]): ClusterGroup[] {
  const groups = new Map<string, ClusterGroup>();
  for (const d of decisions) {
    const index = Number.parseInt(d.metadata.labels?.[DECISION_GROUP_INDEX_LABEL] ?? '0', 10);
    const groupIndex = Number.isNaN(index) ? 0 : index;
    const groupName = d.metadata.labels?.[DECISION_GROUP_NAME_LABEL] ?? '';
    const id = `${groupIndex}/${groupName}`;
    let g = groups.get(id);
    if (!g) {
      g = { key: { groupName, groupIndex }, clusters: [] };
      groups.set(id, g);
    }
    for (const c of d.status?.decisions ?? [])
      if (c.clusterName && !g.clusters.includes(c.clusterName)) g.clusters.push(c.clusterName);
  }
  return [...groups.values()];
}

/** buildManifestWork: the template in the cluster's namespace, named after the MWRS, with its labels. */
export function buildManifestWork(
  mwrs: ManifestWorkReplicaSet,
  cluster: string,
  placement: string,
): ManifestWork {
  return {
    apiVersion: WORK_API_VERSION,
    kind: MW_KIND,
    metadata: {
      name: mwrs.metadata.name ?? '',
      namespace: cluster,
      labels: {
        ...(mwrs.metadata.labels ?? {}),
        [MWRS_LABEL]: mwrsKey(mwrs),
        [MWRS_PLACEMENT_LABEL]: placement,
      },
    },
    spec: mwrs.spec.manifestWorkTemplate,
  };
}

/** The work already is what the MWRS wants: the template as its spec, the MWRS's labels on it. */
export function workUpToDate(work: ManifestWork, desired: ManifestWork): boolean {
  if (!isDeepStrictEqual(work.spec, desired.spec)) return false;
  const labels = work.metadata.labels ?? {};
  return Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => labels[k] === v);
}

export interface DeployInput {
  mwrs: ManifestWorkReplicaSet;
  /** Every work labelled as this MWRS's, in any namespace. */
  works: readonly ManifestWork[];
  placement(name: string): Placement | undefined;
  /** The PlacementDecisions labelled with the placement, in the MWRS's namespace. */
  decisions(placement: string): readonly PlacementDecision[];
  now: number;
}

/** One placementRef's share of the plan, counted once the writes are known (deployStatus). */
export interface PlacementProgress {
  name: string;
  /** Clusters whose work is already built from the current template (and stays). */
  existing: string[];
  /** Clusters whose work this pass creates or updates. */
  applying: string[];
  succeeded: number;
  selected: number;
  decisionGroups: number;
}

export interface DeployPlan {
  /** Works to create, or to update over the live one of the same namespace/name. */
  apply: ManifestWork[];
  delete: ManifestWork[];
  placements: PlacementProgress[];
  /** The conditions so far: PlacementDecisionNotFound when `stop`. */
  conditions: MetaCondition[];
  /** A Placement is missing: nothing else is reported this pass (OCM's reconcileStop). */
  stop: boolean;
  /** When the rollout must be looked at again (a soak time or deadline pending). */
  requeueAfterMs?: number;
  /** Strategy errors: reported as PlacementVerified NotAsExpected, and retried. */
  errors: string[];
}

function setCondition(
  conditions: MetaCondition[],
  type: string,
  reason: string,
  trueReason: string,
  now: string,
  message = '',
): MetaCondition[] {
  const c = { type, status: reason === trueReason ? 'True' : 'False', reason, message };
  const prev = conditions.find((x) => x.type === type);
  const stamped: MetaCondition = {
    ...c,
    lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now,
  };
  return prev ? conditions.map((x) => (x === prev ? stamped : x)) : [...conditions, stamped];
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The deploy reconcile's decisions: the works to write and delete, per placementRef. */
export function planDeploy(input: DeployInput): DeployPlan {
  const { mwrs, now } = input;
  const apply: ManifestWork[] = [];
  const deletes: ManifestWork[] = [];
  const errors: string[] = [];
  const refs = mwrs.spec.placementRefs ?? [];
  const current = new Set(refs.map((r) => r.name));
  for (const w of input.works) {
    const p = w.metadata.labels?.[MWRS_PLACEMENT_LABEL];
    if (!p || !current.has(p)) deletes.push(w);
  }
  const placements: PlacementProgress[] = [];
  let requeueAfterMs: number | undefined;
  // A cluster decided by two placementRefs gets one work (one name per namespace): the first ref's.
  const claimed = new Set<string>();
  for (const ref of refs) {
    const placement = input.placement(ref.name);
    if (!placement) {
      const conditions = setCondition(
        [...(mwrs.status?.conditions ?? [])],
        MwrsCondition.PlacementVerified,
        MwrsReason.PlacementDecisionNotFound,
        MwrsReason.AsExpected,
        timestamp(now),
      );
      return { apply: [], delete: deletes, placements: [], conditions, stop: true, errors };
    }
    const works = input.works.filter((w) => w.metadata.labels?.[MWRS_PLACEMENT_LABEL] === ref.name);
    const groups = decisionGroups(input.decisions(ref.name))
      .map((g) => ({ ...g, clusters: g.clusters.filter((c) => !claimed.has(c)) }))
      .filter((g) => g.clusters.length > 0);
    const decided = new Set(groups.flatMap((g) => g.clusters));
    const existing = new Set<string>();
    const applying: string[] = [];
    const statuses: ClusterRolloutStatus[] = [];
    let succeeded = 0;
    for (const w of works) {
      const cluster = w.metadata.namespace ?? '';
      if (!workUpToDate(w, buildManifestWork(mwrs, cluster, ref.name))) continue;
      existing.add(cluster);
      const s = workRolloutStatus(cluster, w);
      statuses.push(s);
      if (s.status === 'Succeeded') succeeded++;
    }
    try {
      const r = rolloutClusters(ref.rolloutStrategy, groups, statuses, now);
      if (
        r.recheckAfterMs !== undefined &&
        (requeueAfterMs === undefined || r.recheckAfterMs < requeueAfterMs)
      )
        requeueAfterMs = r.recheckAfterMs;
      for (const s of r.clustersToRollout) {
        if (s.status !== 'ToApply') continue;
        apply.push(buildManifestWork(mwrs, s.clusterName, ref.name));
        if (!existing.has(s.clusterName)) applying.push(s.clusterName);
      }
    } catch (e) {
      errors.push((e as Error).message);
      continue;
    }
    // A cluster no longer decided loses its work, whatever its spec.
    for (const w of works) {
      const cluster = w.metadata.namespace ?? '';
      if (decided.has(cluster)) continue;
      if (!deletes.includes(w)) deletes.push(w);
      existing.delete(cluster);
    }
    for (const c of decided) claimed.add(c);
    placements.push({
      name: ref.name,
      existing: [...existing],
      applying,
      succeeded,
      selected: placement.status?.numberOfSelectedClusters ?? 0,
      decisionGroups: placement.status?.decisionGroups?.length ?? 0,
    });
  }
  const plan: DeployPlan = {
    apply,
    delete: deletes,
    placements,
    conditions: [...(mwrs.status?.conditions ?? [])],
    stop: false,
    errors,
  };
  if (requeueAfterMs !== undefined) plan.requeueAfterMs = requeueAfterMs;
  return plan;
}

/**
 * The deploy reconcile's status once the writes are done: `failed` maps the namespace of each work whose
 * create or update failed to the error, which PlacementVerified NotAsExpected reports (with any strategy
 * error) and the counts leave out. Otherwise PlacementDecisionEmpty without works, AsExpected with some;
 * PlacementRolledOut Complete once as many works succeeded as the Placements selected clusters.
 */
export function deployStatus(
  mwrs: ManifestWorkReplicaSet,
  plan: DeployPlan,
  failed: ReadonlyMap<string, string>,
  now: number,
): Status {
  const stamp = timestamp(now);
  let conditions = plan.conditions;
  if (plan.stop) return { ...mwrs.status, conditions };
  const summaries: PlacementSummary[] = [];
  let count = 0;
  let total = 0;
  let succeeded = 0;
  for (const p of plan.placements) {
    const works = p.existing.length + p.applying.filter((c) => !failed.has(c)).length;
    summaries.push({
      name: p.name,
      availableDecisionGroups: `${p.decisionGroups} (${works} / ${p.selected} clusters applied)`,
      summary: { total: works },
    });
    count += works;
    total += p.selected;
    succeeded += p.succeeded;
  }
  const summary: ManifestWorkReplicaSetSummary = { ...(mwrs.status?.summary ?? {}), total: count };
  if (count === 0) Object.assign(summary, { applied: 0, available: 0, degraded: 0, progressing: 0 });
  const errors = [...plan.errors, ...failed.values()];
  const verified =
    errors.length > 0
      ? MwrsReason.NotAsExpected
      : count === 0
        ? MwrsReason.PlacementDecisionEmpty
        : MwrsReason.AsExpected;
  conditions = setCondition(
    conditions,
    MwrsCondition.PlacementVerified,
    verified,
    MwrsReason.AsExpected,
    stamp,
    errors.join('; '),
  );
  conditions = setCondition(
    conditions,
    MwrsCondition.PlacementRolledOut,
    total === succeeded ? MwrsReason.Complete : MwrsReason.Progressing,
    MwrsReason.Complete,
    stamp,
  );
  return { ...mwrs.status, conditions, summary, placementSummary: summaries };
}

/** The status reconcile: the applied/available/degraded/progressing counts and ManifestworkApplied. */
export function summarizeWorks(status: Status, works: readonly ManifestWork[], now: number): Status {
  const stamp = timestamp(now);
  let conditions = [...(status.conditions ?? [])];
  const summary = { ...(status.summary ?? {}) };
  if (!summary.total) {
    const verified = conditions.find((c) => c.type === MwrsCondition.PlacementVerified);
    const reason =
      verified?.reason === MwrsReason.PlacementDecisionEmpty
        ? MwrsReason.PlacementDecisionEmpty
        : MwrsReason.NotAsExpected;
    conditions = setCondition(
      conditions,
      MwrsCondition.ManifestworkApplied,
      reason,
      MwrsReason.AsExpected,
      stamp,
    );
    return { ...status, conditions };
  }
  const isTrue = (w: ManifestWork, type: string) => condition(w, type)?.status === 'True';
  const live = works.filter((w) => !w.metadata.deletionTimestamp);
  summary.applied = live.filter((w) => isTrue(w, WorkCondition.Applied)).length;
  summary.progressing = live.filter((w) => isTrue(w, WorkCondition.Progressing)).length;
  summary.available = live.filter((w) => isTrue(w, WorkCondition.Available)).length;
  summary.degraded = live.filter((w) => isTrue(w, WorkCondition.Degraded)).length;
  let reason: string = MwrsReason.NotAsExpected;
  if (summary.available === summary.total && summary.progressing === 0 && summary.degraded === 0)
    reason = MwrsReason.AsExpected;
  else if (summary.progressing > 0 && summary.degraded === 0) reason = MwrsReason.Processing;
  conditions = setCondition(
    conditions,
    MwrsCondition.ManifestworkApplied,
    reason,
    MwrsReason.AsExpected,
    stamp,
  );
  return { ...status, conditions, summary };
}
