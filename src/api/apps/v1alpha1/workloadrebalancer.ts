import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { DateTime, Int64 } from '../../schema-helpers.ts';

// WorkloadRebalancer (karmada pkg/apis/apps/v1alpha1/workloadrebalancer_types.go): a one-off fresh
// reschedule of the named workloads. Cluster-scoped; the controller stamps each workload's binding with
// spec.rescheduleTriggeredAt and reports per workload.

export const GROUP = 'apps.karmada.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
export const WR_KIND = 'WorkloadRebalancer';
export const WR_PLURAL = 'workloadrebalancers';
export const WR_SINGULAR = 'workloadrebalancer';

export const RebalanceResult = { Successful: 'Successful', Failed: 'Failed' } as const;
export const RebalanceFailedReason = { ReferencedBindingNotFound: 'ReferencedBindingNotFound' } as const;

export const WorkloadReferenceSchema = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  namespace: Type.Optional(Type.String({ description: 'Empty for a cluster-scoped workload.' })),
});
export type WorkloadReference = Static<typeof WorkloadReferenceSchema>;

export const ObservedWorkloadSchema = Type.Object({
  workload: WorkloadReferenceSchema,
  result: Type.Optional(Type.String({ description: 'Successful or Failed.' })),
  reason: Type.Optional(Type.String({ description: 'Why it failed: ReferencedBindingNotFound.' })),
});
export type ObservedWorkload = Static<typeof ObservedWorkloadSchema>;

export const WorkloadRebalancerSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Object({
    workloads: Type.Array(WorkloadReferenceSchema, { minItems: 1 }),
    ttlSecondsAfterFinished: Type.Optional(
      Type.Integer({ format: 'int32', description: 'Delete the rebalancer this long after it finished.' }),
    ),
  }),
  status: Type.Optional(
    Type.Object({
      observedWorkloads: Type.Optional(Type.Array(ObservedWorkloadSchema)),
      observedGeneration: Type.Optional(Int64('Generation last acted on.')),
      finishTime: Type.Optional(DateTime('When every workload was rebalanced.')),
    }),
  ),
});
export type WorkloadRebalancer = Static<typeof WorkloadRebalancerSchema>;
