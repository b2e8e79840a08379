// The REST types of OCM's ManifestWork (work/v1) and ManifestWorkReplicaSet (work/v1alpha1).
import * as work from '../../../api/ocm/work/v1/index.ts';
import * as alpha from '../../../api/ocm/work/v1alpha1/index.ts';
import type { ResourceType } from '../../../kube/client/index.ts';

export const ManifestWorkType: ResourceType = {
  group: work.GROUP,
  version: work.VERSION,
  plural: work.MW_PLURAL,
  namespaced: true,
  kind: work.MW_KIND,
};

export const ManifestWorkReplicaSetType: ResourceType = {
  group: alpha.GROUP,
  version: alpha.VERSION,
  plural: alpha.MWRS_PLURAL,
  namespaced: true,
  kind: alpha.MWRS_KIND,
};
