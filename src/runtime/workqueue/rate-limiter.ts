// Per-key delay policies for WorkQueue.addRateLimited, modelled on client-go's
// workqueue rate limiters (default_rate_limiters.go).

import { TokenBucket } from '../../util/token-bucket.ts';

export interface RateLimiter {
  /** Delay in ms before `key` should be retried; counts as one more failure of `key`. */
  when(key: string): number;
  /** Stops tracking `key` (resets its failure count). */
  forget(key: string): void;
  /** Failures recorded for `key` since the last forget. */
  retries(key: string): number;
}

/**
 * Per-key exponential backoff: baseMs·2^failures, capped at maxMs.
 * client-go's default is 5 ms → 1000 s; KubeFed's own worker uses 5 s → 60 s.
 */
export class ItemExponentialBackoff implements RateLimiter {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly #failures = new Map<string, number>();

  constructor(baseMs: number, maxMs: number) {
    if (!(baseMs >= 0) || !(maxMs >= 0)) throw new RangeError('backoff durations must be >= 0');
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // Bounding the exponent keeps 2 ** n finite (0 · Infinity would be NaN); an
    // infinite product is absorbed by the cap, as client-go guards its overflow.
    return Math.min(this.baseMs * 2 ** Math.min(failures, 1023), this.maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** The token bucket as a queue rate limiter (client-go's BucketRateLimiter): not per key. */
export class TokenBucketRateLimiter extends TokenBucket implements RateLimiter {
  when(_key: string): number {
    return this.take();
  }

  forget(_key: string): void {}

  retries(_key: string): number {
    return 0;
  }
}

/** Combines limiters: the longest delay wins; every limiter still records the attempt. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.#limiters = limiters;
  }

  when(key: string): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  retries(key: string): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.retries(key));
    return max;
  }
}

/** client-go's DefaultControllerRateLimiter: max(exponential 5 ms → 1000 s, bucket 10 qps / burst 100). */
export function defaultControllerRateLimiter(now?: () => number): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialBackoff(5, 1_000_000),
    new TokenBucketRateLimiter(10, 100, now),
  );
}

/** KubeFed's worker backoff (pkg/controller/util/backoff.go): 5 s doubling to 60 s per key. */
export function kubefedRateLimiter(): RateLimiter {
  return new ItemExponentialBackoff(5_000, 60_000);
}
