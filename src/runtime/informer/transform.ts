import type { KubeObject } from '../../kube/client/index.ts';

/**
 * What an informer keeps of each object, applied before the object enters its store or reaches a handler
 * (client-go's `cache.TransformFunc`, set with `SetTransform`). It must return a complete object for the
 * readers of that cache: leave out only what none of them reads.
 */
export type Transform = <T extends KubeObject>(obj: T) => T;

/**
 * The object without `metadata.managedFields`. The apiserver writes one entry per field manager on every
 * write, often larger than a small object's data, and kubefed-ts never reads them on member objects; a
 * member cache holds a copy of every propagated object in every member, so they are most of what it would
 * keep beyond the objects themselves. Karmada strips them from its member informers for the same reason
 * (`pkg/util/fedinformer/transform.go`, `StripUnusedFields`). A shallow copy: the input is not changed, as
 * it may be the answer a writer still holds. Writes built from a cached copy send no `managedFields`,
 * which the apiserver reads as "keep the stored ones" (`k8s.io/apimachinery`
 * `pkg/util/managedfields/internal/fieldmanager.go`, `decodeLiveOrNew`); only an empty list resets them.
 */
export function withoutManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
