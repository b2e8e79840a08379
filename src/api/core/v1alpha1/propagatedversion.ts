import { type Static, Type } from 'typebox';
import type { ResourceType } from '../../../kube/client/index.ts';
import { ObjectMetaSchema } from '../../meta.ts';
import { GROUP, VERSION } from './group.ts';

export const PROPAGATED_VERSION_KIND = 'PropagatedVersion';
export const PROPAGATED_VERSION_PLURAL = 'propagatedversions';
export const PROPAGATED_VERSION_SINGULAR = 'propagatedversion';
export const CLUSTER_PROPAGATED_VERSION_KIND = 'ClusterPropagatedVersion';
export const CLUSTER_PROPAGATED_VERSION_PLURAL = 'clusterpropagatedversions';
export const CLUSTER_PROPAGATED_VERSION_SINGULAR = 'clusterpropagatedversion';

export const ClusterObjectVersionSchema = Type.Object({
  clusterName: Type.String({ description: 'Name of the member cluster.' }),
  version: Type.String({
    description: 'gen:<generation> or rv:<resourceVersion> of the member object last written.',
  }),
});

export const PropagatedVersionStatusSchema = Type.Object(
  {
    templateVersion: Type.String({ description: 'Hash of the template last propagated.' }),
    overridesVersion: Type.String({ description: 'Hash of the overrides last propagated.' }),
    clusterVersions: Type.Optional(Type.Array(ClusterObjectVersionSchema)),
  },
  { description: 'What the sync controller last wrote to each member cluster.' },
);
export type PropagatedVersionStatusObject = Static<typeof PropagatedVersionStatusSchema>;

export const PropagatedVersionSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    spec: Type.Optional(Type.Object({})),
    status: Type.Optional(PropagatedVersionStatusSchema),
  },
  {
    description:
      'PropagatedVersion records the versions of the member objects written for one federated object ' +
      '(internal to the sync controller).',
  },
);

export const PropagatedVersionType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: PROPAGATED_VERSION_PLURAL,
  namespaced: true,
  kind: PROPAGATED_VERSION_KIND,
};

export const ClusterPropagatedVersionType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: CLUSTER_PROPAGATED_VERSION_PLURAL,
  namespaced: false,
  kind: CLUSTER_PROPAGATED_VERSION_KIND,
};
