// Which PropagationPolicy or ClusterPropagationPolicy an unclaimed template falls to (karmada
// pkg/util/selector.go ResourceSelectorPriority, pkg/detector/policy.go and compare.go
// getHighestPriorityPropagationPolicy), and which templates policies never look at (pkg/detector
// detector.go EventFilter). Pure: the caller lists the policies.

import { CLAIMED_BY_LABEL, isReservedNamespace } from '../../api/policy/v1alpha1/labels.ts';
import type { PropagationSpec } from '../../api/policy/v1alpha1/propagationpolicy.ts';
import type { ResourceSelector } from '../../api/policy/v1alpha1/shared.ts';
import type { KubeObject } from '../../kube/client/types.ts';
import { compileLabelSelector, LabelSelectorError } from '../../propagation/label-selector.ts';

export type PolicyKind = 'PropagationPolicy' | 'ClusterPropagationPolicy';

/** A policy as the matcher sees it. */
export interface CandidatePolicy {
  kind: PolicyKind;
  namespace?: string;
  name: string;
  spec: PropagationSpec;
  /** The policy's permanent-id label. */
  permanentId: string;
  /** metadata.deletionTimestamp is set. */
  deleting: boolean;
}

/** Karmada's util.ImplicitPriority: how specifically a selector names a template. */
export const ImplicitPriority = { MisMatch: 0, MatchAll: 1, MatchLabelSelector: 2, MatchName: 3 } as const;

/**
 * ResourceSelectorPriority for one selector: apiVersion and kind must be equal and the namespace, when set,
 * too; a name, when set, is all that counts (its labelSelector is ignored). An invalid label selector
 * matches nothing, as LabelSelectorAsSelector's error does in Karmada.
 */
function selectorPriority(rs: ResourceSelector, template: KubeObject): number {
  if (template.apiVersion !== rs.apiVersion || template.kind !== rs.kind) return ImplicitPriority.MisMatch;
  if (rs.namespace && (template.metadata.namespace ?? '') !== rs.namespace) return ImplicitPriority.MisMatch;
  if (rs.name)
    return rs.name === template.metadata.name ? ImplicitPriority.MatchName : ImplicitPriority.MisMatch;
  if (!rs.labelSelector) return ImplicitPriority.MatchAll;
  try {
    return compileLabelSelector(rs.labelSelector)(template.metadata.labels)
      ? ImplicitPriority.MatchLabelSelector
      : ImplicitPriority.MisMatch;
  } catch (err) {
    if (err instanceof LabelSelectorError) return ImplicitPriority.MisMatch;
    throw err;
  }
}

/**
 * ResourceMatchSelectorsPriority: the best priority over the selectors. A selector with no namespace
 * matches any (as for a ClusterPropagationPolicy); for a PropagationPolicy the caller passes only the
 * policies of the template's namespace.
 */
export function implicitPriority(
  selectors: readonly ResourceSelector[] | undefined,
  template: KubeObject,
): number {
  let best: number = ImplicitPriority.MisMatch;
  for (const rs of selectors ?? []) best = Math.max(best, selectorPriority(rs, template));
  return best;
}

/** getHighestPriorityPropagationPolicy: explicit priority, then implicit priority, then the smaller name. */
function bestOf(template: KubeObject, policies: readonly CandidatePolicy[]): CandidatePolicy | undefined {
  let best: { policy: CandidatePolicy; explicit: number; implicit: number } | undefined;
  for (const policy of policies) {
    if (policy.deleting) continue;
    const implicit = implicitPriority(policy.spec.resourceSelectors, template);
    if (implicit === ImplicitPriority.MisMatch) continue;
    const explicit = policy.spec.priority ?? 0;
    const better =
      best === undefined ||
      explicit > best.explicit ||
      (explicit === best.explicit &&
        (implicit > best.implicit || (implicit === best.implicit && policy.name < best.policy.name)));
    if (better) best = { policy, explicit, implicit };
  }
  return best?.policy;
}

/**
 * Karmada's choice for an unclaimed template: the best PropagationPolicy of its namespace (namespaced
 * templates only), else the best ClusterPropagationPolicy. A PropagationPolicy wins over any
 * ClusterPropagationPolicy whatever their priorities; policies being deleted are ignored.
 */
export function selectPolicy(
  template: KubeObject,
  pps: readonly CandidatePolicy[],
  cpps: readonly CandidatePolicy[],
): CandidatePolicy | undefined {
  const namespace = template.metadata.namespace ?? '';
  if (namespace !== '') {
    // The caller passes the namespace's PropagationPolicies; one known to live elsewhere never applies.
    const pp = bestOf(
      template,
      pps.filter((p) => p.namespace === undefined || p.namespace === namespace),
    );
    if (pp) return pp;
  }
  return bestOf(template, cpps);
}

/** Karmada's default --skipped-propagating-namespaces is `kube-.*`, anchored. */
const SKIPPED_NAMESPACE = /^kube-.*$/;

/**
 * Whether policies never propagate this template (detector.go EventFilter): it lives in a reserved
 * namespace (karmada-system, karmada-cluster, karmada-es-*), a skipped one (kube-*, plus the given extra
 * namespaces, e.g. the KubeFed namespace; kube-system/extension-apiserver-authentication, which Karmada
 * names separately, is among them), or carries the resourcetemplate.karmada.io/claimed-by label (another
 * controller, e.g. MultiClusterService, owns it).
 */
export function isIgnoredTemplate(template: KubeObject, extraSkipped: readonly string[]): boolean {
  const namespace = template.metadata.namespace ?? '';
  if (template.metadata.labels?.[CLAIMED_BY_LABEL]) return true;
  if (isClusterLocal(template)) return true;
  if (namespace === '') return false;
  return (
    isReservedNamespace(namespace) || SKIPPED_NAMESPACE.test(namespace) || extraSkipped.includes(namespace)
  );
}

/**
 * Objects every cluster makes for itself: the root CA bundle the host's root-ca publisher writes into every
 * namespace. Sending the host's would only collide with each member's own (a kubefed-ts rule).
 */
export function isClusterLocal(t: KubeObject): boolean {
  return t.kind === 'ConfigMap' && t.metadata.name === 'kube-root-ca.crt';
}

/**
 * Whether a claim still holds (detector.go: an already claimed template is re-applied with its policy): the
 * claim's policy exists with the same permanent-id and still selects the template. 'deleting' while that
 * policy is being deleted (wait); undefined when the claim is stale and must be removed.
 */
export function claimHolder(
  template: KubeObject,
  claim: { permanentId: string },
  policy: CandidatePolicy | undefined,
): CandidatePolicy | 'deleting' | undefined {
  if (!policy || policy.permanentId !== claim.permanentId) return undefined;
  if (policy.deleting) return 'deleting';
  return implicitPriority(policy.spec.resourceSelectors, template) > ImplicitPriority.MisMatch
    ? policy
    : undefined;
}
