/**
 * A token bucket, like client-go's flowcontrol rate limiter over golang.org/x/time/rate (client QPS/burst,
 * and the workqueue's BucketRateLimiter): each take() reserves a token; once the burst is spent the
 * returned delay is how long until the reserved token has been refilled at `qps`.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  readonly #now: () => number;
  // May go negative: outstanding reservations that later callers queue behind.
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, now: () => number = () => performance.now()) {
    if (!(qps > 0)) throw new RangeError('qps must be > 0');
    if (!(burst >= 1)) throw new RangeError('burst must be >= 1');
    this.qps = qps;
    this.burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  /** Reserves one token; returns how long (ms) to wait until it is there. */
  take(): number {
    if (this.qps === Number.POSITIVE_INFINITY) return 0;
    const now = this.#now();
    // Ignore a clock that moved backwards instead of draining tokens.
    const elapsed = Math.max(0, now - this.#last);
    this.#last = now;
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.qps) / 1000);
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.qps;
  }
}
