import { type Static, Type } from 'typebox';
import type { ResourceType } from '../../../kube/client/index.ts';
import { ObjectMetaSchema } from '../../meta.ts';

// sigs.k8s.io/about-api pkg/apis/v1alpha1/clusterproperty_types.go: a cluster-scoped name → value.

export const CLUSTER_PROPERTY_KIND = 'ClusterProperty';
export const CLUSTER_PROPERTY_PLURAL = 'clusterproperties';
export const CLUSTER_PROPERTY_SINGULAR = 'clusterproperty';

/** KEP-2149's well-known property: this cluster's id within its clusterset (an RFC 1123 label, or `<label>.<label>`). */
export const CLUSTER_ID_PROPERTY = 'cluster.clusterset.k8s.io';
/** The older name of the cluster id property (KEP-1645's specification.md still says `id.k8s.io`). */
export const LEGACY_CLUSTER_ID_PROPERTY = 'id.k8s.io';
/** KEP-2149's well-known property: the name of the clusterset this cluster belongs to. */
export const CLUSTERSET_PROPERTY = 'clusterset.k8s.io';

export const ClusterPropertySchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Object({
    value: Type.String({ minLength: 1, maxLength: 128 * 1024, description: 'The property value.' }),
  }),
});
export type ClusterProperty = Static<typeof ClusterPropertySchema>;

export const ClusterPropertyType: ResourceType & { kind: string } = {
  group: 'about.k8s.io',
  version: 'v1alpha1',
  plural: CLUSTER_PROPERTY_PLURAL,
  namespaced: false,
  kind: CLUSTER_PROPERTY_KIND,
};
