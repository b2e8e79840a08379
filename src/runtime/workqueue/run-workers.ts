// Worker loop: N concurrent consumers of a WorkQueue turning reconcile results into
// queue actions, like controller-runtime's reconcileHandler.

import { type FailureLogger, type FailureLogLimiter, logFailure } from '../failure-log.ts';
import { type ReconcileResult, retry } from '../reconcile.ts';
import type { WorkQueue } from './workqueue.ts';

export interface RunWorkersOptions {
  logger?: FailureLogger;
  /** Rate limit for the failure lines; the process-wide one by default. */
  failureLimiter?: FailureLogLimiter;
}

/**
 * Starts `concurrency` workers. Resolves once the queue is shut down and every
 * worker has finished its current key. A throwing reconcile counts as an error
 * result; it never stops a worker.
 */
export async function runWorkers(
  queue: WorkQueue,
  concurrency: number,
  reconcile: (key: string) => Promise<ReconcileResult>,
  opts: RunWorkersOptions = {},
): Promise<void> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  // An expected failure (a member or the host answering 5xx, 429, 409, nothing) is a rate-limited warning;
  // only an unexpected exception is an error with its stack. logFailure never throws.
  const logError = (err: unknown, fields: Record<string, unknown>, msg: string): void => {
    if (opts.logger) logFailure(opts.logger, msg, { err, fields }, opts.failureLimiter);
  };

  // controller-runtime's max_concurrent_reconciles / active_workers, reported through the queue's hooks.
  const metrics = queue.metrics;
  let active = 0;
  const setActive = (delta: number): void => {
    active += delta;
    metrics.onActiveWorkers?.(queue.name, active);
  };
  metrics.onWorkers?.(queue.name, concurrency);
  setActive(0);

  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      setActive(1);
      try {
        let result: ReconcileResult;
        try {
          result = await reconcile(key);
        } catch (error) {
          result = retry(error);
        }
        handle(queue, key, result, logError);
      } finally {
        setActive(-1);
        queue.done(key);
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    metrics.onWorkers?.(queue.name, 0);
  }
}

function handle(
  queue: WorkQueue,
  key: string,
  result: ReconcileResult | undefined,
  logError: (err: unknown, fields: Record<string, unknown>, msg: string) => void,
): void {
  // Results come from untyped callers too; anything unrecognised is an error, not a silent success.
  switch (result?.kind) {
    case 'ok':
      queue.forget(key);
      return;
    case 'requeueAfter':
      queue.forget(key);
      queue.addAfter(key, result.ms);
      return;
    case 'error':
      logError(result.error, { key, queue: queue.name }, 'reconcile failed; requeuing with backoff');
      queue.addRateLimited(key);
      return;
    default:
      logError(
        new TypeError(`invalid reconcile result: ${JSON.stringify(result)}`),
        { key, queue: queue.name },
        'reconcile returned an invalid result; requeuing with backoff',
      );
      queue.addRateLimited(key);
  }
}
