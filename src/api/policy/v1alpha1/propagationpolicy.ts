import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { DateTime, Int64, StringEnum } from '../../schema-helpers.ts';
import { ClusterAffinitySchema, ResourceSelectorSchema } from './shared.ts';

// PropagationPolicy and ClusterPropagationPolicy (karmada pkg/apis/policy/v1alpha1/propagation_types.go):
// the same JSON fields, enums and defaults. Enumerations are left open in the CRD where Karmada's webhook,
// not its schema, rejects bad values, so that kubefed-ts's webhook can say why in Karmada's words.

export const PP_KIND = 'PropagationPolicy';
export const PP_PLURAL = 'propagationpolicies';
export const PP_SINGULAR = 'propagationpolicy';
export const PP_SHORT_NAMES = ['pp'] as const;
export const CPP_KIND = 'ClusterPropagationPolicy';
export const CPP_PLURAL = 'clusterpropagationpolicies';
export const CPP_SINGULAR = 'clusterpropagationpolicy';
export const CPP_SHORT_NAMES = ['cpp'] as const;

export const TolerationSchema = Type.Object(
  {
    key: Type.Optional(Type.String()),
    operator: Type.Optional(Type.String({ description: 'Exists or Equal (default).' })),
    value: Type.Optional(Type.String()),
    effect: Type.Optional(
      Type.String({ description: 'NoSchedule, PreferNoSchedule or NoExecute; empty: all.' }),
    ),
    tolerationSeconds: Type.Optional(Int64('How long a NoExecute taint is tolerated.')),
  },
  { description: 'corev1.Toleration, matched against cluster taints.' },
);
export type Toleration = Static<typeof TolerationSchema>;

export const ClusterAffinityTermSchema = Type.Object({
  affinityName: Type.String({ description: 'Name of this cluster group (1-32 characters, a label key).' }),
  ...ClusterAffinitySchema.properties,
  overflowAffinities: Type.Optional(
    Type.Array(
      Type.Object({
        affinityName: Type.String(),
        ...ClusterAffinitySchema.properties,
      }),
    ),
  ),
});
export type ClusterAffinityTerm = Static<typeof ClusterAffinityTermSchema>;

export const SpreadConstraintSchema = Type.Object({
  spreadByField: Type.Optional(StringEnum(['cluster', 'region', 'zone', 'provider'] as const)),
  spreadByLabel: Type.Optional(Type.String()),
  maxGroups: Type.Optional(Type.Integer()),
  minGroups: Type.Optional(Type.Integer()),
});
export type SpreadConstraint = Static<typeof SpreadConstraintSchema>;

export const StaticClusterWeightSchema = Type.Object({
  targetCluster: ClusterAffinitySchema,
  weight: Int64('Weight of the clusters targetCluster selects (>= 1).'),
});
export type StaticClusterWeight = Static<typeof StaticClusterWeightSchema>;

export const ReplicaSchedulingStrategySchema = Type.Object({
  replicaSchedulingType: Type.Optional(
    StringEnum(['Duplicated', 'Divided'] as const, { description: 'Default Divided.', default: 'Divided' }),
  ),
  replicaDivisionPreference: Type.Optional(StringEnum(['Aggregated', 'Weighted'] as const)),
  weightPreference: Type.Optional(
    Type.Object({
      staticWeightList: Type.Optional(Type.Array(StaticClusterWeightSchema)),
      dynamicWeight: Type.Optional(StringEnum(['AvailableReplicas'] as const)),
    }),
  ),
});
export type ReplicaSchedulingStrategy = Static<typeof ReplicaSchedulingStrategySchema>;

export const PlacementSchema = Type.Object(
  {
    clusterAffinity: Type.Optional(ClusterAffinitySchema),
    clusterAffinities: Type.Optional(Type.Array(ClusterAffinityTermSchema)),
    clusterTolerations: Type.Optional(Type.Array(TolerationSchema)),
    spreadConstraints: Type.Optional(Type.Array(SpreadConstraintSchema)),
    replicaScheduling: Type.Optional(ReplicaSchedulingStrategySchema),
    workloadAffinity: Type.Optional(
      Type.Object({
        affinity: Type.Optional(Type.Object({ groupByLabelKey: Type.String() })),
        antiAffinity: Type.Optional(Type.Object({ groupByLabelKey: Type.String() })),
      }),
    ),
  },
  { description: 'Placement represents the rule for selecting clusters.' },
);
export type Placement = Static<typeof PlacementSchema>;

const StatePreservationSchema = Type.Object({
  rules: Type.Array(Type.Object({ aliasLabelName: Type.String(), jsonPath: Type.String() })),
});

export const FailoverBehaviorSchema = Type.Object({
  application: Type.Optional(
    Type.Object({
      decisionConditions: Type.Object({
        tolerationSeconds: Type.Optional(Type.Integer({ format: 'int32', default: 300 })),
      }),
      purgeMode: Type.Optional(
        StringEnum(['Directly', 'Gracefully', 'Never', 'Immediately', 'Graciously'] as const, {
          default: 'Gracefully',
        }),
      ),
      gracePeriodSeconds: Type.Optional(Type.Integer({ format: 'int32' })),
      statePreservation: Type.Optional(StatePreservationSchema),
    }),
  ),
  cluster: Type.Optional(
    Type.Object({
      purgeMode: Type.Optional(StringEnum(['Directly', 'Gracefully'] as const, { default: 'Gracefully' })),
      statePreservation: Type.Optional(StatePreservationSchema),
    }),
  ),
});
export type FailoverBehavior = Static<typeof FailoverBehaviorSchema>;

export const SuspensionSchema = Type.Object({
  dispatching: Type.Optional(Type.Boolean({ description: 'Stop dispatching to every cluster.' })),
  dispatchingOnClusters: Type.Optional(
    Type.Object({ clusterNames: Type.Optional(Type.Array(Type.String())) }),
  ),
});
export type Suspension = Static<typeof SuspensionSchema>;

export const ConflictResolution = { Abort: 'Abort', Overwrite: 'Overwrite' } as const;
export type ConflictResolution = (typeof ConflictResolution)[keyof typeof ConflictResolution];

export const PropagationSpecSchema = Type.Object({
  resourceSelectors: Type.Array(ResourceSelectorSchema, { minItems: 1 }),
  association: Type.Optional(Type.Boolean({ description: 'Deprecated: use propagateDeps.' })),
  propagateDeps: Type.Optional(Type.Boolean()),
  placement: Type.Optional(PlacementSchema),
  priority: Type.Optional(Type.Integer({ format: 'int32', default: 0 })),
  preemption: Type.Optional(
    StringEnum(['Always', 'Never'] as const, { description: 'Default Never.', default: 'Never' }),
  ),
  dependentOverrides: Type.Optional(Type.Array(Type.String())),
  schedulerName: Type.Optional(
    Type.String({ description: 'Default default-scheduler; immutable.', default: 'default-scheduler' }),
  ),
  failover: Type.Optional(FailoverBehaviorSchema),
  conflictResolution: Type.Optional(
    StringEnum(['Abort', 'Overwrite'] as const, { description: 'Default Abort.', default: 'Abort' }),
  ),
  activationPreference: Type.Optional(StringEnum(['Lazy'] as const)),
  suspension: Type.Optional(SuspensionSchema),
  preserveResourcesOnDeletion: Type.Optional(Type.Boolean()),
  schedulePriority: Type.Optional(
    Type.Object({
      priorityClassSource: Type.Optional(Type.String()),
      priorityClassName: Type.String(),
    }),
  ),
});
export type PropagationSpec = Static<typeof PropagationSpecSchema>;

/** metav1.Condition. */
export const MetaConditionSchema = Type.Object({
  type: Type.String(),
  status: Type.String({ description: 'True, False or Unknown.' }),
  observedGeneration: Type.Optional(Int64('Generation the condition was set for.')),
  lastTransitionTime: DateTime('When the status last changed.'),
  reason: Type.String(),
  message: Type.String(),
});
export type MetaCondition = Static<typeof MetaConditionSchema>;

/**
 * Policy status: a kubefed-ts addition (Karmada's policies have none, karmada#4048) saying which templates
 * the policy claims, so "why is my Deployment not propagated" has an answer on the policy itself.
 */
export const PolicyStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Int64('Generation of the spec this status describes.')),
  conditions: Type.Optional(Type.Array(MetaConditionSchema)),
  claimedResources: Type.Optional(
    Type.Array(
      Type.Object({
        apiVersion: Type.String(),
        kind: Type.String(),
        namespace: Type.Optional(Type.String()),
        name: Type.String(),
      }),
      { description: 'Templates this policy claims (at most 100 listed; see claimedCount).' },
    ),
  ),
  claimedCount: Type.Optional(Type.Integer({ description: 'How many templates this policy claims.' })),
});
export type PolicyStatus = Static<typeof PolicyStatusSchema>;

export const PropagationPolicySchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: PropagationSpecSchema,
  status: Type.Optional(PolicyStatusSchema),
});
export type PropagationPolicy = Static<typeof PropagationPolicySchema>;
export type ClusterPropagationPolicy = PropagationPolicy;
