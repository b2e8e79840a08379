// Which OverridePolicies and ClusterOverridePolicies apply to a template, in the order Karmada applies them
// (pkg/util/overridemanager/overridemanager.go, getOverridersFromOverridePolicies; implicit priorities from
// pkg/util/selector.go, ResourceSelectorPriority).

import type { OverrideSpec, ResourceSelector } from '../../../api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../../kube/client/index.ts';
import { compareCodePoints } from '../../../propagation/json.ts';
import { compileLabelSelector } from '../../../propagation/label-selector.ts';

export interface NamedOverridePolicy {
  kind: 'ClusterOverridePolicy' | 'OverridePolicy';
  name: string;
  namespace?: string;
  spec: OverrideSpec;
}

/** Karmada's ImplicitPriority. */
export const PriorityMisMatch = 0;
export const PriorityMatchAll = 1;
export const PriorityMatchLabelSelector = 2;
export const PriorityMatchName = 3;

/** ResourceSelectorPriority: a name wins over a label selector, which wins over neither. */
export function selectorPriority(template: KubeObject, rs: ResourceSelector): number {
  const meta = template.metadata;
  if (template.apiVersion !== rs.apiVersion || template.kind !== rs.kind) return PriorityMisMatch;
  if (rs.namespace && (meta.namespace ?? '') !== rs.namespace) return PriorityMisMatch;
  if (rs.name) return rs.name === meta.name ? PriorityMatchName : PriorityMisMatch;
  if (rs.labelSelector === undefined || rs.labelSelector === null) return PriorityMatchAll;
  try {
    return compileLabelSelector(rs.labelSelector)(meta.labels ?? {})
      ? PriorityMatchLabelSelector
      : PriorityMisMatch;
  } catch {
    // LabelSelectorAsSelector failed: the webhook refuses such selectors; a stored one matches nothing.
    return PriorityMisMatch;
  }
}

/** The policy's implicit priority for the template; no selectors at all match everything. */
export function overridePolicyPriority(template: KubeObject, spec: OverrideSpec): number {
  const selectors = spec.resourceSelectors ?? [];
  if (selectors.length === 0) return PriorityMatchAll;
  return Math.max(PriorityMisMatch, ...selectors.map((rs) => selectorPriority(template, rs)));
}

function ordered(template: KubeObject, policies: readonly NamedOverridePolicy[]): NamedOverridePolicy[] {
  return policies
    .map((p) => ({ p, priority: overridePolicyPriority(template, p.spec) }))
    .filter((x) => x.priority !== PriorityMisMatch)
    .sort((a, b) => a.priority - b.priority || compareCodePoints(a.p.name, b.p.name))
    .map((x) => x.p);
}

/**
 * The policies that apply to a template, in Karmada's application order: all matching
 * ClusterOverridePolicies first, then OverridePolicies of the template's namespace (namespaced templates
 * only); within each, implicit priority ascending (no resourceSelectors = MatchAll) then name ascending, so
 * the more specific policy is applied later and wins.
 */
export function overridePoliciesFor(
  template: KubeObject,
  cops: readonly NamedOverridePolicy[],
  ops: readonly NamedOverridePolicy[],
): NamedOverridePolicy[] {
  const namespace = template.metadata.namespace ?? '';
  const namespaced = namespace === '' ? [] : ops.filter((p) => (p.namespace ?? '') === namespace);
  return [...ordered(template, cops), ...ordered(template, namespaced)];
}
