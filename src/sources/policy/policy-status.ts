// The conditions of a propagation policy's status (a kubefed-ts addition): pure, from what the controller
// knows about the policy's selectors, the templates it claims and the registered clusters.

import type { MetaCondition, OverrideSpec, PropagationSpec } from '../../api/policy/v1alpha1/index.ts';
import { compileLabelSelector } from '../../propagation/label-selector.ts';
import { stampCondition } from '../../util/conditions.ts';

export const PolicyCondition = { Ready: 'Ready', ClustersKnown: 'ClustersKnown' } as const;
export const PolicyReason = {
  Claimed: 'Claimed',
  Overriding: 'Overriding',
  NoMatchingResources: 'NoMatchingResources',
  InvalidSelector: 'InvalidSelector',
  KindNotServed: 'KindNotServed',
  AllClustersKnown: 'AllClustersKnown',
  UnknownClusters: 'UnknownClusters',
} as const;

export interface PolicyConditionsInput {
  spec: PropagationSpec | undefined;
  generation: number;
  claimed: number;
  /** Why selected kinds are not watched (not served by the federation API server). */
  unresolvedKinds: readonly string[];
  knownClusters: readonly string[];
  previous: readonly MetaCondition[];
  now: string;
}

export function policyConditions(input: PolicyConditionsInput): MetaCondition[] {
  const ready = readyCondition(input);
  const unknown = namedClusters(input.spec).filter((c) => !input.knownClusters.includes(c));
  const known: Omit<MetaCondition, 'lastTransitionTime'> =
    unknown.length === 0
      ? {
          type: PolicyCondition.ClustersKnown,
          status: 'True',
          reason: PolicyReason.AllClustersKnown,
          message: 'Every cluster the placement names is registered',
        }
      : {
          type: PolicyCondition.ClustersKnown,
          status: 'False',
          reason: PolicyReason.UnknownClusters,
          message: `The placement names clusters that are not registered: ${unknown.join(', ')}`,
        };
  return [ready, known].map((c) =>
    stampCondition({ ...c, observedGeneration: input.generation }, input.previous, input.now),
  );
}

function readyCondition(input: PolicyConditionsInput): Omit<MetaCondition, 'lastTransitionTime'> {
  const type = PolicyCondition.Ready;
  const invalid = invalidSelectors(input.spec);
  if (invalid.length > 0)
    return { type, status: 'False', reason: PolicyReason.InvalidSelector, message: invalid.join('; ') };
  if (input.unresolvedKinds.length > 0)
    return {
      type,
      status: 'False',
      reason: PolicyReason.KindNotServed,
      message: input.unresolvedKinds.join('; '),
    };
  if (input.claimed === 0)
    return {
      type,
      status: 'False',
      reason: PolicyReason.NoMatchingResources,
      message: 'No resource template is selected by this policy and not claimed by a higher-priority one',
    };
  return {
    type,
    status: 'True',
    reason: PolicyReason.Claimed,
    message: `Claims ${input.claimed} resource template${input.claimed === 1 ? '' : 's'}`,
  };
}

/** Label selectors that do not compile, as "resourceSelectors[0].labelSelector: why". */
function invalidSelectors(spec: PropagationSpec | undefined): string[] {
  return selectorErrors([
    ...(spec?.resourceSelectors ?? []).map(
      (s, i) => [`resourceSelectors[${i}].labelSelector`, s?.labelSelector] as const,
    ),
    ['placement.clusterAffinity.labelSelector', spec?.placement?.clusterAffinity?.labelSelector],
    ...(spec?.placement?.clusterAffinities ?? []).map(
      (a, i) => [`placement.clusterAffinities[${i}].labelSelector`, a?.labelSelector] as const,
    ),
  ]);
}

/** "path: why" for each given label selector that does not compile; absent ones are fine. */
function selectorErrors(selectors: ReadonlyArray<readonly [string, unknown]>): string[] {
  const out: string[] = [];
  for (const [path, sel] of selectors) {
    if (sel === undefined || sel === null) continue;
    try {
      compileLabelSelector(sel as Parameters<typeof compileLabelSelector>[0]);
    } catch (e) {
      out.push(`${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

function namedClusters(spec: PropagationSpec | undefined): string[] {
  const p = spec?.placement;
  const names = new Set<string>();
  for (const n of p?.clusterAffinity?.clusterNames ?? []) names.add(n);
  for (const a of p?.clusterAffinities ?? []) for (const n of a.clusterNames ?? []) names.add(n);
  for (const w of p?.replicaScheduling?.weightPreference?.staticWeightList ?? [])
    for (const n of w.targetCluster?.clusterNames ?? []) names.add(n);
  return [...names].sort();
}

export interface OverrideConditionsInput {
  generation: number;
  /** Propagated templates the policy selects. */
  matched: number;
  /** Stored label selectors that do not compile (refused by the webhook when it runs). */
  invalid: readonly string[];
  previous: readonly MetaCondition[];
  now: string;
}

/** An override policy's Ready condition: which propagated templates it shapes, or why none. */
export function overrideConditions(input: OverrideConditionsInput): MetaCondition[] {
  const type = PolicyCondition.Ready;
  const c: Omit<MetaCondition, 'lastTransitionTime'> =
    input.invalid.length > 0
      ? { type, status: 'False', reason: PolicyReason.InvalidSelector, message: input.invalid.join('; ') }
      : input.matched === 0
        ? {
            type,
            status: 'False',
            reason: PolicyReason.NoMatchingResources,
            message: 'No propagated resource template is selected by this policy',
          }
        : {
            type,
            status: 'True',
            reason: PolicyReason.Overriding,
            message: `Overrides ${input.matched} propagated resource template${input.matched === 1 ? '' : 's'}`,
          };
  return [stampCondition({ ...c, observedGeneration: input.generation }, input.previous, input.now)];
}

/** Label selectors of an override policy that do not compile. */
export function invalidOverrideSelectors(spec: OverrideSpec | undefined): string[] {
  return selectorErrors([
    ...(spec?.resourceSelectors ?? []).map(
      (s, i) => [`resourceSelectors[${i}].labelSelector`, s?.labelSelector] as const,
    ),
    ...(spec?.overrideRules ?? []).map(
      (r, i) => [`overrideRules[${i}].targetCluster.labelSelector`, r?.targetCluster?.labelSelector] as const,
    ),
  ]);
}
