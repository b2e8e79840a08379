import { type Static, Type } from 'typebox';
import type { KubeObject } from '../../../../kube/client/types.ts';
import { ObjectMetaSchema } from '../../../meta.ts';
import { MetaConditionSchema } from '../../../policy/v1alpha1/propagationpolicy.ts';
import { DateTime, Int64, StringEnum } from '../../../schema-helpers.ts';

// OCM's work.open-cluster-management.io/v1 ManifestWork and AppliedManifestWork
// (open-cluster-management-io/api work/v1/types.go), same JSON.

export const MW_KIND = 'ManifestWork';
export const MW_PLURAL = 'manifestworks';
export const MW_SINGULAR = 'manifestwork';
export const AMW_KIND = 'AppliedManifestWork';
export const AMW_PLURAL = 'appliedmanifestworks';
export const AMW_SINGULAR = 'appliedmanifestwork';

/** ManifestWorkFinalizer: the agent adds it before applying anything (work#29). */
export const MANIFEST_WORK_FINALIZER = 'cluster.open-cluster-management.io/manifest-work-cleanup';
/** AppliedManifestWorkFinalizer: the AMW stays until every resource it owns is gone or orphaned. */
export const APPLIED_MANIFEST_WORK_FINALIZER =
  'cluster.open-cluster-management.io/applied-manifest-work-cleanup';
/** ObjectSpecHash: the annotation on applied resources, the hash of the manifest as the work has it. */
export const OBJECT_HASH_ANNOTATION = 'open-cluster-management.io/object-hash';
/** ManifestConfigSpecHashAnnotationKey. */
export const CONFIG_SPEC_HASH_ANNOTATION = 'open-cluster-management.io/config-spec-hash';
/** DefaultFieldManager. */
export const DEFAULT_FIELD_MANAGER = 'work-agent';

/** Work and manifest condition types (types.go WorkApplied, ManifestComplete, ...). */
export const WorkCondition = {
  Applied: 'Applied',
  Progressing: 'Progressing',
  Available: 'Available',
  Degraded: 'Degraded',
  Complete: 'Complete',
  Deleting: 'Deleting',
  StatusFeedbackSynced: 'StatusFeedbackSynced',
} as const;

/** Condition reasons, as OCM's work agent writes them (pkg/work/spoke/...). */
export const WorkReason = {
  AppliedManifestWorkComplete: 'AppliedManifestWorkComplete',
  AppliedManifestWorkFailed: 'AppliedManifestWorkFailed',
  AppliedManifestComplete: 'AppliedManifestComplete',
  AppliedManifestFailed: 'AppliedManifestFailed',
  AppliedManifestSSAIgnoreFieldError: 'AppliedManifestSSAIgnoreFieldError',
  ResourcesAvailable: 'ResourcesAvailable',
  ResourcesNotAvailable: 'ResourcesNotAvailable',
  ResourceAvailable: 'ResourceAvailable',
  ResourceNotAvailable: 'ResourceNotAvailable',
  StatusFeedbackSynced: 'StatusFeedbackSynced',
  StatusFeedbackSyncFailed: 'StatusFeedbackSyncFailed',
  NoStatusFeedbackSynced: 'NoStatusFeedbackSynced',
  Applying: 'Applying',
  Completed: 'Completed',
  Failed: 'Failed',
  ManifestsComplete: 'ManifestsComplete',
  ConditionRuleEvaluated: 'ConditionRuleEvaluated',
  ConditionRuleInvalid: 'ConditionRuleInvalid',
  ConditionRuleExpressionError: 'ConditionRuleExpressionError',
  ConditionRuleInternalError: 'ConditionRuleInternalError',
  ManifestWorkDeleting: 'ManifestWorkDeleting',
} as const;

const DNS1123 = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$';

/** A manifest: any Kubernetes object, kept as written (RawExtension, EmbeddedResource). */
export const ManifestSchema = Type.Unsafe<KubeObject & Record<string, unknown>>({
  type: 'object',
  'x-kubernetes-embedded-resource': true,
  'x-kubernetes-preserve-unknown-fields': true,
});
export type Manifest = Static<typeof ManifestSchema>;

export const ResourceIdentifierSchema = Type.Object({
  group: Type.Optional(Type.String({ description: 'API group; empty is the core group.' })),
  resource: Type.String({ description: 'Resource (plural) name, e.g. deployments.' }),
  name: Type.String({ description: 'Name; may use * wildcards.' }),
  namespace: Type.Optional(Type.String({ description: 'Namespace; empty for a cluster-scoped resource.' })),
});
export type ResourceIdentifier = Static<typeof ResourceIdentifierSchema>;
export type OrphaningRule = ResourceIdentifier;

export const DeletePropagationPolicy = ['Foreground', 'Orphan', 'SelectivelyOrphan'] as const;
export type DeletePropagationPolicyType = (typeof DeletePropagationPolicy)[number];

export const DeleteOptionSchema = Type.Object({
  propagationPolicy: Type.Optional(StringEnum(DeletePropagationPolicy, { default: 'Foreground' })),
  selectivelyOrphans: Type.Optional(
    Type.Object({ orphaningRules: Type.Optional(Type.Array(ResourceIdentifierSchema)) }),
  ),
  ttlSecondsAfterFinished: Type.Optional(
    Int64('Delete the ManifestWork this many seconds after it is Complete; 0 deletes it at once.'),
  ),
});
export type DeleteOption = Static<typeof DeleteOptionSchema>;

export const FeedbackType = ['WellKnownStatus', 'JSONPaths'] as const;
export const JsonPathSchema = Type.Object({
  name: Type.String(),
  version: Type.Optional(Type.String()),
  path: Type.String({ description: 'JSON path under .status; must reach a single value.' }),
});
export type JsonPath = Static<typeof JsonPathSchema>;
export const FeedbackRuleSchema = Type.Object({
  type: StringEnum(FeedbackType),
  jsonPaths: Type.Optional(
    Type.Array(JsonPathSchema, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
  ),
});
export type FeedbackRule = Static<typeof FeedbackRuleSchema>;

export const UpdateStrategyTypes = ['Update', 'CreateOnly', 'ServerSideApply', 'ReadOnly'] as const;
export type UpdateStrategyType = (typeof UpdateStrategyTypes)[number];
export const IgnoreFieldsConditions = ['OnSpokePresent', 'OnSpokeChange'] as const;
export const IgnoreFieldSchema = Type.Object({
  condition: StringEnum(IgnoreFieldsConditions, { default: 'OnSpokePresent' }),
  jsonPaths: Type.Optional(
    Type.Array(Type.String(), { description: 'Kubernetes JSONPath expressions of the fields to ignore.' }),
  ),
  jsonPointers: Type.Optional(
    Type.Array(Type.String(), { description: 'RFC 6901 JSON Pointers of the fields to ignore.' }),
  ),
  jqPathExpressions: Type.Optional(
    Type.Array(Type.String(), { description: 'jq path expressions of the fields to ignore.' }),
  ),
});
export type IgnoreField = Static<typeof IgnoreFieldSchema>;
export const ServerSideApplyConfigSchema = Type.Object({
  force: Type.Optional(Type.Boolean()),
  fieldManager: Type.Optional(Type.String({ default: DEFAULT_FIELD_MANAGER, pattern: '^work-agent' })),
  ignoreFields: Type.Optional(
    Type.Array(IgnoreFieldSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['condition'],
    }),
  ),
});
export type ServerSideApplyConfig = Static<typeof ServerSideApplyConfigSchema>;
export const UpdateStrategySchema = Type.Object({
  type: StringEnum(UpdateStrategyTypes, { default: 'Update' }),
  serverSideApply: Type.Optional(ServerSideApplyConfigSchema),
});
export type UpdateStrategy = Static<typeof UpdateStrategySchema>;

export const ConditionRuleTypes = ['WellKnownConditions', 'CEL'] as const;
export type ConditionRuleType = (typeof ConditionRuleTypes)[number];
export const ConditionRuleSchema = Type.Unsafe<{
  condition: string;
  type: ConditionRuleType;
  celExpressions?: string[];
  message?: string;
  messageExpression?: string;
}>({
  type: 'object',
  properties: {
    condition: Type.String({
      description: 'Condition type set from this rule; Complete stops updates to a completed manifest.',
    }),
    type: StringEnum(ConditionRuleTypes),
    celExpressions: Type.Optional(
      Type.Array(Type.String(), { description: 'CEL expressions over `object`, ANDed.' }),
    ),
    message: Type.Optional(Type.String()),
    messageExpression: Type.Optional(
      Type.String({ description: 'CEL expression over `object` and `result` giving the message.' }),
    ),
  },
  required: ['condition', 'type'],
  'x-kubernetes-validations': [
    { rule: 'self.type != \'CEL\' || self.condition != ""', message: 'Condition is required for CEL rules' },
  ],
});
export type ConditionRule = Static<typeof ConditionRuleSchema>;

export const FeedbackScrapeTypes = ['Poll', 'Watch'] as const;
export const ManifestConfigOptionSchema = Type.Object({
  resourceIdentifier: ResourceIdentifierSchema,
  feedbackRules: Type.Optional(Type.Array(FeedbackRuleSchema)),
  updateStrategy: Type.Optional(UpdateStrategySchema),
  conditionRules: Type.Optional(
    Type.Array(ConditionRuleSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['condition'],
    }),
  ),
  feedbackScrapeType: Type.Optional(StringEnum(FeedbackScrapeTypes, { default: 'Poll' })),
});
export type ManifestConfigOption = Static<typeof ManifestConfigOptionSchema>;

export const ExecutorSchema = Type.Object({
  subject: Type.Object({
    type: StringEnum(['ServiceAccount'] as const),
    serviceAccount: Type.Optional(
      Type.Object({
        namespace: Type.String({ minLength: 1, maxLength: 253, pattern: DNS1123 }),
        name: Type.String({ minLength: 1, maxLength: 253, pattern: DNS1123 }),
      }),
    ),
  }),
});
export type ManifestWorkExecutor = Static<typeof ExecutorSchema>;

export const ManifestWorkSpecSchema = Type.Object({
  workload: Type.Optional(Type.Object({ manifests: Type.Optional(Type.Array(ManifestSchema)) })),
  deleteOption: Type.Optional(DeleteOptionSchema),
  manifestConfigs: Type.Optional(Type.Array(ManifestConfigOptionSchema)),
  executor: Type.Optional(ExecutorSchema),
});
export type ManifestWorkSpec = Static<typeof ManifestWorkSpecSchema>;

export const ManifestResourceMetaSchema = Type.Object({
  ordinal: Type.Integer({
    format: 'int32',
    description: 'Index of the manifest in spec.workload.manifests.',
  }),
  group: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  resource: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
});
export type ManifestResourceMeta = Static<typeof ManifestResourceMetaSchema>;

export const ValueTypes = ['Integer', 'String', 'Boolean', 'JsonRaw'] as const;
export const FieldValueSchema = Type.Object({
  type: StringEnum(ValueTypes),
  integer: Type.Optional(Int64('Set when type is Integer.')),
  string: Type.Optional(Type.String()),
  boolean: Type.Optional(Type.Boolean()),
  jsonRaw: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type FieldValue = Static<typeof FieldValueSchema>;
export const FeedbackValueSchema = Type.Object({ name: Type.String(), fieldValue: FieldValueSchema });
export type FeedbackValue = Static<typeof FeedbackValueSchema>;

export const ManifestConditionSchema = Type.Object({
  resourceMeta: ManifestResourceMetaSchema,
  statusFeedback: Type.Optional(
    Type.Object({
      values: Type.Optional(
        Type.Array(FeedbackValueSchema, {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        }),
      ),
    }),
  ),
  conditions: Type.Array(MetaConditionSchema),
});
export type ManifestCondition = Static<typeof ManifestConditionSchema>;

export const ManifestWorkStatusSchema = Type.Object({
  conditions: Type.Optional(Type.Array(MetaConditionSchema)),
  resourceStatus: Type.Optional(
    Type.Object({ manifests: Type.Optional(Type.Array(ManifestConditionSchema)) }),
  ),
});
export type ManifestWorkStatus = Static<typeof ManifestWorkStatusSchema>;

export const ManifestWorkSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: ManifestWorkSpecSchema,
  status: Type.Optional(ManifestWorkStatusSchema),
});
export type ManifestWork = Static<typeof ManifestWorkSchema> & KubeObject;

/**
 * The schema OCM's CRD serves: `spec` is not required at the root, so a work without one reaches the webhook
 * and gets its "manifests should not be empty" denial rather than a schema error.
 */
export const ManifestWorkCrdSchema = Type.Object({
  ...ManifestWorkSchema.properties,
  spec: Type.Optional(ManifestWorkSpecSchema),
});

export const AppliedManifestResourceMetaSchema = Type.Object({
  group: Type.Optional(Type.String()),
  resource: Type.String(),
  name: Type.String(),
  namespace: Type.Optional(Type.String()),
  version: Type.String(),
  uid: Type.Optional(Type.String()),
});
export type AppliedManifestResourceMeta = Static<typeof AppliedManifestResourceMetaSchema>;

export const AppliedManifestWorkSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Optional(
    Type.Object({
      hubHash: Type.String({ description: 'Hex SHA-256 of the hub apiserver URL.' }),
      agentID: Type.Optional(Type.String()),
      manifestWorkName: Type.String(),
    }),
  ),
  status: Type.Optional(
    Type.Object({
      appliedResources: Type.Optional(Type.Array(AppliedManifestResourceMetaSchema)),
      evictionStartTime: Type.Optional(DateTime('When eviction of this AppliedManifestWork started.')),
    }),
  ),
});
export type AppliedManifestWork = Static<typeof AppliedManifestWorkSchema> & KubeObject;

/** The schema OCM's AppliedManifestWork CRD serves: nothing in `spec` is required there. */
export const AppliedManifestWorkCrdSchema = Type.Object({
  ...AppliedManifestWorkSchema.properties,
  spec: Type.Optional(
    Type.Object({
      hubHash: Type.Optional(Type.String({ description: 'Hex SHA-256 of the hub apiserver URL.' })),
      agentID: Type.Optional(Type.String()),
      manifestWorkName: Type.Optional(Type.String()),
    }),
  ),
});
