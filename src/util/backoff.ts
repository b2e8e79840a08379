/** Exponential backoff with jitter for reconnect loops (client-go's reflector uses 800 ms → 30 s). */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #jitter: number;
  #current: number;

  constructor(initialMs = 800, maxMs = 30_000, jitter = 0.2) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#jitter = jitter;
    this.#current = initialMs;
  }

  /** The next delay; each call doubles the base up to the cap. */
  next(): number {
    const base = this.#current;
    this.#current = Math.min(this.#maxMs, this.#current * 2);
    return Math.round(base * (1 + this.#jitter * (Math.random() * 2 - 1)));
  }

  reset(): void {
    this.#current = this.#initialMs;
  }
}

/** Sleeps, waking early (without error) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
