// What a reconcile returns and what its worker loop does with it, like controller-runtime's reconcile.Result.
import { isConflict, isNotFound } from '../kube/client/index.ts';

export type ReconcileResult =
  | { readonly kind: 'ok' }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'requeueAfter'; readonly ms: number };

/** Done: the key's backoff is reset. */
export function ok(): ReconcileResult {
  return { kind: 'ok' };
}

/** Failed: retried with the queue's rate-limited backoff. */
export function retry(error: unknown): ReconcileResult {
  return { kind: 'error', error };
}

/** Done for now: the backoff is reset and the key is reconciled again after `ms`. */
export function requeueAfter(ms: number): ReconcileResult {
  return { kind: 'requeueAfter', ms };
}

/**
 * What a failed write to a host object means for the reconcile: gone — nothing left to do; conflict —
 * look again at once with the fresh object; anything else — retry with backoff.
 */
export function afterWriteError(e: unknown): ReconcileResult {
  if (isNotFound(e)) return ok();
  if (isConflict(e)) return requeueAfter(0);
  return retry(e);
}
