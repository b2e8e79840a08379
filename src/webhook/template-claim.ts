// A resource template claimed at admission: a plain object created on the federation API server carries the
// claim of the PropagationPolicy or ClusterPropagationPolicy that selects it (its permanent-id label and
// name annotations) from its first version, so the detector finds it claimed and writes only its binding.
// Karmada's detector writes the claim moments later with an update of the template
// (pkg/detector/detector.go ApplyPolicy -> ClaimPolicyForObject), which stays the fallback here for
// everything this call leaves alone. Pure: the webhook's informers supply the policies.

import { isPlainObject, type JsonObject } from '../propagation/json.ts';
import { claimOf, withClaim } from '../sources/policy/claim.ts';
import { type CandidatePolicy, isIgnoredTemplate, selectPolicy } from '../sources/policy/matching.ts';
import type { JsonPatchOperation } from './kubefedconfig.ts';

/** The policies as the webhook's informers hold them. */
export interface PolicyView {
  /** The KubeFed namespace: never a source of templates (the detector's skipped namespace). */
  kubefedNamespace: string;
  propagationPolicies(namespace: string): readonly CandidatePolicy[];
  clusterPropagationPolicies(): readonly CandidatePolicy[];
}

/** What of the admission request the decision reads. */
export interface TemplateCreate {
  operation: string;
  subResource: string;
  /** The request's namespace: the object's own may be empty in what the client sent. */
  namespace: string;
  object?: unknown;
}

const stringMap = (v: unknown): Record<string, string> | undefined => {
  if (!isPlainObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
};

/**
 * The JSON patch that sets the claim on a template being created, or nothing: not a create of the object
 * itself, no name yet (generateName: a selector naming templates cannot be judged), a template the detector
 * ignores, one that carries a claim already (the detector judges that one), or no policy selects it (yet)
 * with a permanent-id to claim it by. The same choice as the detector's (matching.ts selectPolicy).
 */
export function templateClaimPatch(req: TemplateCreate, view: PolicyView): JsonPatchOperation[] {
  if (req.operation !== 'CREATE' || req.subResource !== '' || !isPlainObject(req.object)) return [];
  const obj: JsonObject = req.object;
  const metadata = obj['metadata'];
  if (!isPlainObject(metadata)) return [];
  const name = metadata['name'];
  if (typeof name !== 'string' || name === '') return [];
  const labels = stringMap(metadata['labels']);
  const annotations = stringMap(metadata['annotations']);
  const template = {
    apiVersion: typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '',
    kind: typeof obj['kind'] === 'string' ? obj['kind'] : '',
    metadata: {
      name,
      ...(req.namespace ? { namespace: req.namespace } : {}),
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
    },
  };
  if (isIgnoredTemplate(template, [view.kubefedNamespace])) return [];
  if (claimOf(template.metadata)) return [];
  const policy = selectPolicy(
    template,
    req.namespace ? view.propagationPolicies(req.namespace) : [],
    view.clusterPropagationPolicies(),
  );
  // A policy the policy controller has not labelled yet cannot be named in a claim: the detector waits for it.
  if (!policy?.permanentId) return [];
  const claimed = withClaim(template.metadata, {
    kind: policy.kind,
    namespace: policy.namespace,
    name: policy.name,
    permanentId: policy.permanentId,
  });
  if (!claimed) return [];
  // `add` replaces a member that exists: the maps are written whole, other keys kept as they were.
  return [
    { op: 'add', path: '/metadata/labels', value: claimed.labels },
    { op: 'add', path: '/metadata/annotations', value: claimed.annotations },
  ];
}
