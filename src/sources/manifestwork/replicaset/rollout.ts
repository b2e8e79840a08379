// OCM's rollout helper (open-cluster-management-io/sdk-go pkg/apis/cluster/v1alpha1/rollout.go,
// RolloutHandler.GetRolloutCluster), as a pure function of the decided cluster groups, each cluster's
// rollout status and the time: which clusters to roll out to now, which timed out, which were removed.

import type { RolloutStrategy } from '../../../api/ocm/work/v1alpha1/index.ts';

export type RolloutStatus = 'ToApply' | 'Progressing' | 'Succeeded' | 'Failed' | 'TimeOut' | 'Skip';

export interface GroupKey {
  groupName: string;
  groupIndex: number;
}

export interface ClusterRolloutStatus {
  clusterName: string;
  groupKey?: GroupKey;
  status: RolloutStatus;
  /** ms since the epoch: drives the progress deadline and the soak time. */
  lastTransitionTime?: number;
  /** ms since the epoch: when the soak time ends or the deadline passes. */
  recheckTime?: number;
}

/** The decided clusters of one placement by decision group (from the PlacementDecisions' labels). */
export interface ClusterGroup {
  key: GroupKey;
  clusters: string[];
}

export interface RolloutResult {
  clustersToRollout: ClusterRolloutStatus[];
  clustersTimeOut: ClusterRolloutStatus[];
  clustersRemoved: ClusterRolloutStatus[];
  maxFailureBreach: boolean;
  /** ms until the rollout should be looked at again, when a soak time or deadline is pending. */
  recheckAfterMs?: number;
}

const NO_TIMEOUT = Number.POSITIVE_INFINITY;

/** parseTimeout: "None" or empty is no deadline; otherwise `<n>h|m|s` (Go durations such as 1h30m too). */
export function parseDurationMs(value: string | undefined, what: string): number {
  if (value === undefined || value === '' || value === 'None') return NO_TIMEOUT;
  if (!/^(([0-9])+[h|m|s])|None$/.test(value)) throw new Error(`invalid ${what} format`);
  return goDurationMs(value, what);
}

/** A Go time.Duration string ("0", "90s", "1h30m", "500ms") in ms. */
export function goDurationMs(value: string, what: string): number {
  if (value === '0') return 0;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, ns: 0.000001 };
  const re = /(\d+(?:\.\d+)?)(ms|us|ns|h|m|s)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
    end = re.lastIndex;
  }
  if (end !== value.length || value.length === 0) throw new Error(`invalid ${what} ${JSON.stringify(value)}`);
  return total;
}

/** calculateRolloutSize: a count or a percentage (rounded up) of `total`; out of (0, total] gives the default. */
export function rolloutSize(value: string | number | undefined, total: number, fallback: number): number {
  if (value === undefined) return fallback;
  let length: number;
  if (typeof value === 'number') length = value;
  else {
    if (!value.endsWith('%') || Number.isNaN(Number.parseFloat(value.slice(0, -1))))
      throw new Error(`'${value}' is an invalid maximum threshold value: string is not a percentage`);
    length = Math.ceil((Number.parseFloat(value.slice(0, -1)) / 100) * total);
  }
  return length <= 0 || length > total ? fallback : length;
}

function recheckTime(start: number | undefined, durationMs: number, now: number): number | undefined {
  if (durationMs === NO_TIMEOUT) return undefined;
  return (start ?? now) + durationMs;
}

/**
 * determineRolloutStatus: adds the cluster to the rollout or the timed-out list; returns its status after
 * (a Progressing or Failed cluster past its deadline is TimeOut), which is what OCM counts next.
 */
function determine(
  s: ClusterRolloutStatus,
  minSuccessMs: number,
  timeoutMs: number,
  now: number,
  rollout: ClusterRolloutStatus[],
  timedOut: ClusterRolloutStatus[],
): RolloutStatus {
  switch (s.status) {
    case 'ToApply':
      rollout.push(s);
      return s.status;
    case 'Succeeded': {
      const soakEnd = recheckTime(s.lastTransitionTime, minSuccessMs, now);
      if (soakEnd !== undefined && now < soakEnd) rollout.push({ ...s, recheckTime: soakEnd });
      return s.status;
    }
    case 'TimeOut':
    case 'Skip':
      return s.status;
    default: {
      const deadline = recheckTime(s.lastTransitionTime, timeoutMs, now);
      const checked = deadline === undefined ? { ...s } : { ...s, recheckTime: deadline };
      if (deadline === undefined || now < deadline) {
        rollout.push(checked);
        return s.status;
      }
      timedOut.push({ ...checked, status: 'TimeOut' });
      return 'TimeOut';
    }
  }
}

function minRecheckAfter(rollout: readonly ClusterRolloutStatus[], now: number): number | undefined {
  let min: number | undefined;
  for (const r of rollout) {
    if (r.recheckTime === undefined) continue;
    const d = r.recheckTime - now;
    if (d > 0 && (min === undefined || d < min)) min = d;
  }
  return min;
}

function allClusters(groups: readonly ClusterGroup[]): string[] {
  return [...new Set(groups.flatMap((g) => g.clusters))];
}

function result(
  rollout: ClusterRolloutStatus[],
  timedOut: ClusterRolloutStatus[],
  breach: boolean,
  now: number,
): RolloutResult {
  const out: RolloutResult = {
    clustersToRollout: rollout,
    clustersTimeOut: timedOut,
    clustersRemoved: [],
    maxFailureBreach: breach,
  };
  const recheck = minRecheckAfter(rollout, now);
  if (recheck !== undefined) out.recheckAfterMs = recheck;
  return out;
}

function progressivePerCluster(
  groups: readonly ClusterGroup[],
  size: number,
  maxFailures: number,
  minSuccessMs: number,
  timeoutMs: number,
  existing: readonly ClusterRolloutStatus[],
  now: number,
): RolloutResult {
  const rollout: ClusterRolloutStatus[] = [];
  const timedOut: ClusterRolloutStatus[] = [];
  const seen = new Set<string>();
  let failures = 0;
  let breach = false;
  const sorted = [...existing].sort((a, b) =>
    a.clusterName < b.clusterName ? -1 : a.clusterName > b.clusterName ? 1 : 0,
  );
  for (const s of sorted) {
    if (s.clusterName === '') continue;
    seen.add(s.clusterName);
    const status =
      !breach || s.status !== 'ToApply'
        ? determine(s, minSuccessMs, timeoutMs, now, rollout, timedOut)
        : s.status;
    if (status === 'TimeOut' || status === 'Failed') {
      failures++;
      breach = failures > maxFailures;
    }
    if (rollout.length >= size) return result(rollout, timedOut, breach, now);
  }
  if (breach) return result(rollout, timedOut, breach, now);
  const groupOf = new Map<string, GroupKey>();
  for (const g of groups) for (const c of g.clusters) groupOf.set(c, g.key);
  for (const cluster of allClusters(groups).sort()) {
    if (seen.has(cluster)) continue;
    const s: ClusterRolloutStatus = { clusterName: cluster, status: 'ToApply' };
    const key = groupOf.get(cluster);
    if (key) s.groupKey = key;
    rollout.push(s);
    if (rollout.length >= size) return result(rollout, timedOut, false, now);
  }
  return result(rollout, timedOut, false, now);
}

function progressivePerGroup(
  groups: readonly ClusterGroup[],
  maxFailures: string | number,
  minSuccessMs: number,
  timeoutMs: number,
  existing: readonly ClusterRolloutStatus[],
  now: number,
): RolloutResult {
  const rollout: ClusterRolloutStatus[] = [];
  const timedOut: ClusterRolloutStatus[] = [];
  const known = new Map<string, RolloutStatus>();
  for (const s of existing) {
    if (s.clusterName === '' || s.status === 'ToApply') continue;
    known.set(s.clusterName, determine(s, minSuccessMs, timeoutMs, now, rollout, timedOut));
  }
  let totalFailures = 0;
  let breach = false;
  for (const g of [...groups].sort((a, b) => a.key.groupIndex - b.key.groupIndex)) {
    let groupFailures = 0;
    const maxGroupFailures = rolloutSize(maxFailures, g.clusters.length, 0);
    for (const cluster of [...g.clusters].sort()) {
      const status = known.get(cluster);
      if (status !== undefined) {
        if (status === 'TimeOut' || status === 'Failed') {
          groupFailures++;
          breach = groupFailures > maxGroupFailures;
        }
        continue;
      }
      rollout.push({ clusterName: cluster, status: 'ToApply', groupKey: g.key });
    }
    totalFailures += groupFailures;
    if (rollout.length - totalFailures > 0 || breach) return result(rollout, timedOut, breach, now);
  }
  return result(rollout, timedOut, breach, now);
}

/** The groups whose keys match `keys` (a name selects every index of that name; else the index). */
function groupsIn(groups: readonly ClusterGroup[], keys: readonly Partial<GroupKey>[]): ClusterGroup[] {
  const selected: ClusterGroup[] = [];
  for (const k of keys) {
    const matches = k.groupName
      ? groups
          .filter((g) => g.key.groupName === k.groupName)
          .sort((a, b) => a.key.groupIndex - b.key.groupIndex)
      : groups.filter((g) => g.key.groupIndex === (k.groupIndex ?? 0));
    for (const m of matches) if (!selected.includes(m)) selected.push(m);
  }
  return selected;
}

function groupsBesides(groups: readonly ClusterGroup[], keys: readonly Partial<GroupKey>[]): ClusterGroup[] {
  const excluded = groupsIn(groups, keys);
  return groups.filter((g) => !excluded.includes(g));
}

function splitRemoved(groups: readonly ClusterGroup[], existing: readonly ClusterRolloutStatus[]) {
  const decided = new Set(allClusters(groups));
  return {
    current: existing.filter((s) => decided.has(s.clusterName)),
    removed: existing.filter((s) => !decided.has(s.clusterName)),
  };
}

/**
 * GetRolloutCluster: the clusters to roll out to under the strategy (default All), given the placement's
 * decided groups and the rollout status of the clusters that already have the current workload. Throws on
 * a strategy OCM rejects (bad deadline, bad maxFailures or maxConcurrency).
 */
export function rolloutClusters(
  strategy: RolloutStrategy | undefined,
  groups: readonly ClusterGroup[],
  existing: readonly ClusterRolloutStatus[],
  now: number,
): RolloutResult {
  const type = strategy?.type ?? 'All';
  const { current, removed } = splitRemoved(groups, existing);
  const withRemoved = (r: RolloutResult): RolloutResult => ({ ...r, clustersRemoved: removed });
  if (type === 'All') {
    const timeoutMs = parseDurationMs(strategy?.all?.progressDeadline, 'timeout');
    const total = allClusters(groups).length;
    return withRemoved(progressivePerCluster(groups, total, total, 0, timeoutMs, current, now));
  }
  if (type === 'Progressive') {
    const cfg = strategy?.progressive ?? {};
    const minSuccessMs = goDurationMs(cfg.minSuccessTime ?? '0', 'minSuccessTime');
    const timeoutMs = parseDurationMs(cfg.progressDeadline, 'timeout');
    const maxFailures = rolloutSize(cfg.maxFailures, allClusters(groups).length, 0);
    const mandatoryKeys = cfg.mandatoryDecisionGroups ?? [];
    const mandatory = groupsIn(groups, mandatoryKeys);
    if (mandatory.length > 0) {
      const r = progressivePerGroup(mandatory, 0, minSuccessMs, timeoutMs, current, now);
      if (r.clustersToRollout.length > 0 || r.clustersTimeOut.length > 0) return withRemoved(r);
    }
    const rest = groupsBesides(groups, mandatoryKeys);
    const restTotal = allClusters(rest).length;
    const size = rolloutSize(cfg.maxConcurrency, restTotal, restTotal);
    return withRemoved(progressivePerCluster(rest, size, maxFailures, minSuccessMs, timeoutMs, current, now));
  }
  if (type === 'ProgressivePerGroup') {
    const cfg = strategy?.progressivePerGroup ?? {};
    const minSuccessMs = goDurationMs(cfg.minSuccessTime ?? '0', 'minSuccessTime');
    const timeoutMs = parseDurationMs(cfg.progressDeadline, 'timeout');
    const maxFailures = cfg.maxFailures ?? 0;
    rolloutSize(maxFailures, 1, 0); // rejects a malformed value up front, as OCM's parseRolloutSize does
    const mandatoryKeys = cfg.mandatoryDecisionGroups ?? [];
    const mandatory = groupsIn(groups, mandatoryKeys);
    if (mandatory.length > 0) {
      const r = progressivePerGroup(mandatory, 0, minSuccessMs, timeoutMs, current, now);
      if (r.clustersToRollout.length > 0 || r.clustersTimeOut.length > 0) return withRemoved(r);
    }
    const rest = groupsBesides(groups, mandatoryKeys);
    return withRemoved(progressivePerGroup(rest, maxFailures, minSuccessMs, timeoutMs, current, now));
  }
  throw new Error(`incorrect rollout strategy type ${String(type)}`);
}
