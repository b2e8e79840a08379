/**
 * Group/versions that serve the same objects (KubeFed pkg/kubefedctl/enable/deprecatedapis.go, equivalentAPIs
 * and IsEquivalentAPI). Only one of them may be federated at a time, or two sync controllers would fight over
 * the same member objects. The first entry is the current API. As in KubeFed's table, ingresses lack
 * networking.k8s.io/v1.
 */
export const EQUIVALENT_APIS: Readonly<Record<string, ReadonlyArray<{ group: string; version: string }>>> = {
  deployments: [
    { group: 'apps', version: 'v1' },
    { group: 'apps', version: 'v1beta1' },
    { group: 'apps', version: 'v1beta2' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  daemonsets: [
    { group: 'apps', version: 'v1' },
    { group: 'apps', version: 'v1beta1' },
    { group: 'apps', version: 'v1beta2' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  statefulsets: [
    { group: 'apps', version: 'v1' },
    { group: 'apps', version: 'v1beta1' },
    { group: 'apps', version: 'v1beta2' },
  ],
  replicasets: [
    { group: 'apps', version: 'v1' },
    { group: 'apps', version: 'v1beta1' },
    { group: 'apps', version: 'v1beta2' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  networkpolicies: [
    { group: 'networking.k8s.io', version: 'v1' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  podsecuritypolicies: [
    { group: 'policy', version: 'v1beta1' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  ingresses: [
    { group: 'networking.k8s.io', version: 'v1beta1' },
    { group: 'extensions', version: 'v1beta1' },
  ],
};

export interface ApiRef {
  plural: string;
  group: string;
  version: string;
}

/**
 * KubeFed's IsEquivalentAPI(existing, candidate): same plural, and the candidate is an entry of the table
 * other than the one the existing API occupies. An identical API is not "equivalent", it is the same.
 */
export function isEquivalentApi(existing: ApiRef, candidate: ApiRef): boolean {
  if (existing.plural !== candidate.plural) return false;
  const apis = Object.hasOwn(EQUIVALENT_APIS, existing.plural) ? EQUIVALENT_APIS[existing.plural] : undefined;
  if (!apis) return false;
  return apis.some(
    (gv) =>
      !(gv.group === existing.group && gv.version === existing.version) &&
      gv.group === candidate.group &&
      gv.version === candidate.version,
  );
}
