/**
 * Client-side request throttling per cluster, like client-go's QPS/Burst: a member that is slow
 * or throttling must never be flooded by the control plane.
 */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;
  #waiters: Array<() => void> = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(qps: number, burst: number) {
    this.#qps = qps;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
    this.#last = performance.now();
  }

  /** Resolves when a request may be sent. */
  take(): Promise<void> {
    if (this.#qps <= 0) return Promise.resolve();
    this.#refill();
    if (this.#waiters.length === 0 && this.#tokens >= 1) {
      this.#tokens -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#schedule();
    });
  }

  #refill(): void {
    const now = performance.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
  }

  #schedule(): void {
    if (this.#timer) return;
    const waitMs = Math.max(1, ((1 - this.#tokens) / this.#qps) * 1000);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#refill();
      while (this.#waiters.length > 0 && this.#tokens >= 1) {
        this.#tokens -= 1;
        this.#waiters.shift()?.();
      }
      if (this.#waiters.length > 0) this.#schedule();
    }, waitMs);
    this.#timer.unref();
  }
}
