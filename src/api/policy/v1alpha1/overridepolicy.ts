import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { StringEnum } from '../../schema-helpers.ts';
import { PolicyStatusSchema } from './propagationpolicy.ts';
import { ClusterAffinitySchema, OperatorSchema, ResourceSelectorSchema } from './shared.ts';

// OverridePolicy and ClusterOverridePolicy (karmada pkg/apis/policy/v1alpha1/override_types.go).

export const OP_KIND = 'OverridePolicy';
export const OP_PLURAL = 'overridepolicies';
export const OP_SINGULAR = 'overridepolicy';
export const OP_SHORT_NAMES = ['op'] as const;
export const COP_KIND = 'ClusterOverridePolicy';
export const COP_PLURAL = 'clusteroverridepolicies';
export const COP_SINGULAR = 'clusteroverridepolicy';
export const COP_SHORT_NAMES = ['cop'] as const;

/** Any JSON value (apiextensionsv1.JSON). */
const JsonValue = Type.Unsafe<unknown>({ 'x-kubernetes-preserve-unknown-fields': true });

export const ImageOverriderSchema = Type.Object({
  predicate: Type.Optional(
    Type.Object({ path: Type.String({ description: 'JSON pointer to an image field.' }) }),
  ),
  component: StringEnum(['Registry', 'Repository', 'Tag'] as const),
  operator: OperatorSchema,
  value: Type.Optional(Type.String()),
});
export type ImageOverrider = Static<typeof ImageOverriderSchema>;

export const CommandArgsOverriderSchema = Type.Object({
  containerName: Type.String(),
  operator: StringEnum(['add', 'remove'] as const),
  value: Type.Optional(Type.Array(Type.String())),
});
export type CommandArgsOverrider = Static<typeof CommandArgsOverriderSchema>;

export const LabelAnnotationOverriderSchema = Type.Object({
  operator: OperatorSchema,
  value: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type LabelAnnotationOverrider = Static<typeof LabelAnnotationOverriderSchema>;

export const YamlJsonPatchSchema = Type.Object({
  subPath: Type.String({ description: 'JSON pointer inside the parsed field.' }),
  operator: OperatorSchema,
  value: Type.Optional(JsonValue),
});
export type YamlJsonPatch = Static<typeof YamlJsonPatchSchema>;

export const FieldOverriderSchema = Type.Object({
  fieldPath: Type.String({ description: 'JSON pointer to a string field holding JSON or YAML.' }),
  json: Type.Optional(Type.Array(YamlJsonPatchSchema)),
  yaml: Type.Optional(Type.Array(YamlJsonPatchSchema)),
});
export type FieldOverrider = Static<typeof FieldOverriderSchema>;

export const PlaintextOverriderSchema = Type.Object({
  path: Type.String({
    description:
      'JSON pointer; kubefed-ts also accepts list entries addressed by key, e.g. ' +
      '/spec/template/spec/containers/[name=app]/env/[name=LOG_LEVEL]/value.',
  }),
  operator: OperatorSchema,
  value: Type.Optional(JsonValue),
});
export type PlaintextOverrider = Static<typeof PlaintextOverriderSchema>;

export const OverridersSchema = Type.Object({
  plaintext: Type.Optional(Type.Array(PlaintextOverriderSchema)),
  imageOverrider: Type.Optional(Type.Array(ImageOverriderSchema)),
  commandOverrider: Type.Optional(Type.Array(CommandArgsOverriderSchema)),
  argsOverrider: Type.Optional(Type.Array(CommandArgsOverriderSchema)),
  labelsOverrider: Type.Optional(Type.Array(LabelAnnotationOverriderSchema)),
  annotationsOverrider: Type.Optional(Type.Array(LabelAnnotationOverriderSchema)),
  fieldOverrider: Type.Optional(Type.Array(FieldOverriderSchema)),
});
export type Overriders = Static<typeof OverridersSchema>;

export const RuleWithClusterSchema = Type.Object({
  targetCluster: Type.Optional(ClusterAffinitySchema),
  overriders: OverridersSchema,
});
export type RuleWithCluster = Static<typeof RuleWithClusterSchema>;

export const OverrideSpecSchema = Type.Object({
  resourceSelectors: Type.Optional(
    Type.Array(ResourceSelectorSchema, { description: 'nil matches all resources.' }),
  ),
  overrideRules: Type.Optional(Type.Array(RuleWithClusterSchema)),
  targetCluster: Type.Optional(ClusterAffinitySchema),
  overriders: Type.Optional(OverridersSchema),
});
export type OverrideSpec = Static<typeof OverrideSpecSchema>;

export const OverridePolicySchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: OverrideSpecSchema,
  status: Type.Optional(PolicyStatusSchema),
});
export type OverridePolicy = Static<typeof OverridePolicySchema>;
export type ClusterOverridePolicy = OverridePolicy;
