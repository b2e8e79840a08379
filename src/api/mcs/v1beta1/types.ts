import type { ResourceType } from '../../../kube/client/index.ts';
import { GROUP, VERSION } from './group.ts';
import { SERVICE_EXPORT_KIND, SERVICE_EXPORT_PLURAL } from './serviceexport.ts';
import { SERVICE_IMPORT_KIND, SERVICE_IMPORT_PLURAL } from './serviceimport.ts';

export const ServiceExportType: ResourceType & { kind: string } = {
  group: GROUP,
  version: VERSION,
  plural: SERVICE_EXPORT_PLURAL,
  namespaced: true,
  kind: SERVICE_EXPORT_KIND,
};
export const ServiceImportType: ResourceType & { kind: string } = {
  group: GROUP,
  version: VERSION,
  plural: SERVICE_IMPORT_PLURAL,
  namespaced: true,
  kind: SERVICE_IMPORT_KIND,
};
