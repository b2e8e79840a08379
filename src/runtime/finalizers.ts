// Finalizer helpers, like controller-runtime's controllerutil.AddFinalizer/RemoveFinalizer plus the write
// that follows them: a merge patch of metadata.finalizers that carries the resourceVersion it was computed
// from, so a finalizer list changed meanwhile is never overwritten (409 instead).
import type { KubeClient, KubeObject, ObjectMeta, ResourceType } from '../kube/client/index.ts';
import { afterWriteError, type ReconcileResult } from './reconcile.ts';

/** What the helpers need of a client (a KubeClient; a fake in unit tests). */
export type FinalizerClient = Pick<KubeClient, 'patch'>;

/**
 * The finalizer list is as wanted: `object` is the fresh object when `written`, else the one given.
 * Otherwise the write failed and `result` is what the reconcile returns, the one policy for every caller:
 * gone — ok (nothing left to finalize); conflict — requeue at once (look again with the fresh object);
 * anything else — retry with backoff (`result.kind === 'error'`).
 */
export type FinalizerWrite<T> =
  | { readonly done: true; readonly written: boolean; readonly object: T }
  | { readonly done: false; readonly result: ReconcileResult; readonly error: unknown };

export function hasFinalizer(obj: { metadata: ObjectMeta }, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

/** The merge patch that sets the finalizers, or undefined when they are already so (no write needed). */
export function finalizersPatch(
  meta: ObjectMeta,
  finalizer: string,
  want: 'present' | 'absent',
): { metadata: { finalizers: string[]; resourceVersion: string | undefined } } | undefined {
  const current = meta.finalizers ?? [];
  if (current.includes(finalizer) === (want === 'present')) return undefined;
  const finalizers = want === 'present' ? [...current, finalizer] : current.filter((f) => f !== finalizer);
  return { metadata: { finalizers, resourceVersion: meta.resourceVersion } };
}

/** Adds `finalizer` to the object on the server unless it has it already. */
export function ensureFinalizer<T extends KubeObject>(
  client: FinalizerClient,
  type: ResourceType,
  obj: T,
  finalizer: string,
): Promise<FinalizerWrite<T>> {
  return writeFinalizers(client, type, obj, finalizersPatch(obj.metadata, finalizer, 'present'));
}

/** Removes `finalizer` from the object on the server if it has it. */
export function removeFinalizer<T extends KubeObject>(
  client: FinalizerClient,
  type: ResourceType,
  obj: T,
  finalizer: string,
): Promise<FinalizerWrite<T>> {
  return writeFinalizers(client, type, obj, finalizersPatch(obj.metadata, finalizer, 'absent'));
}

async function writeFinalizers<T extends KubeObject>(
  client: FinalizerClient,
  type: ResourceType,
  obj: T,
  patch: ReturnType<typeof finalizersPatch>,
): Promise<FinalizerWrite<T>> {
  if (!patch) return { done: true, written: false, object: obj };
  try {
    const object = await client.patch<T>(type, obj.metadata.name ?? '', patch, {
      namespace: obj.metadata.namespace,
      patchType: 'merge',
    });
    return { done: true, written: true, object };
  } catch (error) {
    return { done: false, result: afterWriteError(error), error };
  }
}
