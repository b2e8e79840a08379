// Which creates the API server sends to the template claim webhook (src/webhook/template-claim.ts): those of
// the kinds some PropagationPolicy or ClusterPropagationPolicy names in a resource selector, each in the
// version the selector names, and nothing else, so that no other create on the federation API server pays for
// the call. Pure: the controller (claim-admission-controller.ts) lists the policies and resolves the kinds.

import type { ResourceSelector } from '../../api/policy/v1alpha1/shared.ts';
import { compareCodePoints, jsonEqual } from '../../propagation/json.ts';
import { type Rule, WebhookName } from '../../webhook/configurations.ts';
import { kindKey, type TemplateType } from './templates.ts';

/** The kinds the policies' resource selectors name (`apiVersion|kind`); dependencies are not claimed. */
export function selectorKinds(
  policies: Iterable<{ spec?: { resourceSelectors?: readonly Partial<ResourceSelector>[] } }>,
): Set<string> {
  const kinds = new Set<string>();
  for (const p of policies)
    for (const s of p.spec?.resourceSelectors ?? [])
      if (typeof s?.apiVersion === 'string' && typeof s.kind === 'string' && s.apiVersion && s.kind)
        kinds.add(kindKey({ apiVersion: s.apiVersion, kind: s.kind }));
  return kinds;
}

/** One CREATE rule per resource, in a stable order, so that an unchanged set compares equal. */
export function claimRules(types: readonly TemplateType[]): Rule[] {
  const byResource = new Map<string, Rule>();
  for (const t of types) {
    const rule: Rule = {
      operations: ['CREATE'],
      apiGroups: [t.group],
      apiVersions: [t.version],
      resources: [t.plural],
      scope: t.namespaced ? 'Namespaced' : 'Cluster',
    };
    byResource.set(`${t.group}/${t.version}/${t.plural}`, rule);
  }
  return [...byResource.entries()].sort(([a], [b]) => compareCodePoints(a, b)).map(([, r]) => r);
}

interface WebhookEntry {
  name?: string;
  rules?: unknown;
}

/** A MutatingWebhookConfiguration as read from the API server (what this module touches of it). */
export interface MutatingConfiguration {
  webhooks?: WebhookEntry[];
}

/**
 * The configuration with the claim webhook's rules set to `rules`; undefined when it has no such entry (an
 * install without it, or a Namespaced one) or the rules are already those. Every other entry is kept as is.
 */
export function withClaimRules<C extends MutatingConfiguration>(config: C, rules: Rule[]): C | undefined {
  const entry = config.webhooks?.find((w) => w.name === WebhookName.ResourceTemplates);
  if (!entry || jsonEqual(entry.rules ?? [], rules)) return undefined;
  return {
    ...config,
    webhooks: config.webhooks?.map((w) => (w === entry ? { ...w, rules } : w)),
  };
}
