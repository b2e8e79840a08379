// The claim a policy leaves on a template and its binding (karmada pkg/detector/claim.go): the policy's
// permanent-id label plus its name (and namespace) annotations. Pure: returns the new maps, or
// undefined when nothing has to be written.

import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../../api/policy/v1alpha1/labels.ts';
import type { PolicyKind } from './matching.ts';

export interface Claim {
  kind: PolicyKind;
  /** Set for a PropagationPolicy. */
  namespace?: string;
  name: string;
  permanentId: string;
}

export interface ClaimMeta {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface ClaimedMeta {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const PP_LABELS = [PP_PERMANENT_ID_LABEL];
const PP_ANNOTATIONS = [PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION];
const CPP_LABELS = [CPP_PERMANENT_ID_LABEL];
const CPP_ANNOTATIONS = [CPP_NAME_ANNOTATION];

/**
 * The policy a template is claimed by, as the detector reads it: a PropagationPolicy claim (permanent-id
 * label, namespace and name annotations all non-empty) wins over a ClusterPropagationPolicy claim
 * (permanent-id label and name annotation).
 */
export function claimOf(meta: ClaimMeta): Claim | undefined {
  const labels = meta.labels ?? {};
  const annotations = meta.annotations ?? {};
  const ppId = labels[PP_PERMANENT_ID_LABEL];
  const ppNamespace = annotations[PP_NAMESPACE_ANNOTATION];
  const ppName = annotations[PP_NAME_ANNOTATION];
  if (ppId && ppNamespace && ppName)
    return { kind: 'PropagationPolicy', namespace: ppNamespace, name: ppName, permanentId: ppId };
  const cppId = labels[CPP_PERMANENT_ID_LABEL];
  const cppName = annotations[CPP_NAME_ANNOTATION];
  if (cppId && cppName) return { kind: 'ClusterPropagationPolicy', name: cppName, permanentId: cppId };
  return undefined;
}

function without(map: Record<string, string> | undefined, keys: readonly string[]): Record<string, string> {
  const out = { ...(map ?? {}) };
  for (const key of keys) delete out[key];
  return out;
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const aKeys = Object.keys(a ?? {});
  return aKeys.length === Object.keys(b).length && aKeys.every((k) => a?.[k] === b[k]);
}

/** undefined when the result equals what the object already has. */
function changed(meta: ClaimMeta, next: ClaimedMeta): ClaimedMeta | undefined {
  return sameMap(meta.labels, next.labels) && sameMap(meta.annotations, next.annotations) ? undefined : next;
}

/**
 * The labels and annotations with this policy's claim set and any other claim removed: ClaimPolicyForObject
 * (a PropagationPolicy claim strips a ClusterPropagationPolicy one, excludeClusterPolicy), and for a
 * ClusterPropagationPolicy claim a stale PropagationPolicy claim is dropped too, since claimOf would
 * otherwise still read it. undefined when the object already carries exactly that (no write needed).
 */
export function withClaim(meta: ClaimMeta, policy: Claim): ClaimedMeta | undefined {
  const labels = without(meta.labels, [...PP_LABELS, ...CPP_LABELS]);
  const annotations = without(meta.annotations, [...PP_ANNOTATIONS, ...CPP_ANNOTATIONS]);
  if (policy.kind === 'PropagationPolicy') {
    labels[PP_PERMANENT_ID_LABEL] = policy.permanentId;
    annotations[PP_NAMESPACE_ANNOTATION] = policy.namespace ?? '';
    annotations[PP_NAME_ANNOTATION] = policy.name;
  } else {
    labels[CPP_PERMANENT_ID_LABEL] = policy.permanentId;
    annotations[CPP_NAME_ANNOTATION] = policy.name;
  }
  return changed(meta, { labels, annotations });
}

/**
 * The claim of the policy with this permanent-id removed, and only if the object still carries that
 * permanent-id (NeedCleanupClaimMetadata: a template another policy has claimed since is left alone,
 * karmada#5307). undefined when there is nothing to remove.
 */
export function withoutClaim(meta: ClaimMeta, permanentId: string): ClaimedMeta | undefined {
  let labels = { ...(meta.labels ?? {}) };
  let annotations = { ...(meta.annotations ?? {}) };
  if (labels[PP_PERMANENT_ID_LABEL] === permanentId) {
    labels = without(labels, PP_LABELS);
    annotations = without(annotations, PP_ANNOTATIONS);
  }
  if (labels[CPP_PERMANENT_ID_LABEL] === permanentId) {
    labels = without(labels, CPP_LABELS);
    annotations = without(annotations, CPP_ANNOTATIONS);
  }
  return changed(meta, { labels, annotations });
}
