import { type Static, Type } from 'typebox';
import type { KubeObject } from '../../../../kube/client/types.ts';
import { ObjectMetaSchema } from '../../../meta.ts';
import { MetaConditionSchema } from '../../../policy/v1alpha1/propagationpolicy.ts';
import { LabelSelectorSchema } from '../../../policy/v1alpha1/shared.ts';

// OCM's cluster.open-cluster-management.io/v1beta1 Placement and PlacementDecision
// (open-cluster-management-io/api cluster/v1beta1/types_placement.go, types_placementdecision.go): the fields a
// ManifestWorkReplicaSet reads, and the predicates kubefed-ts's placement controller decides from.

export const GROUP = 'cluster.open-cluster-management.io';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
export const PLACEMENT_KIND = 'Placement';
export const PLACEMENT_PLURAL = 'placements';
export const PLACEMENT_SINGULAR = 'placement';
export const PLACEMENT_DECISION_KIND = 'PlacementDecision';
export const PLACEMENT_DECISION_PLURAL = 'placementdecisions';
export const PLACEMENT_DECISION_SINGULAR = 'placementdecision';

/** PlacementLabel: on each PlacementDecision, the name of its Placement. */
export const PLACEMENT_LABEL = 'cluster.open-cluster-management.io/placement';
export const DECISION_GROUP_INDEX_LABEL = 'cluster.open-cluster-management.io/decision-group-index';
export const DECISION_GROUP_NAME_LABEL = 'cluster.open-cluster-management.io/decision-group-name';
/** The scheduler's limit of decisions per PlacementDecision (scheduling_controller.go maxNumOfClusterDecisions). */
export const MAX_DECISIONS_PER_OBJECT = 100;

const Open = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
});

export const ClusterPredicateSchema = Type.Object({
  requiredClusterSelector: Type.Optional(
    Type.Object({
      labelSelector: Type.Optional(LabelSelectorSchema),
      claimSelector: Type.Optional(Open),
      celSelector: Type.Optional(Open),
    }),
  ),
});

export const PlacementSpecSchema = Type.Object({
  clusterSets: Type.Optional(Type.Array(Type.String())),
  numberOfClusters: Type.Optional(Type.Integer({ format: 'int32' })),
  predicates: Type.Optional(Type.Array(ClusterPredicateSchema)),
  prioritizerPolicy: Type.Optional(Open),
  spreadPolicy: Type.Optional(Open),
  tolerations: Type.Optional(Type.Array(Open)),
  decisionStrategy: Type.Optional(
    Type.Object({
      groupStrategy: Type.Optional(
        Type.Object({
          decisionGroups: Type.Optional(
            Type.Array(
              Type.Object({
                groupName: Type.String(),
                groupClusterSelector: Type.Optional(
                  Type.Object({ labelSelector: Type.Optional(LabelSelectorSchema) }),
                ),
              }),
            ),
          ),
          clustersPerDecisionGroup: Type.Optional(
            Type.Unsafe<string | number>({ 'x-kubernetes-int-or-string': true }),
          ),
        }),
      ),
    }),
  ),
  // kubefed-ts addition: KubeFed's placement (clusters by name, or a clusterSelector on KubeFedCluster
  // labels), for users who already think in FederatedX placements.
  placement: Type.Optional(
    Type.Object({
      clusters: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
      clusterSelector: Type.Optional(LabelSelectorSchema),
    }),
  ),
});
export type PlacementSpec = Static<typeof PlacementSpecSchema>;

export const PlacementSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Optional(PlacementSpecSchema),
  status: Type.Optional(
    Type.Object({
      numberOfSelectedClusters: Type.Optional(Type.Integer({ format: 'int32' })),
      decisionGroups: Type.Optional(
        Type.Array(
          Type.Object({
            decisionGroupIndex: Type.Optional(Type.Integer()),
            decisionGroupName: Type.Optional(Type.String()),
            decisions: Type.Optional(Type.Array(Type.String())),
            clusterCount: Type.Optional(Type.Integer()),
          }),
        ),
      ),
      conditions: Type.Optional(Type.Array(MetaConditionSchema)),
    }),
  ),
});
export type Placement = Static<typeof PlacementSchema> & KubeObject;

/** The schema OCM's Placement CRD serves: `spec` is required at the root. */
export const PlacementCrdSchema = Type.Object({
  ...PlacementSchema.properties,
  spec: PlacementSpecSchema,
});

export const ClusterDecisionSchema = Type.Object({
  clusterName: Type.String(),
  reason: Type.String(),
  score: Type.Optional(Type.Integer({ format: 'int32' })),
});
export type ClusterDecision = Static<typeof ClusterDecisionSchema>;

export const PlacementDecisionSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  status: Type.Optional(Type.Object({ decisions: Type.Array(ClusterDecisionSchema) })),
});
export type PlacementDecision = Static<typeof PlacementDecisionSchema> & KubeObject;
