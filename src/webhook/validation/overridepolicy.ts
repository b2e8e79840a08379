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
