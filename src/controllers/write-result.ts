import { isConflict, isNotFound } from '../kube/client/index.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../runtime/workqueue/index.ts';

/**
 * What a failed write to a host object means for the reconcile: gone — nothing left to do; conflict —
 * look again at once with the fresh object; anything else — retry with backoff.
 */
export function afterWriteError(e: unknown): ReconcileResult {
  if (isNotFound(e)) return ok();
  if (isConflict(e)) return requeueAfter(0);
  return retry(e);
}
