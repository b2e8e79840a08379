// OCM's admission rule for a ManifestWorkReplicaSet (ocm pkg/work/webhook/v1alpha1/
// manifestworkreplicaset_validating.go): the template's manifests pass the same check as a ManifestWork's.
// placementRefs (at least one, each with a name) are the CRD's to enforce, as in OCM.

import { isPlainObject, type JsonObject } from '../../propagation/json.ts';
import { DEFAULT_MANIFEST_LIMIT, specManifests, validateManifests } from './manifestwork.ts';

/** The 400 BadRequest message for a ManifestWorkReplicaSet, or undefined when it is admitted. */
export function manifestWorkReplicaSetDenial(
  mwrs: JsonObject,
  limit = DEFAULT_MANIFEST_LIMIT,
): string | undefined {
  const spec = isPlainObject(mwrs['spec']) ? mwrs['spec'] : {};
  return validateManifests(specManifests(spec['manifestWorkTemplate']), limit);
}
