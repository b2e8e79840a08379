// Writes an object's /status only when the computed status differs from the current one, with the conflict
// loop every controller needs: on 409 the object is read again and the status recomputed from it.
import {
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { ok, type ReconcileResult, retry } from './reconcile.ts';
import { type TypeMeta, withTypeMeta } from './type-meta.ts';

/** What the writer needs of a client (a KubeClient; a fake in unit tests). */
export type StatusClient = Pick<KubeClient, 'update' | 'get'>;

/** The status to write given the object as it is now, and whether it differs from the object's own. */
export type ComputeStatus<T extends KubeObject, S> = (current: T) => { status: S; changed: boolean };

export interface StatusWriteOptions<T extends KubeObject, S> {
  client: StatusClient;
  type: ResourceType;
  /** Stamped on the update body: informer objects come without them. */
  typeMeta: TypeMeta;
  object: T;
  compute: ComputeStatus<T, S>;
  /** Writes tried before giving up on conflicts (default 5); 1 never re-reads. */
  attempts?: number;
}

export type StatusWrite<T> =
  /** The status was already what it should be. */
  | { readonly kind: 'unchanged' }
  /**
   * `replaced` is the resourceVersion of the object the write replaced: what `Informer.ownWrite` needs to put
   * `object` into the cache at once, so the watch event of its own write does not come back as a change.
   */
  | { readonly kind: 'written'; readonly object: T; readonly replaced: string | undefined }
  /** The object's spec moved on (generation) meanwhile: the reconcile its change triggers writes the status. */
  | { readonly kind: 'superseded' }
  /** The object is gone: nothing to report on. */
  | { readonly kind: 'gone' }
  /** Every attempt conflicted. */
  | { readonly kind: 'conflict'; readonly error: unknown }
  | { readonly kind: 'failed'; readonly error: unknown };

export const DEFAULT_STATUS_ATTEMPTS = 5;

export async function writeStatusIfChanged<T extends KubeObject, S>(
  opts: StatusWriteOptions<T, S>,
): Promise<StatusWrite<T>> {
  const { client, type, typeMeta, object, compute } = opts;
  const attempts = Math.max(1, opts.attempts ?? DEFAULT_STATUS_ATTEMPTS);
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const { status, changed } = compute(current);
    if (!changed) return { kind: 'unchanged' };
    try {
      const written = await client.update<T>(
        type,
        { ...withTypeMeta(current, typeMeta), status },
        {
          subresource: 'status',
        },
      );
      return { kind: 'written', object: written, replaced: current.metadata.resourceVersion };
    } catch (e) {
      if (isNotFound(e)) return { kind: 'gone' };
      if (!isConflict(e)) return { kind: 'failed', error: e };
      if (attempt >= attempts) return { kind: 'conflict', error: e };
    }
    try {
      current = await client.get<T>(type, object.metadata.name ?? '', object.metadata.namespace);
    } catch (e) {
      return isNotFound(e) ? { kind: 'gone' } : { kind: 'failed', error: e };
    }
    if (current.metadata.generation !== object.metadata.generation) return { kind: 'superseded' };
  }
}

/**
 * What a status write means for the reconcile: written, unchanged, superseded or gone — done; a write that
 * kept conflicting or failed — retry with backoff.
 */
export function statusWriteResult(w: StatusWrite<unknown>): ReconcileResult {
  switch (w.kind) {
    case 'conflict':
      return retry(new Error('status update kept conflicting', { cause: w.error }));
    case 'failed':
      return retry(w.error);
    default:
      return ok();
  }
}
