import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { MetaConditionSchema } from '../../policy/v1alpha1/propagationpolicy.ts';
import { StringEnum } from '../../schema-helpers.ts';

// sigs.k8s.io/mcs-api pkg/apis/v1beta1/serviceimport.go and well_known_labels.go (v0.5.2), same JSON.

export const SERVICE_IMPORT_KIND = 'ServiceImport';
export const SERVICE_IMPORT_PLURAL = 'serviceimports';
export const SERVICE_IMPORT_SINGULAR = 'serviceimport';
export const SERVICE_IMPORT_SHORT_NAMES = ['svcim', 'svcimport'] as const;

/** LabelServiceName: on every MCS EndpointSlice, the ServiceImport's name. */
export const LABEL_SERVICE_NAME = 'multicluster.kubernetes.io/service-name';
/** LabelSourceCluster: on every MCS EndpointSlice, the id of the cluster its endpoints are in. */
export const LABEL_SOURCE_CLUSTER = 'multicluster.kubernetes.io/source-cluster';

export const ImportType = { ClusterSetIP: 'ClusterSetIP', Headless: 'Headless' } as const;
export type ImportType = (typeof ImportType)[keyof typeof ImportType];

export const ImportCondition = { Ready: 'Ready' } as const;
export const ImportReason = {
  Ready: 'Ready',
  Pending: 'Pending',
  IPFamilyNotSupported: 'IPFamilyNotSupported',
} as const;

export const ServicePortSchema = Type.Object({
  name: Type.Optional(Type.String({ description: 'Unique within the ports; may be empty for one port.' })),
  protocol: Type.Optional(Type.String({ description: 'TCP, UDP or SCTP; TCP by default.' })),
  appProtocol: Type.Optional(Type.String({ description: 'The application protocol of this port.' })),
  port: Type.Integer({ format: 'int32', description: 'The port exposed by the service.' }),
});
export type ServicePort = Static<typeof ServicePortSchema>;

export const SessionAffinityConfigSchema = Type.Object({
  clientIP: Type.Optional(
    Type.Object({
      timeoutSeconds: Type.Optional(Type.Integer({ format: 'int32' })),
    }),
  ),
});

export const ServiceImportSpecSchema = Type.Object({
  ports: Type.Array(ServicePortSchema, { 'x-kubernetes-list-type': 'atomic' }),
  ips: Type.Optional(
    Type.Array(Type.String(), { maxItems: 2, description: 'The clusterset IP(s), one per IP family.' }),
  ),
  type: StringEnum([ImportType.ClusterSetIP, ImportType.Headless], {
    description: 'ClusterSetIP (a virtual IP) or Headless (endpoints through DNS).',
  }),
  sessionAffinity: Type.Optional(Type.String({ description: 'ClientIP or None.' })),
  sessionAffinityConfig: Type.Optional(SessionAffinityConfigSchema),
  ipFamilies: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  internalTrafficPolicy: Type.Optional(Type.String()),
  trafficDistribution: Type.Optional(Type.String()),
});
export type ServiceImportSpec = Static<typeof ServiceImportSpecSchema>;

export const ServiceImportStatusSchema = Type.Object({
  endpointSliceObjects: Type.Optional(StringEnum(['Present', 'Absent'])),
  clusters: Type.Optional(
    Type.Array(Type.Object({ cluster: Type.String({ description: 'An exporting cluster id.' }) }), {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['cluster'],
    }),
  ),
  conditions: Type.Optional(
    Type.Array(MetaConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
});
export type ServiceImportStatus = Static<typeof ServiceImportStatusSchema>;

export const ServiceImportSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Optional(ServiceImportSpecSchema),
  status: Type.Optional(ServiceImportStatusSchema),
});
export type ServiceImport = Static<typeof ServiceImportSchema>;
