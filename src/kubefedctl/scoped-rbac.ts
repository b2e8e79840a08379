import type { FederatedTypeConfig } from '../api/core/v1beta1/index.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { applyFtcDefaults } from '../sources/federated/type-config-plan.ts';

/** An RBAC PolicyRule (rbac.authorization.k8s.io/v1). */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

// The annotation is read by the controller manager too (no push agent, no MCS there): it lives with the type.
export { MEMBER_RBAC_ANNOTATION, SCOPED_RBAC_MODE } from '../api/core/v1beta1/index.ts';
/** The member service account (`C-H`) a scoped join created, so later updates need not guess the host name. */
export const MEMBER_SERVICE_ACCOUNT_ANNOTATION = 'kubefed-ts.io/member-service-account';

/** What the propagation engine does with a target type in a member: informers, create, update, unlabel, delete. */
export const PROPAGATION_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const READ_VERBS = ['list', 'watch'];

/** Reads the controller manager makes in every member whatever is federated. */
const HEALTH_RULES: PolicyRule[] = [
  // The cluster controller's probe and version; public through system:public-info-viewer in a stock cluster,
  // granted here so a cluster that narrowed that role still reports Ready.
  { nonResourceURLs: ['/healthz', '/version'], verbs: ['get'] },
  // Zones and region of the KubeFedCluster status.
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
];
/** The service DNS controller watches the managed EndpointSlices of every ready member. */
const ENDPOINT_SLICE_RULE: PolicyRule = {
  apiGroups: ['discovery.k8s.io'],
  resources: ['endpointslices'],
  verbs: READ_VERBS,
};
/** ReplicaSchedulingPreferences read the pods of a member's Deployments or ReplicaSets. */
const POD_LIST_RULE: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['list'] };
const SCHEDULED_TARGETS = new Set(['apps/deployments', 'apps/replicasets']);

export interface ScopedRbacRules {
  /**
   * Cluster scope: the rules of the ClusterRole `kubefed-controller-manager:C-H`. Namespaced scope: the rules
   * of the Role of that name in the KubeFed namespace.
   */
  rules: PolicyRule[];
  /** Namespaced scope only: the rules of the health-check ClusterRole (cluster-scoped reads). */
  healthCheckRules?: PolicyRule[];
}

type FtcLike = KubeObject & Partial<FederatedTypeConfig>;

/** The target types the controller manager propagates for these FTCs, as `group/plural` with their scope. */
export function propagatedTargets(
  ftcs: readonly FtcLike[],
  controlPlaneScope: 'Cluster' | 'Namespaced',
): Array<{ group: string; plural: string; namespaced: boolean }> {
  const seen = new Map<string, { group: string; plural: string; namespaced: boolean }>();
  for (const raw of ftcs) {
    if (!raw.spec?.targetType || raw.metadata?.deletionTimestamp) continue;
    // The same selection as the FTC controller (ftcControlPlan): enabled, and in a namespaced control plane
    // namespaced targets only.
    if (raw.spec.propagation !== 'Enabled') continue;
    const ftc = applyFtcDefaults(raw as FtcLike & FederatedTypeConfig);
    const t = ftc.spec.targetType;
    const namespaced = t.scope === 'Namespaced';
    if (controlPlaneScope === 'Namespaced' && !namespaced) continue;
    if (!t.pluralName) continue;
    const group = t.group ?? '';
    seen.set(`${group}/${t.pluralName}`, { group, plural: t.pluralName, namespaced });
  }
  return [...seen.values()];
}

/**
 * The least-privilege rules of a member joined with `--scoped-rbac`: the propagation verbs on exactly the
 * target resources of the enabled FTCs, plus what the controller manager reads in every member (health,
 * nodes, EndpointSlices) and, when Deployments or ReplicaSets are federated, pods. Deterministic (sorted,
 * one rule per API group) so that an unchanged federation never rewrites the role.
 */
export function scopedRbacRules(
  ftcs: readonly FtcLike[],
  controlPlaneScope: 'Cluster' | 'Namespaced',
): ScopedRbacRules {
  const targets = propagatedTargets(ftcs, controlPlaneScope);
  const byGroup = new Map<string, Set<string>>();
  for (const t of targets) {
    const set = byGroup.get(t.group) ?? new Set<string>();
    set.add(t.plural);
    byGroup.set(t.group, set);
  }
  const targetRules: PolicyRule[] = [...byGroup.keys()].sort().map((group) => ({
    apiGroups: [group],
    resources: [...(byGroup.get(group) ?? [])].sort(),
    verbs: PROPAGATION_VERBS,
  }));
  const companions: PolicyRule[] = [ENDPOINT_SLICE_RULE];
  if (targets.some((t) => SCHEDULED_TARGETS.has(`${t.group}/${t.plural}`))) companions.push(POD_LIST_RULE);
  const copy = (r: PolicyRule): PolicyRule => structuredClone(r);
  if (controlPlaneScope === 'Namespaced') {
    return { rules: [...targetRules, ...companions.map(copy)], healthCheckRules: HEALTH_RULES.map(copy) };
  }
  return { rules: [...targetRules, ...companions.map(copy), ...HEALTH_RULES.map(copy)] };
}

/**
 * Equal rule lists, as the API server returns them: it orders a rule's fields its own way (verbs first) and
 * drops empty lists, so rules are compared field by field. Rule order matters (scopedRbacRules is sorted).
 */
export function sameRules(
  a: readonly PolicyRule[] | undefined,
  b: readonly PolicyRule[] | undefined,
): boolean {
  const norm = (rules: readonly PolicyRule[] | undefined) =>
    JSON.stringify(
      (rules ?? []).map((r) => [
        r.apiGroups ?? [],
        r.resources ?? [],
        r.resourceNames ?? [],
        r.nonResourceURLs ?? [],
        r.verbs ?? [],
      ]),
    );
  return norm(a) === norm(b);
}
