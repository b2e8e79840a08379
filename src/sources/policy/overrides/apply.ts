// Applies OverridePolicies to one cluster's copy of a template (karmada pkg/util/overridemanager/
// overridemanager.go: getOverridersFromOverridePolicies picks the rules, applyPolicyOverriders applies one
// rule's overriders in the fixed order Image → Command → Args → Labels → Annotations → Field → Plaintext).

import type { Overriders, RuleWithCluster } from '../../../api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../../kube/client/index.ts';
import { deepCopy, type JsonObject } from '../../../propagation/json.ts';
import { affinityMatches, type PolicyCluster } from '../cluster-affinity.ts';
import { type CommandArgsTarget, commandArgsPatches } from './command-args.ts';
import { applyFieldOverrider } from './field.ts';
import { imagePatches } from './image.ts';
import { labelAnnotationPatches, type MetadataMap } from './labels-annotations.ts';
import { applyPatch } from './patch.ts';
import { applyOperations, plaintextOperations } from './plaintext.ts';
import type { NamedOverridePolicy } from './select.ts';

export class OverrideError extends Error {
  override name = 'OverrideError';
  /** The failing policy, e.g. "OverridePolicy apps/web" or "ClusterOverridePolicy web". */
  readonly policy: string;
  /** Where in the policy, e.g. "spec.overrideRules[0].overriders.plaintext". */
  readonly location: string;
  readonly reason: string;
  constructor(policy: string, location: string, reason: string) {
    super(`${policy}: ${location}: ${reason}`);
    this.policy = policy;
    this.location = location;
    this.reason = reason;
  }
}

/** "<Kind> <ns/name>", or "<Kind> <name>" for a ClusterOverridePolicy. */
export function policyRef(p: NamedOverridePolicy): string {
  return p.namespace ? `${p.kind} ${p.namespace}/${p.name}` : `${p.kind} ${p.name}`;
}

interface IndexedRule {
  /** Where the rule is in the policy, for errors. */
  at: string;
  rule: RuleWithCluster;
}

/** overrideRules, or the deprecated single targetCluster/overriders rule when there are none. */
function rulesOf(p: NamedOverridePolicy): IndexedRule[] {
  const rules = p.spec.overrideRules ?? [];
  if (rules.length > 0) return rules.map((rule, i) => ({ at: `spec.overrideRules[${i}]`, rule }));
  const rule: RuleWithCluster = { overriders: p.spec.overriders ?? {} };
  if (p.spec.targetCluster) rule.targetCluster = p.spec.targetCluster;
  return [{ at: 'spec', rule }];
}

type Step = [name: string, apply: (obj: JsonObject) => JsonObject];

/** Unstructured.UnmarshalJSON after every Karmada patch: an object without a kind does not decode. */
function requireKind(obj: JsonObject): JsonObject {
  const kind = obj['kind'];
  if (typeof kind !== 'string' || kind === '')
    throw new Error(`Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
  return obj;
}

function commandArgsSteps(target: CommandArgsTarget, list: Overriders['commandOverrider']): Step[] {
  return (list ?? []).map((o, i) => [
    `${target}Overrider[${i}]`,
    (obj) => applyPatch(obj, commandArgsPatches(target, obj, o)),
  ]);
}

function labelAnnotationSteps(map: MetadataMap, list: Overriders['labelsOverrider']): Step[] {
  return (list ?? []).map((o, i) => [
    `${map}Overrider[${i}]`,
    (obj) => {
      const copy = deepCopy(obj);
      const patches = labelAnnotationPatches(copy, o, map);
      return patches.length === 0 ? obj : applyPatch(copy, patches);
    },
  ]);
}

/** One rule's overriders as steps, in Karmada's order. */
function steps(o: Overriders): Step[] {
  return [
    ...(o.imageOverrider ?? []).map(
      (io, i): Step => [`imageOverrider[${i}]`, (obj) => applyPatch(obj, imagePatches(obj, io))],
    ),
    ...commandArgsSteps('command', o.commandOverrider),
    ...commandArgsSteps('args', o.argsOverrider),
    ...labelAnnotationSteps('labels', o.labelsOverrider),
    ...labelAnnotationSteps('annotations', o.annotationsOverrider),
    ...(o.fieldOverrider ?? []).map(
      (fo, i): Step => [
        `fieldOverrider[${i}]`,
        (obj) => {
          const copy = deepCopy(obj);
          applyFieldOverrider(copy, fo);
          return copy;
        },
      ],
    ),
    ['plaintext', (obj) => applyOperations(obj, plaintextOperations(o.plaintext ?? []))],
  ];
}

/**
 * Applies every rule of every policy whose targetCluster matches the cluster (the deprecated single
 * targetCluster/overriders form included), policies in the given order (see overridePoliciesFor). Returns a
 * new object (the input is untouched) and the policies with at least one matching rule, as
 * "<Kind> <ns/name>" — Karmada's applied-overrides list. Throws OverrideError, and nothing else, when an
 * overrider cannot be applied: a missing path, a field that is not JSON or YAML, an unparseable image, or an
 * invalid label selector in a targetCluster.
 */
export function applyOverrides(
  object: KubeObject,
  policies: readonly NamedOverridePolicy[],
  cluster: PolicyCluster,
): { object: KubeObject; applied: string[] } {
  let obj = deepCopy(object) as JsonObject;
  const applied: string[] = [];
  for (const policy of policies) {
    const ref = policyRef(policy);
    let matched = false;
    for (const { at, rule } of rulesOf(policy)) {
      let location = `${at}.targetCluster`;
      try {
        if (!affinityMatches(rule.targetCluster, cluster)) continue;
        matched = true;
        for (const [name, apply] of steps(rule.overriders ?? {})) {
          location = `${at}.overriders.${name}`;
          obj = requireKind(apply(obj));
        }
      } catch (err) {
        throw new OverrideError(ref, location, err instanceof Error ? err.message : String(err));
      }
    }
    if (matched && !applied.includes(ref)) applied.push(ref);
  }
  return { object: obj as KubeObject, applied };
}
