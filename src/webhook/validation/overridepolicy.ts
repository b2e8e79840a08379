// The validating webhooks of OverridePolicy and ClusterOverridePolicy (karmada
// pkg/webhook/overridepolicy/validating.go, pkg/webhook/clusteroverridepolicy/validating.go): the spec is
// checked by a validator passed in (ValidateOverrideSpec's rules live with the override code that applies
// them), its messages aggregated as Kubernetes prints an error list.

import { GROUP as POLICY_GROUP } from '../../api/policy/v1alpha1/group.ts';
import { isPlainObject } from '../../propagation/json.ts';
import type { AdmissionHandler, Decision } from '../admission.ts';

/** Every problem of an OverrideSpec, each as `field: message`; empty when valid. */
export type OverrideSpecValidator = (spec: unknown) => string[];

/** field.ErrorList.ToAggregate().Error(): one message alone, several as `[a, b]`, repeats once. */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * The handler for `overridepolicies` or `clusteroverridepolicies`: CREATE and UPDATE of that resource (not a
 * subresource) are validated, anything else is allowed.
 */
export function overridePolicyHandler(plural: string, validate: OverrideSpecValidator): AdmissionHandler {
  return (req): Decision => {
    const examined =
      (req.operation === 'CREATE' || req.operation === 'UPDATE') &&
      req.resource.group === POLICY_GROUP &&
      req.resource.resource === plural &&
      req.subResource === '';
    if (!examined) return { allowed: true };
    if (!isPlainObject(req.object)) {
      return { allowed: false, code: 400, reason: 'BadRequest', message: 'object: expected a JSON object' };
    }
    const messages = validate(req.object['spec']);
    if (messages.length === 0) return { allowed: true };
    return { allowed: false, code: 403, reason: 'Forbidden', message: aggregateMessages(messages) };
  };
}

/**
 * A shape check of an OverrideSpec (objects and lists where Karmada's types have them), standing in until
 * the full validator is wired: it refuses nothing Karmada's decoder would accept.
 */
export function overrideSpecShapeErrors(spec: unknown): string[] {
  if (spec === undefined || spec === null) return [];
  if (!isPlainObject(spec)) return ['spec: Invalid value: must be an object'];
  const errs: string[] = [];
  const list = (path: string, v: unknown): unknown[] => {
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    errs.push(`${path}: Invalid value: must be a list`);
    return [];
  };
  const object = (path: string, v: unknown): void => {
    if (v !== undefined && v !== null && !isPlainObject(v))
      errs.push(`${path}: Invalid value: must be an object`);
  };
  list('spec.resourceSelectors', spec['resourceSelectors']).forEach((sel: unknown, i) => {
    if (!isPlainObject(sel)) errs.push(`spec.resourceSelectors[${i}]: Invalid value: must be an object`);
  });
  object('spec.targetCluster', spec['targetCluster']);
  object('spec.overriders', spec['overriders']);
  list('spec.overrideRules', spec['overrideRules']).forEach((r: unknown, i) => {
    const p = `spec.overrideRules[${i}]`;
    if (!isPlainObject(r)) {
      errs.push(`${p}: Invalid value: must be an object`);
      return;
    }
    object(`${p}.targetCluster`, r['targetCluster']);
    object(`${p}.overriders`, r['overriders']);
    const overriders = isPlainObject(r['overriders']) ? r['overriders'] : {};
    for (const [kind, v] of Object.entries(overriders)) list(`${p}.overriders.${kind}`, v);
  });
  return errs;
}
