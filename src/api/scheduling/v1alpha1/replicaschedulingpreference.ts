import { type Static, Type } from 'typebox';
import type { ResourceType } from '../../../kube/client/index.ts';
import { ObjectMetaSchema } from '../../meta.ts';
import { DateTime, Int64 } from '../../schema-helpers.ts';
import { GROUP, VERSION } from './group.ts';

export const RSP_KIND = 'ReplicaSchedulingPreference';
export const RSP_LIST_KIND = 'ReplicaSchedulingPreferenceList';
export const RSP_PLURAL = 'replicaschedulingpreferences';
export const RSP_SINGULAR = 'replicaschedulingpreference';
export const RSP_SHORT_NAMES = ['rsp'] as const;

/** The only federated kinds an RSP can schedule (KubeFed registers deployments.apps and replicasets.apps). */
export const RSP_TARGET_KINDS = ['FederatedDeployment', 'FederatedReplicaSet'] as const;
export type RspTargetKind = (typeof RSP_TARGET_KINDS)[number];

/** Status condition written by the RSP controller (kubefed-ts addition). */
export const RSP_CONDITION_SCHEDULED = 'Scheduled';

// No minimum/enum constraints anywhere in the spec: like KubeFed's CRD, bad values are accepted by the
// API server so the controller can report them in status and events instead of the user seeing a
// bare admission error (issue 4 asks for a clear status for bad input).
export const ClusterPreferencesSchema = Type.Object(
  {
    minReplicas: Type.Optional(Int64('Minimum number of replicas for this cluster. 0 by default.')),
    maxReplicas: Type.Optional(
      Int64('Maximum number of replicas for this cluster. Unbounded if no value is provided (default).'),
    ),
    weight: Type.Optional(
      Int64('How strongly an additional replica is preferred in this cluster. 0 by default.'),
    ),
  },
  { description: 'Replica preferences for the workload object in one cluster.' },
);
export type ClusterPreferencesSpec = Static<typeof ClusterPreferencesSchema>;

export const ReplicaSchedulingPreferenceSpecSchema = Type.Object(
  {
    targetKind: Type.String({
      description:
        'Kind of the federated object with the same namespace/name as this RSP: FederatedDeployment ' +
        'or FederatedReplicaSet.',
    }),
    totalReplicas: Type.Integer({
      format: 'int32',
      description: 'Total number of replicas to spread over the clusters.',
    }),
    rebalance: Type.Optional(
      Type.Boolean({
        description:
          'If true, running replicas may be moved to other clusters to match the preferences. If false ' +
          '(default), replicas already running in a cluster are kept there when possible.',
      }),
    ),
    intersectWithClusterSelector: Type.Optional(
      Type.Boolean({
        description:
          "If true, the candidate clusters are the ready clusters matching the federated object's " +
          'spec.placement.clusterSelector, instead of all ready clusters.',
      }),
    ),
    clusters: Type.Optional(
      Type.Record(Type.String(), ClusterPreferencesSchema, {
        description:
          'Preferences by cluster name. "*" applies to every cluster without an entry of its own. A ' +
          'cluster with neither gets no replicas. Empty or absent means {"*": {weight: 1}}.',
      }),
    ),
  },
  { description: 'ReplicaSchedulingPreferenceSpec defines how replicas are spread over clusters.' },
);
export type ReplicaSchedulingPreferenceSpec = Static<typeof ReplicaSchedulingPreferenceSpecSchema>;

export const RspConditionSchema = Type.Object(
  {
    type: Type.String({ description: 'Scheduled.' }),
    status: Type.String({ description: 'True, False or Unknown.' }),
    reason: Type.Optional(Type.String({ description: 'Machine-readable reason for the last transition.' })),
    message: Type.Optional(Type.String({ description: 'Human-readable details.' })),
    lastTransitionTime: Type.Optional(DateTime('Last time the condition changed status.')),
  },
  { description: 'A condition of a ReplicaSchedulingPreference.' },
);
export type RspCondition = Static<typeof RspConditionSchema>;

const ReplicaCountMap = (description: string) =>
  Type.Record(Type.String(), Type.Integer({ format: 'int64' }), { description });

// KubeFed's status was empty; this is what `kubectl get rsp` shows.
export const ReplicaSchedulingPreferenceStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64('The metadata.generation of the spec last scheduled.')),
    scheduledAt: Type.Optional(DateTime('When the replicas were last planned.')),
    clusters: Type.Optional(
      Type.Array(Type.String(), { description: 'The candidate clusters of the last plan.' }),
    ),
    replicas: Type.Optional(
      ReplicaCountMap('Replicas written to each cluster by the last plan (planned plus overflow).'),
    ),
    overflow: Type.Optional(
      ReplicaCountMap('Replicas requested beyond the capacity of a cluster (also placed elsewhere).'),
    ),
    totalScheduled: Type.Optional(Type.Integer({ format: 'int64', description: 'Sum of status.replicas.' })),
    conditions: Type.Optional(Type.Array(RspConditionSchema, { description: 'Current conditions.' })),
  },
  { description: 'ReplicaSchedulingPreferenceStatus records the last plan (a kubefed-ts addition).' },
);
export type ReplicaSchedulingPreferenceStatus = Static<typeof ReplicaSchedulingPreferenceStatusSchema>;

export const ReplicaSchedulingPreferenceSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    // Required like KubeFedCluster's: an RSP without a spec means nothing (KubeFed's Go type always had one).
    spec: ReplicaSchedulingPreferenceSpecSchema,
    status: Type.Optional(ReplicaSchedulingPreferenceStatusSchema),
  },
  {
    description:
      'ReplicaSchedulingPreference spreads the replicas of the FederatedDeployment or ' +
      'FederatedReplicaSet with the same namespace/name over the member clusters.',
  },
);
export type ReplicaSchedulingPreference = Static<typeof ReplicaSchedulingPreferenceSchema>;

export const ReplicaSchedulingPreferenceType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: RSP_PLURAL,
  namespaced: true,
  kind: RSP_KIND,
};
