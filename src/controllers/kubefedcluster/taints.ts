// Cluster taints as the health controller keeps them (karmada pkg/controllers/cluster/cluster_controller.go,
// taintClusterByCondition, and pkg/util/helper/taint.go, UpdateClusterControllerTaint). Pure.

import {
  type ClusterCondition,
  ClusterConditionType,
  ClusterTaintKey,
  type Taint,
  TaintEffect,
} from '../../api/core/v1beta1/kubefedcluster.ts';

/** What identifies a taint: its key and effect (corev1 Taint.MatchTaint); the value does not. */
export type TaintIdentity = Pick<Taint, 'key' | 'effect'>;

export const sameTaint = (a: TaintIdentity, b: TaintIdentity): boolean =>
  a.key === b.key && a.effect === b.effect;

/** The health controller's NoSchedule taint for Ready=False (Karmada's NotReadyTaintTemplateForSched). */
export const NOT_READY_NO_SCHEDULE: TaintIdentity = {
  key: ClusterTaintKey.NotReady,
  effect: TaintEffect.NoSchedule,
};
/** The one for a cluster that cannot be reached (Karmada's UnreachableTaintTemplateForSched). */
export const UNREACHABLE_NO_SCHEDULE: TaintIdentity = {
  key: ClusterTaintKey.Unreachable,
  effect: TaintEffect.NoSchedule,
};

/**
 * The taints with `add` added (those not there yet, stamped `timeAdded: now`) and `remove` removed, in the
 * order UpdateClusterControllerTaint leaves them: the kept ones as they were, then the new ones. Undefined
 * when nothing changes, so that callers write only on a change.
 */
export function editTaints(
  current: readonly Taint[] | undefined,
  add: readonly (TaintIdentity & { value?: string })[],
  remove: readonly TaintIdentity[],
  now: string,
): Taint[] | undefined {
  const taints = current ?? [];
  const toAdd = add.filter((t) => !taints.some((c) => sameTaint(c, t)));
  const toRemove = remove.filter((t) => taints.some((c) => sameTaint(c, t)));
  if (toAdd.length === 0 && toRemove.length === 0) return undefined;
  const kept = taints.filter((c) => !toRemove.some((t) => sameTaint(c, t)));
  const added = toAdd.map(
    (t): Taint => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect, timeAdded: now }),
  );
  return [...kept, ...added];
}

/**
 * Karmada's taintClusterByCondition over KubeFed's conditions: Ready=True removes both NoSchedule taints;
 * Ready=False adds not-ready; a cluster that could not be reached (Offline=True, or Ready=Unknown) adds
 * unreachable; no Ready condition at all (e.g. a malformed configuration) adds not-ready, as Karmada does
 * for a cluster without one. Each swaps out the other. Every other taint is left alone.
 */
export function healthTaints(
  current: readonly Taint[] | undefined,
  conditions: readonly ClusterCondition[],
  now: string,
): Taint[] | undefined {
  const ready = conditions.find((c) => c.type === ClusterConditionType.Ready)?.status;
  const offline = conditions.some((c) => c.type === ClusterConditionType.Offline && c.status === 'True');
  if (ready === 'True') return editTaints(current, [], [NOT_READY_NO_SCHEDULE, UNREACHABLE_NO_SCHEDULE], now);
  if (offline || ready === 'Unknown')
    return editTaints(current, [UNREACHABLE_NO_SCHEDULE], [NOT_READY_NO_SCHEDULE], now);
  return editTaints(current, [NOT_READY_NO_SCHEDULE], [UNREACHABLE_NO_SCHEDULE], now);
}
