import { type Static, Type } from 'typebox';
import type { KubeObject } from '../../../../kube/client/types.ts';
import { ObjectMetaSchema } from '../../../meta.ts';
import { MetaConditionSchema } from '../../../policy/v1alpha1/propagationpolicy.ts';
import { StringEnum } from '../../../schema-helpers.ts';
import { ManifestWorkSpecSchema } from '../v1/manifestwork.ts';

// OCM's work.open-cluster-management.io/v1alpha1 ManifestWorkReplicaSet
// (open-cluster-management-io/api work/v1alpha1/types_manifestworkreplicaset.go) and the rollout strategy it
// carries (cluster/v1alpha1/types_rolloutstrategy.go), same JSON.

export const GROUP = 'work.open-cluster-management.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
export const MWRS_KIND = 'ManifestWorkReplicaSet';
export const MWRS_PLURAL = 'manifestworkreplicasets';
export const MWRS_SINGULAR = 'manifestworkreplicaset';
export const MWRS_SHORT_NAMES = ['mwrs'] as const;

/** ManifestWorkReplicaSetFinalizer. */
export const MWRS_FINALIZER = 'work.open-cluster-management.io/manifest-work-cleanup';
/** ManifestWorkReplicaSetControllerNameLabelKey: `<mwrs-namespace>.<mwrs-name>` on every generated MW. */
export const MWRS_LABEL = 'work.open-cluster-management.io/manifestworkreplicaset';
/** ManifestWorkReplicaSetPlacementNameLabelKey. */
export const MWRS_PLACEMENT_LABEL = 'work.open-cluster-management.io/placementname';

export const MwrsCondition = {
  PlacementVerified: 'PlacementVerified',
  PlacementRolledOut: 'PlacementRolledOut',
  ManifestworkApplied: 'ManifestworkApplied',
} as const;
export const MwrsReason = {
  AsExpected: 'AsExpected',
  PlacementDecisionNotFound: 'PlacementDecisionNotFound',
  PlacementDecisionEmpty: 'PlacementDecisionEmpty',
  NotAsExpected: 'NotAsExpected',
  Progressing: 'Progressing',
  Complete: 'Complete',
  Processing: 'Processing',
} as const;

/** An int-or-string count or percentage, as OCM's CRD writes it (`^((100|[0-9]{1,2})%|[0-9]+)$`). */
const CountOrPercent = (options: { default?: number; description?: string } = {}) =>
  Type.Unsafe<string | number>({
    ...options,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: '^((100|[0-9]{1,2})%|[0-9]+)$',
    'x-kubernetes-int-or-string': true,
  });

export const RolloutConfigSchema = {
  minSuccessTime: Type.Optional(
    Type.String({ default: '0', description: 'Soak time after success, e.g. 2h, 90m, 360s.' }),
  ),
  progressDeadline: Type.Optional(
    Type.String({
      pattern: '^(([0-9])+[h|m|s])|None$',
      default: 'None',
      description: 'How long to wait for success; None waits forever.',
    }),
  ),
  maxFailures: Type.Optional(
    CountOrPercent({
      default: 0,
      description: 'Clusters (or percent) that may fail before the rollout stops.',
    }),
  ),
};
const MandatoryDecisionGroupsSchema = Type.Optional(
  Type.Array(
    Type.Object({
      groupName: Type.Optional(Type.String()),
      groupIndex: Type.Optional(Type.Integer({ format: 'int32' })),
    }),
  ),
);

export const RolloutTypes = ['All', 'Progressive', 'ProgressivePerGroup'] as const;
export const RolloutStrategySchema = Type.Object({
  type: Type.Optional(StringEnum(RolloutTypes, { default: 'All' })),
  all: Type.Optional(Type.Object({ ...RolloutConfigSchema })),
  progressive: Type.Optional(
    Type.Object({
      ...RolloutConfigSchema,
      mandatoryDecisionGroups: MandatoryDecisionGroupsSchema,
      maxConcurrency: Type.Optional(CountOrPercent()),
    }),
  ),
  progressivePerGroup: Type.Optional(
    Type.Object({ ...RolloutConfigSchema, mandatoryDecisionGroups: MandatoryDecisionGroupsSchema }),
  ),
});
export type RolloutStrategy = Static<typeof RolloutStrategySchema>;

export const LocalPlacementReferenceSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  rolloutStrategy: Type.Optional(
    Type.Object(RolloutStrategySchema.properties, {
      default: { all: { progressDeadline: 'None' }, type: 'All' },
    }),
  ),
});
export type LocalPlacementReference = Static<typeof LocalPlacementReferenceSchema>;

const SummarySchema = Type.Object({
  total: Type.Optional(Type.Integer()),
  progressing: Type.Optional(Type.Integer()),
  available: Type.Optional(Type.Integer()),
  degraded: Type.Optional(Type.Integer()),
  applied: Type.Optional(Type.Integer()),
  desiredTotal: Type.Optional(Type.Integer()),
  updated: Type.Optional(Type.Integer()),
});
export type ManifestWorkReplicaSetSummary = Static<typeof SummarySchema>;

export const CascadeDeletionPolicies = ['Background', 'Foreground'] as const;

export const ManifestWorkReplicaSetSpecSchema = Type.Object({
  manifestWorkTemplate: ManifestWorkSpecSchema,
  placementRefs: Type.Array(LocalPlacementReferenceSchema, { minItems: 1 }),
  cascadeDeletionPolicy: Type.Optional(StringEnum(CascadeDeletionPolicies, { default: 'Background' })),
});
export type ManifestWorkReplicaSetSpec = Static<typeof ManifestWorkReplicaSetSpecSchema>;

export const ManifestWorkReplicaSetStatusSchema = Type.Object({
  conditions: Type.Optional(Type.Array(MetaConditionSchema)),
  summary: Type.Optional(SummarySchema),
  placementSummary: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        availableDecisionGroups: Type.Optional(Type.String()),
        summary: Type.Optional(SummarySchema),
      }),
    ),
  ),
});

export const ManifestWorkReplicaSetSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: ManifestWorkReplicaSetSpecSchema,
  status: Type.Optional(ManifestWorkReplicaSetStatusSchema),
});
export type ManifestWorkReplicaSet = Static<typeof ManifestWorkReplicaSetSchema> & KubeObject;

/**
 * The schema OCM's CRD serves: `spec` optional at the root; in it `placementRefs` and `cascadeDeletionPolicy`
 * required (the apiserver fills the latter's default first) and `manifestWorkTemplate` optional.
 */
export const ManifestWorkReplicaSetCrdSchema = Type.Object({
  ...ManifestWorkReplicaSetSchema.properties,
  spec: Type.Optional(
    Type.Object({
      ...ManifestWorkReplicaSetSpecSchema.properties,
      manifestWorkTemplate: Type.Optional(ManifestWorkSpecSchema),
      cascadeDeletionPolicy: StringEnum(CascadeDeletionPolicies, { default: 'Background' }),
    }),
  ),
});
