import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { MetaConditionSchema } from '../../policy/v1alpha1/propagationpolicy.ts';

// sigs.k8s.io/mcs-api pkg/apis/v1beta1/serviceexport.go (v0.5.2), same JSON.

export const SERVICE_EXPORT_KIND = 'ServiceExport';
export const SERVICE_EXPORT_PLURAL = 'serviceexports';
export const SERVICE_EXPORT_SINGULAR = 'serviceexport';
export const SERVICE_EXPORT_SHORT_NAMES = ['svcex', 'svcexport'] as const;

/** ServiceExportConditionType values. */
export const ExportCondition = {
  Valid: 'Valid',
  Ready: 'Ready',
  Conflict: 'Conflict',
} as const;

/** ServiceExportConditionReason values, as mcs-api names them. */
export const ExportReason = {
  Valid: 'Valid',
  NoService: 'NoService',
  InvalidServiceType: 'InvalidServiceType',
  Exported: 'Exported',
  Ready: 'Ready',
  Pending: 'Pending',
  Failed: 'Failed',
  PortConflict: 'PortConflict',
  TypeConflict: 'TypeConflict',
  SessionAffinityConflict: 'SessionAffinityConflict',
  SessionAffinityConfigConflict: 'SessionAffinityConfigConflict',
  LabelsConflict: 'LabelsConflict',
  AnnotationsConflict: 'AnnotationsConflict',
  InternalTrafficPolicyConflict: 'InternalTrafficPolicyConflict',
  TrafficDistributionConflict: 'TrafficDistributionConflict',
  IPFamilyConflict: 'IPFamilyConflict',
  NoConflicts: 'NoConflicts',
} as const;
export type ExportReason = (typeof ExportReason)[keyof typeof ExportReason];

export const ServiceExportSpecSchema = Type.Object({
  exportedLabels: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: 'Labels copied to the ServiceImport in every cluster (the oldest export decides).',
    }),
  ),
  exportedAnnotations: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: 'Annotations copied to the ServiceImport in every cluster (the oldest export decides).',
    }),
  ),
});
export type ServiceExportSpec = Static<typeof ServiceExportSpecSchema>;

export const ServiceExportStatusSchema = Type.Object({
  conditions: Type.Optional(
    Type.Array(MetaConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
});
export type ServiceExportStatus = Static<typeof ServiceExportStatusSchema>;

export const ServiceExportSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ObjectMetaSchema),
  spec: Type.Optional(ServiceExportSpecSchema),
  status: Type.Optional(ServiceExportStatusSchema),
});
export type ServiceExport = Static<typeof ServiceExportSchema>;
