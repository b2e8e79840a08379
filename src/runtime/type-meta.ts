// apiVersion and kind for a typed object: what an informer's objects lack (the API server leaves them out of
// list items) and what an update body and an Event's involvedObject need.
import { apiVersionOf, type KubeObject, type ResourceType } from '../kube/client/index.ts';

export interface TypeMeta {
  readonly apiVersion: string;
  readonly kind: string;
}

/** `group/version` (or the bare version of the core group) and the kind of a resource type. */
export function typeMetaOf(type: ResourceType, kind = type.kind ?? ''): TypeMeta {
  return { apiVersion: apiVersionOf(type), kind };
}

/** The object with its apiVersion and kind stamped on (a shallow copy). */
export function withTypeMeta<T extends KubeObject>(obj: T, meta: TypeMeta): T & TypeMeta {
  return { ...obj, apiVersion: meta.apiVersion, kind: meta.kind };
}
