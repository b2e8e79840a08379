// The eviction rate limit (karmada-controller-manager --resource-eviction-rate, default 0.5 per second: a
// token bucket of burst 1, as client-go's flowcontrol limiter the eviction queue uses). Pure but for the
// clock the caller passes.

export const DEFAULT_EVICTION_RATE = 0.5;

export class TokenBucket {
  readonly #ratePerSecond: number;
  readonly #burst: number;
  #tokens: number;
  #last: number | undefined;

  /** A rate of 0 or less (or Infinity) does not limit. */
  constructor(ratePerSecond: number, burst = 1) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
  }

  /** Takes a token if there is one (0), else says how many milliseconds until there is (none taken). */
  take(nowMs: number): number {
    if (!(this.#ratePerSecond > 0) || !Number.isFinite(this.#ratePerSecond)) return 0;
    if (this.#last !== undefined) {
      const refill = ((nowMs - this.#last) / 1_000) * this.#ratePerSecond;
      this.#tokens = Math.min(this.#burst, this.#tokens + Math.max(0, refill));
    }
    this.#last = nowMs;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.#ratePerSecond) * 1_000);
  }
}
