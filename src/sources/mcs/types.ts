// The member types the MCS controller reads and writes, and its owner ids.

import { ClusterPropertyType } from '../../api/about/v1alpha1/index.ts';
import { ServiceExportType, ServiceImportType } from '../../api/mcs/v1beta1/index.ts';
import { ExternalDnsEndpointType } from '../../api/multiclusterdns/v1alpha1/types.ts';
import type { WorkOwner } from '../../engine/work.ts';
import { CoreTypes, type ResourceType } from '../../kube/client/index.ts';

export type KindedType = ResourceType & { kind: string };

/** The source name in owner annotations: `mcs:ServiceImport:<ns>/<name>`. */
export const MCS_SOURCE = 'mcs';

export const ServiceType: KindedType = {
  group: '',
  version: 'v1',
  plural: 'services',
  namespaced: true,
  kind: 'Service',
};
export const EndpointSliceType: KindedType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
  namespaced: true,
  kind: 'EndpointSlice',
};
/** ExternalDNS's DNSEndpoint (externaldns.k8s.io/v1alpha1), which each member's ExternalDNS publishes. */
export const DnsEndpointType: KindedType = { ...ExternalDnsEndpointType, kind: 'DNSEndpoint' };
export const NamespaceType: KindedType = CoreTypes.namespaces;

export { ClusterPropertyType, ServiceExportType, ServiceImportType };

/** Every type the controller writes through the engine (each has a managed-label member cache). */
export const WRITTEN_TYPES: readonly KindedType[] = [
  ServiceImportType,
  ServiceType,
  EndpointSliceType,
  DnsEndpointType,
  ClusterPropertyType,
];

/** The owner of one service's member objects. */
export function serviceOwner(namespace: string, name: string): WorkOwner {
  return { source: MCS_SOURCE, kind: 'ServiceImport', namespace, name, uid: '' };
}

/** The owner of the clusterset-wide DNS schema record. */
export const DNS_VERSION_OWNER: WorkOwner = {
  source: MCS_SOURCE,
  kind: 'ClusterSet',
  name: 'dns-version',
  uid: '',
};

/** The owner of the ClusterProperties kubefed-ts writes into one member. */
export function clusterPropertyOwner(cluster: string): WorkOwner {
  return { source: MCS_SOURCE, kind: 'ClusterProperty', name: cluster, uid: '' };
}

/** `namespace/name` of the service whose objects an MCS owner annotation names, or undefined. */
export function serviceKeyOfOwnerId(ownerId: string | undefined): string | undefined {
  const prefix = `${MCS_SOURCE}:ServiceImport:`;
  if (!ownerId?.startsWith(prefix)) return undefined;
  const key = ownerId.slice(prefix.length);
  return key.includes('/') ? key : undefined;
}
