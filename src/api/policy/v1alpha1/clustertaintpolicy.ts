import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { StringEnum } from '../../schema-helpers.ts';
import { ClusterAffinitySchema } from './shared.ts';

// ClusterTaintPolicy (karmada pkg/apis/policy/v1alpha1/taint_types.go): taints added to and removed from
// member clusters when their conditions match. Cluster-scoped, no status. Installing one is how a fleet opts
// in to automatic NoExecute taints (and so to cluster failover); kubefed-ts adds none by itself.

export const CTP_KIND = 'ClusterTaintPolicy';
export const CTP_PLURAL = 'clustertaintpolicies';
export const CTP_SINGULAR = 'clustertaintpolicy';

export const MatchConditionSchema = Type.Object({
  conditionType: Type.String({ description: 'A condition type of the cluster, e.g. Ready.' }),
  operator: StringEnum(['In', 'NotIn'] as const, {
    description: "The condition status's relationship to statusValues: In or NotIn.",
  }),
  statusValues: Type.Array(Type.String(), { description: 'True, False or Unknown.' }),
});
export type MatchCondition = Static<typeof MatchConditionSchema>;

export const PolicyTaintSchema = Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.String()),
  effect: StringEnum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const),
});
export type PolicyTaint = Static<typeof PolicyTaintSchema>;

export const ClusterTaintPolicySpecSchema = Type.Object({
  targetClusters: Type.Optional(
    Type.Object(ClusterAffinitySchema.properties, {
      description: 'The clusters this policy looks after; unset: every cluster.',
    }),
  ),
  addOnConditions: Type.Optional(
    Type.Array(MatchConditionSchema, {
      description: 'All must match for the taints to be added; empty: never added.',
    }),
  ),
  removeOnConditions: Type.Optional(
    Type.Array(MatchConditionSchema, {
      description: 'All must match for the taints to be removed; empty: never removed.',
    }),
  ),
  taints: Type.Array(PolicyTaintSchema, { minItems: 1, description: 'The taints to add or remove.' }),
});
export type ClusterTaintPolicySpec = Static<typeof ClusterTaintPolicySpecSchema>;

export const ClusterTaintPolicySchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: ClusterTaintPolicySpecSchema,
});
export type ClusterTaintPolicy = Static<typeof ClusterTaintPolicySchema>;
