// What ClusterTaintPolicies do to one cluster's taints (karmada pkg/controllers/taint, the
// ClusterTaintPolicy controller's Reconcile with conditionMatches, addTaintsOnCluster and
// removeTaintsFromCluster). Pure: the shell lists the policies and writes the result.

import type { ClusterCondition, KubeFedCluster, Taint } from '../../api/core/v1beta1/kubefedcluster.ts';
import type { ClusterTaintPolicy, MatchCondition } from '../../api/policy/v1alpha1/clustertaintpolicy.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { affinityMatches } from '../../sources/policy/cluster-affinity.ts';
import { policyClusterOf } from '../../sources/policy/clusters.ts';
import { editTaints } from '../kubefedcluster/taints.ts';

/**
 * Whether every match condition holds on the conditions (karmada conditionMatches): a condition the
 * cluster does not have matches neither In nor NotIn (so `Ready NotIn [True]` does not hold for an
 * unreachable KubeFedCluster, which has only Offline=True). An empty list never matches: a policy
 * without addOnConditions adds nothing.
 */
export function conditionsMatch(
  conditions: readonly ClusterCondition[],
  match: readonly MatchCondition[] | undefined,
): boolean {
  if (!match || match.length === 0) return false;
  return match.every((m) => {
    const condition = conditions.find((c) => c.type === m.conditionType);
    if (!condition) return false;
    const listed = m.statusValues.includes(condition.status);
    return m.operator === 'In' ? listed : m.operator === 'NotIn' && !listed;
  });
}

/**
 * The order Karmada's Reconcile applies policies in: by creationTimestamp, then (a tie-break Karmada's
 * unstable sort leaves open) by name, so that conflicting policies settle the same way every time.
 */
export function policiesInOrder<T extends { metadata?: { name?: string; creationTimestamp?: string } }>(
  policies: readonly T[],
): T[] {
  const key = (p: T) => p.metadata?.creationTimestamp ?? '';
  const name = (p: T) => p.metadata?.name ?? '';
  return [...policies].sort((a, b) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0,
  );
}

/**
 * The cluster's taints after every policy that targets it, in the order given (Karmada's Reconcile sorts
 * them by creationTimestamp: policiesInOrder):
 * a policy whose addOnConditions all match adds its taints that are missing (stamped `timeAdded: now`),
 * one whose removeOnConditions all match removes them (by key and effect). Undefined when nothing changes.
 * A policy whose targetClusters cannot be evaluated (an invalid label selector) is skipped.
 */
export function decideTaints(
  cluster: KubeFedCluster & KubeObject,
  policies: readonly ClusterTaintPolicy[],
  now: string,
): Taint[] | undefined {
  const target = policyClusterOf(cluster);
  const conditions = cluster.status?.conditions ?? [];
  const original = cluster.spec.taints ?? [];
  let taints: Taint[] = [...original];
  for (const policy of policies) {
    let selected: boolean;
    try {
      selected = affinityMatches(policy.spec.targetClusters, target);
    } catch {
      selected = false;
    }
    if (!selected) continue;
    if (conditionsMatch(conditions, policy.spec.addOnConditions)) {
      const next = editTaints(taints, policy.spec.taints, [], now);
      if (next) taints = next;
    }
    if (conditionsMatch(conditions, policy.spec.removeOnConditions)) {
      const next = editTaints(taints, [], policy.spec.taints, now);
      if (next) taints = next;
    }
  }
  // One policy may remove what another added: only a net change is one.
  return jsonEqual(taints, original) ? undefined : taints;
}
