/**
 * The subset of metav1.ObjectMeta kubefed-ts reads and writes. Kept loose on purpose:
 * the API server owns the full shape and CRD schemas only declare `metadata` as an object.
 */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
  ownerReferences?: unknown[];
  /** Server-side apply's field ownership, written by the apiserver on every write. */
  managedFields?: ManagedFieldsEntry[];
}

/** metav1.ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** Any Kubernetes object, kept as raw JSON: the runtime never converts dates or drops unknown fields. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}
