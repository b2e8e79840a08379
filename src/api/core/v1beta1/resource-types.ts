import type { ResourceType } from '../../../kube/client/index.ts';
import type { APIResource } from './federatedtypeconfig.ts';
import { FEDERATED_TYPE_CONFIG_KIND, FEDERATED_TYPE_CONFIG_PLURAL } from './federatedtypeconfig.ts';
import { GROUP, VERSION } from './group.ts';
import { KUBEFED_CLUSTER_KIND, KUBEFED_CLUSTER_PLURAL } from './kubefedcluster.ts';
import { KUBEFED_CONFIG_KIND, KUBEFED_CONFIG_PLURAL } from './kubefedconfig.ts';

/** REST locations of the core.kubefed.io kinds, for controllers and kubefedctl alike. */
export const KubeFedClusterType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: KUBEFED_CLUSTER_PLURAL,
  namespaced: true,
  kind: KUBEFED_CLUSTER_KIND,
};

export const KubeFedConfigType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: KUBEFED_CONFIG_PLURAL,
  namespaced: true,
  kind: KUBEFED_CONFIG_KIND,
};

export const FederatedTypeConfigType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: FEDERATED_TYPE_CONFIG_PLURAL,
  namespaced: true,
  kind: FEDERATED_TYPE_CONFIG_KIND,
};

/** The REST location of an FTC's targetType or federatedType. */
export function resourceTypeOf(r: APIResource): ResourceType {
  return {
    group: r.group ?? '',
    version: r.version,
    plural: r.pluralName,
    namespaced: r.scope === 'Namespaced',
    kind: r.kind,
  };
}
