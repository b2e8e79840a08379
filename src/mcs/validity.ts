// Whether a ServiceExport can take part in its service's import: the `Valid` condition (KEP-1645 "Service
// Types"; mcs-api pkg/apis/v1beta1/serviceexport.go ServiceExportReasonNoService / InvalidServiceType).

import { ExportReason } from '../api/mcs/v1beta1/serviceexport.ts';
import type { ServiceObject, Validity } from './model.ts';

/**
 * No Service of the export's name → NoService; an ExternalName Service has no endpoints to export →
 * InvalidServiceType; ClusterIP (headless or not), NodePort and LoadBalancer are valid.
 */
export function exportValidity(service: ServiceObject | undefined, exportName: string): Validity {
  if (!service) {
    return {
      valid: false,
      reason: ExportReason.NoService,
      message: `Service "${exportName}" not found in this cluster`,
    };
  }
  if (service.spec?.type === 'ExternalName') {
    return {
      valid: false,
      reason: ExportReason.InvalidServiceType,
      message: `Service "${exportName}" is of type ExternalName, which cannot be exported`,
    };
  }
  return { valid: true, reason: ExportReason.Valid, message: `Service "${exportName}" is valid for export` };
}
