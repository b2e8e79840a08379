import { type Static, Type } from 'typebox';
import type { LabelSelector } from '../../../propagation/label-selector.ts';
import { StringEnum } from '../../schema-helpers.ts';

// Types shared by PropagationPolicy and OverridePolicy (karmada pkg/apis/policy/v1alpha1/propagation_types.go).

export const LabelSelectorSchema = Type.Unsafe<LabelSelector>({
  type: 'object',
  description: 'A standard Kubernetes label selector (matchLabels, matchExpressions).',
  properties: {
    matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'operator'],
        properties: {
          key: { type: 'string' },
          operator: { type: 'string' },
          values: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
});

export const ResourceSelectorSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'APIVersion of the target resources (exact match).' }),
    kind: Type.String({ description: 'Kind of the target resources.' }),
    namespace: Type.Optional(
      Type.String({ description: 'Namespace of the target resource; default: the policy namespace.' }),
    ),
    name: Type.Optional(
      Type.String({ description: 'Name of the target resource; if set, labelSelector is ignored.' }),
    ),
    labelSelector: Type.Optional(LabelSelectorSchema),
  },
  { description: 'ResourceSelector selects resource templates.' },
);
export type ResourceSelector = Static<typeof ResourceSelectorSchema>;

/** corev1.NodeSelectorRequirement, used here on cluster fields (provider, region, zone). */
export const FieldSelectorRequirementSchema = Type.Object({
  key: Type.String({ description: 'provider, region or zone.' }),
  operator: Type.String({ description: 'In or NotIn (Exists and DoesNotExist are honoured for zone).' }),
  values: Type.Optional(Type.Array(Type.String())),
});
export type FieldSelectorRequirement = Static<typeof FieldSelectorRequirementSchema>;

export const FieldSelectorSchema = Type.Object(
  { matchExpressions: Type.Optional(Type.Array(FieldSelectorRequirementSchema)) },
  { description: 'FieldSelector is a field filter over cluster provider, region and zone.' },
);
export type FieldSelector = Static<typeof FieldSelectorSchema>;

export const ClusterAffinitySchema = Type.Object(
  {
    labelSelector: Type.Optional(LabelSelectorSchema),
    fieldSelector: Type.Optional(FieldSelectorSchema),
    clusterNames: Type.Optional(Type.Array(Type.String(), { description: 'Clusters to select.' })),
    exclude: Type.Optional(Type.Array(Type.String(), { description: 'Clusters to ignore.' })),
  },
  { description: 'ClusterAffinity represents the filter to select clusters; all criteria are ANDed.' },
);
export type ClusterAffinity = Static<typeof ClusterAffinitySchema>;

export const OperatorSchema = StringEnum(['add', 'remove', 'replace'] as const);
export type OverriderOperator = 'add' | 'remove' | 'replace';
