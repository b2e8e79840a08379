// Keyed, de-duplicating work queue with client-go's workqueue semantics: a FIFO of
// keys, a `dirty` set (keys needing work) and a `processing` set (keys handed out).
// A key is queued at most once and never handed to two workers at a time; a key
// re-added while processing is queued again on done(), so a burst of adds collapses
// into one follow-up reconcile.

import { DelayHeap } from './delay-heap.ts';
import type { WorkQueueMetrics } from './metrics.ts';
import { noopWorkQueueMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { defaultControllerRateLimiter } from './rate-limiter.ts';

export interface WorkQueueOptions {
  /** Queue name, passed to every metrics hook (client-go's `name` label). */
  name: string;
  /** Used by addRateLimited/forget/numRequeues; defaults to client-go's controller limiter. */
  rateLimiter?: RateLimiter;
  metrics?: WorkQueueMetrics;
  /** Clock in ms for delays and metrics; defaults to the monotonic performance.now(). */
  now?: () => number;
}

// setTimeout overflows above this and would fire immediately; longer waits re-arm.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue {
  readonly name: string;
  readonly #rateLimiter: RateLimiter;
  readonly #metrics: WorkQueueMetrics;
  readonly #now: () => number;

  // FIFO as array + head index: O(1) dequeue without a linked list.
  #queue: string[] = [];
  #head = 0;
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #addTimes = new Map<string, number>();
  readonly #startTimes = new Map<string, number>();
  readonly #getters: Array<(key: string | undefined) => void> = [];
  readonly #drainers: Array<() => void> = [];
  #shuttingDown = false;

  readonly #delayed = new DelayHeap();
  #timer: NodeJS.Timeout | undefined;
  // When the armed timer is due (clock ms); it delivers everything due by then.
  #timerDue = 0;

  constructor(opts: WorkQueueOptions) {
    this.name = opts.name;
    this.#now = opts.now ?? (() => performance.now());
    this.#rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.#now);
    this.#metrics = opts.metrics ?? noopWorkQueueMetrics;
  }

  /** The hooks this queue reports to (runWorkers adds its worker counts to them). */
  get metrics(): WorkQueueMetrics {
    return this.#metrics;
  }

  /** Marks `key` as needing work. No-op if it is already pending or the queue is shut down. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics.onAdd(this.name);
    this.#dirty.add(key);
    this.#addTimes.set(key, this.#now());
    this.#metrics.onDepth(this.name, this.#dirty.size);
    // A key in processing is queued by done(), never handed out twice.
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#dispatch();
  }

  /** Adds `key` after `ms`. If it is already waiting, the earlier delivery time wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    this.#metrics.onRetry(this.name);
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    this.#delayed.push(key, this.#now() + ms);
    this.#arm();
  }

  /** Adds `key` after the delay the rate limiter assigns (one more failure of `key`). */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  /** Resets the rate limiter's failure history of `key` (call after a successful reconcile). */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#rateLimiter.retries(key);
  }

  /**
   * Hands out the next key and marks it processing; the caller must call done(key).
   * Waits while the queue is empty; resolves undefined once the queue is shut down.
   */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    if (this.#head < this.#queue.length) return Promise.resolve(this.#take());
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Ends processing of `key`; re-queues it if it was added meanwhile. */
  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    const started = this.#startTimes.get(key);
    this.#startTimes.delete(key);
    if (started !== undefined) this.#metrics.onWorkDuration(this.name, (this.#now() - started) / 1000);
    if (this.#dirty.has(key)) {
      this.#queue.push(key);
      this.#dispatch();
    }
    if (this.#processing.size === 0) this.#notifyDrained();
  }

  /** Keys waiting to be handed out (excludes delayed keys and keys in processing). */
  len(): number {
    return this.#queue.length - this.#head;
  }

  /** Keys handed out by get() and not yet done(). */
  inFlight(): number {
    return this.#processing.size;
  }

  /** Keys waiting in the delay heap. */
  delayedLen(): number {
    return this.#delayed.size;
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Stops the queue: later adds are ignored, queued and delayed keys are dropped,
   * the timer is cleared and every pending and future get() resolves undefined.
   * Keys already in processing may still call done().
   */
  shutDown(): void {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      this.#clearTimer();
      this.#delayed.clear();
      this.#queue = [];
      this.#head = 0;
      this.#dirty.clear();
      this.#addTimes.clear();
      this.#metrics.onDepth(this.name, 0);
      for (const resolve of this.#getters.splice(0)) resolve(undefined);
    }
    if (this.#processing.size === 0) this.#notifyDrained();
  }

  isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** shutDown(), then resolves once every key in processing has been done(). */
  shutDownWithDrain(): Promise<void> {
    const drained = new Promise<void>((resolve) => this.#drainers.push(resolve));
    this.shutDown();
    return drained;
  }

  #take(): string {
    const key = this.#queue[this.#head]!;
    this.#head++;
    if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#dirty.delete(key);
    this.#processing.add(key);
    const now = this.#now();
    const added = this.#addTimes.get(key);
    this.#addTimes.delete(key);
    this.#startTimes.set(key, now);
    this.#metrics.onDepth(this.name, this.#dirty.size);
    if (added !== undefined) this.#metrics.onLatency(this.name, (now - added) / 1000);
    return key;
  }

  #dispatch(): void {
    while (this.#getters.length > 0 && this.#head < this.#queue.length) {
      this.#getters.shift()!(this.#take());
    }
  }

  #notifyDrained(): void {
    for (const resolve of this.#drainers.splice(0)) resolve();
  }

  // One timer for the earliest deadline; re-armed only when that deadline moves earlier.
  #arm(): void {
    const next = this.#delayed.peek();
    if (next === undefined) {
      this.#clearTimer();
      return;
    }
    if (this.#timer !== undefined && this.#timerDue <= next.readyAt) return;
    this.#clearTimer();
    const now = this.#now();
    const wait = Math.min(Math.max(0, next.readyAt - now), MAX_TIMER_MS);
    this.#timerDue = now + wait;
    this.#timer = setTimeout(() => this.#fire(), wait);
    // Pending delayed work must never keep the process alive.
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#shuttingDown) return;
    // Trust the timer for its own deadline: timers may fire slightly before the clock agrees.
    for (const key of this.#delayed.popReady(Math.max(this.#now(), this.#timerDue))) this.add(key);
    this.#arm();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
