import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import {
  FailoverBehaviorSchema,
  MetaConditionSchema,
  PlacementSchema,
  SuspensionSchema,
} from '../../policy/v1alpha1/propagationpolicy.ts';
import { DateTime, Int64 } from '../../schema-helpers.ts';

// ResourceBinding and ClusterResourceBinding (karmada pkg/apis/work/v1alpha2/binding_types.go), same JSON.

export const RB_KIND = 'ResourceBinding';
export const RB_PLURAL = 'resourcebindings';
export const RB_SINGULAR = 'resourcebinding';
export const RB_SHORT_NAMES = ['rb'] as const;
export const CRB_KIND = 'ClusterResourceBinding';
export const CRB_PLURAL = 'clusterresourcebindings';
export const CRB_SINGULAR = 'clusterresourcebinding';
export const CRB_SHORT_NAMES = ['crb'] as const;

/** Condition types and reasons (binding_types.go, pkg/scheduler). */
export const BindingCondition = { Scheduled: 'Scheduled', FullyApplied: 'FullyApplied' } as const;
export const BindingReason = {
  Success: 'Success',
  SchedulerError: 'SchedulerError',
  NoClusterFit: 'NoClusterFit',
  Unschedulable: 'Unschedulable',
  FullyAppliedSuccess: 'FullyAppliedSuccess',
  FullyAppliedFailed: 'FullyAppliedFailed',
} as const;

export const ObjectReferenceSchema = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  namespace: Type.Optional(Type.String()),
  name: Type.String(),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
});
export type BindingObjectReference = Static<typeof ObjectReferenceSchema>;

const ResourceList = Type.Record(
  Type.String(),
  Type.Unsafe<string | number>({ 'x-kubernetes-int-or-string': true }),
);

export const ReplicaRequirementsSchema = Type.Object({
  nodeClaim: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  ),
  resourceRequest: Type.Optional(ResourceList),
  namespace: Type.Optional(Type.String()),
  priorityClassName: Type.Optional(Type.String()),
});
export type ReplicaRequirements = Static<typeof ReplicaRequirementsSchema>;

export const TargetClusterSchema = Type.Object({
  name: Type.String(),
  replicas: Type.Optional(Type.Integer({ format: 'int32' })),
});
export type TargetCluster = Static<typeof TargetClusterSchema>;

/** Why a cluster is being evicted from a binding (binding_types.go EvictionReason*). */
export const EvictionReason = {
  TaintUntolerated: 'TaintUntolerated',
  ApplicationFailure: 'ApplicationFailure',
} as const;

/** Who added an eviction task (binding_types.go EvictionProducer*, the controller names). */
export const EvictionProducer = {
  TaintManager: 'TaintManager',
  ApplicationFailover: 'resource-binding-application-failover-controller',
} as const;

// GracefulEvictionTask (binding_types.go): the old copy in fromCluster is kept until the replacement is
// available, the grace period ends, or (purgeMode Directly) at once.
export const GracefulEvictionTaskSchema = Type.Object({
  fromCluster: Type.String({ description: 'The cluster being evicted from.' }),
  purgeMode: Type.Optional(
    Type.String({ description: 'Directly, Gracefully or Never (Immediately, Graciously: deprecated).' }),
  ),
  replicas: Type.Optional(Type.Integer({ format: 'int32', description: 'Replicas the cluster held.' })),
  reason: Type.String({ description: 'TaintUntolerated or ApplicationFailure (CamelCase, <= 32).' }),
  message: Type.Optional(Type.String({ description: 'Details (<= 1024 characters).' })),
  producer: Type.String({ description: 'The controller that added the task.' }),
  gracePeriodSeconds: Type.Optional(Type.Integer({ format: 'int32' })),
  suppressDeletion: Type.Optional(Type.Boolean()),
  preservedLabelState: Type.Optional(Type.Record(Type.String(), Type.String())),
  clustersBeforeFailover: Type.Optional(Type.Array(Type.String())),
  creationTimestamp: Type.Optional(DateTime('When the task was added.')),
});
export type GracefulEvictionTask = Static<typeof GracefulEvictionTaskSchema>;

export const ResourceBindingSpecSchema = Type.Object({
  resource: ObjectReferenceSchema,
  propagateDeps: Type.Optional(Type.Boolean()),
  replicaRequirements: Type.Optional(ReplicaRequirementsSchema),
  replicas: Type.Optional(Type.Integer({ format: 'int32' })),
  clusters: Type.Optional(Type.Array(TargetClusterSchema)),
  placement: Type.Optional(PlacementSchema),
  gracefulEvictionTasks: Type.Optional(Type.Array(GracefulEvictionTaskSchema)),
  requiredBy: Type.Optional(
    Type.Array(
      Type.Object({
        namespace: Type.Optional(Type.String()),
        name: Type.String(),
        clusters: Type.Optional(Type.Array(TargetClusterSchema)),
      }),
    ),
  ),
  schedulerName: Type.Optional(Type.String()),
  failover: Type.Optional(FailoverBehaviorSchema),
  conflictResolution: Type.Optional(Type.String()),
  rescheduleTriggeredAt: Type.Optional(
    DateTime('Forces a fresh schedule when later than lastScheduledTime.'),
  ),
  suspension: Type.Optional(
    Type.Object({ ...SuspensionSchema.properties, scheduling: Type.Optional(Type.Boolean()) }),
  ),
  preserveResourcesOnDeletion: Type.Optional(Type.Boolean()),
  schedulePriority: Type.Optional(
    Type.Object({ priority: Type.Optional(Type.Integer({ format: 'int32' })) }),
  ),
});
export type ResourceBindingSpec = Static<typeof ResourceBindingSpecSchema>;

export const AggregatedStatusItemSchema = Type.Object({
  clusterName: Type.String(),
  status: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  ),
  applied: Type.Optional(Type.Boolean()),
  appliedMessage: Type.Optional(Type.String()),
  health: Type.Optional(Type.String({ description: 'Healthy, Unhealthy or Unknown.' })),
});
export type AggregatedStatusItem = Static<typeof AggregatedStatusItemSchema>;

export const ResourceBindingStatusSchema = Type.Object({
  schedulerObservedGeneration: Type.Optional(Int64('Generation the scheduler last acted on.')),
  schedulerObservingAffinityName: Type.Optional(Type.String()),
  lastScheduledTime: Type.Optional(DateTime('When the binding was last scheduled.')),
  conditions: Type.Optional(Type.Array(MetaConditionSchema)),
  aggregatedStatus: Type.Optional(Type.Array(AggregatedStatusItemSchema)),
});
export type ResourceBindingStatus = Static<typeof ResourceBindingStatusSchema>;

export const ResourceBindingSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: ResourceBindingSpecSchema,
  status: Type.Optional(ResourceBindingStatusSchema),
});
export type ResourceBinding = Static<typeof ResourceBindingSchema>;
export type ClusterResourceBinding = ResourceBinding;
