import { Type } from 'typebox';

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
}

/** `metadata` in a CRD schema: the API server rejects anything more specific than `type: object`. */
export const ObjectMetaSchema = Type.Unsafe<ObjectMeta>({ type: 'object' });
