// A controller assembled in a few lines, in the spirit of controller-runtime's builder: a work queue, the
// informers (and other caches) whose events feed it, other event sources, hooks, and the workers that run
// the reconcile, started and stopped in the one order every controller needs.
import type { KubeObject } from '../kube/client/index.ts';
import { logFailure } from './failure-log.ts';
import type { Enqueue, EventHandler } from './handlers.ts';
import { Informer, type InformerOptions } from './informer/index.ts';
import { type Logger, silentLogger } from './logger.ts';
import { measuredReconcile, prometheusWorkQueueMetrics } from './metrics.ts';
import type { ReconcileResult } from './reconcile.ts';
import {
  kubefedRateLimiter,
  noopWorkQueueMetrics,
  type RateLimiter,
  runWorkers,
  WorkQueue,
} from './workqueue/index.ts';

/** A cache the workers wait for, started and stopped with the controller: an informer, a store, a registry. */
export interface CacheSource {
  start(): void;
  waitForSync(): Promise<void>;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

/** Subscribes to events that do not come from an informer (a listener); returns how to unsubscribe. */
export type EventSource = (enqueue: Enqueue) => (() => void | Promise<void>) | undefined;

export interface ControllerOptions {
  /** The queue's name and the reconcile metrics' `controller` label. */
  name: string;
  logger?: Logger;
  /** Reconciles one key; without it the controller only keeps its caches and runs its own loops. */
  reconcile?: (key: string) => Promise<ReconcileResult>;
  /** Concurrent reconciles (default 1). */
  workers?: number;
  /** The queue's per-key backoff (default KubeFed's: 5 s doubling to 60 s). */
  rateLimiter?: RateLimiter;
}

/**
 * Runs as: subscribe the event sources; start the caches; wait for them to sync (or the stop); run the
 * start hooks one after the other; start the workers and loops. On stop: shut the queue down, unsubscribe,
 * let the workers finish their keys, run the stop hooks, stop the caches.
 */
export class Controller {
  readonly name: string;
  readonly #opts: ControllerOptions;
  readonly #log: Logger;
  readonly #queue: WorkQueue;
  readonly #caches: CacheSource[] = [];
  readonly #sources: EventSource[] = [];
  readonly #startHooks: Array<(signal: AbortSignal) => void | Promise<void>> = [];
  readonly #loops: Array<(signal: AbortSignal) => Promise<void>> = [];
  readonly #stopHooks: Array<() => void | Promise<void>> = [];
  readonly #stop = new AbortController();
  #started = false;
  #running: Promise<void> | undefined;

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.#log = opts.logger ?? silentLogger;
    this.#queue = new WorkQueue({
      name: opts.name,
      rateLimiter: opts.rateLimiter ?? kubefedRateLimiter(),
      // Without a reconcile the queue is never used: it must not show up in the queue metrics.
      metrics: opts.reconcile ? prometheusWorkQueueMetrics : noopWorkQueueMetrics,
    });
  }

  /** Adds a key to the queue (after `delayMs` when given), from a reconcile or a callback. */
  readonly enqueue: Enqueue = (key, delayMs) => {
    if (delayMs !== undefined && delayMs > 0) this.#queue.addAfter(key, delayMs);
    else this.#queue.add(key);
  };

  /** Watches a type with an informer whose events go through `handlers`; returns the informer. */
  watch<T extends KubeObject>(
    opts: Omit<InformerOptions, 'logger'>,
    ...handlers: EventHandler<T>[]
  ): Informer<T> {
    const informer = new Informer<T>({ ...opts, logger: this.#log });
    for (const h of handlers) informer.addHandlers(h(this.enqueue));
    this.#caches.push(informer);
    return informer;
  }

  /** A cache the controller starts, waits for and stops, like a watched informer. */
  cache(source: CacheSource): this {
    this.#caches.push(source);
    return this;
  }

  /** Events from elsewhere: subscribed when the controller starts, unsubscribed when it stops. */
  source(subscribe: EventSource): this {
    this.#sources.push(subscribe);
    return this;
  }

  /** Work that must be done before the workers run and after the caches synced (e.g. loading state). */
  beforeWorkers(hook: (signal: AbortSignal) => void | Promise<void>): this {
    this.#startHooks.push(hook);
    return this;
  }

  /** Work of its own, run with the workers until the stop (e.g. a periodic probe). */
  loop(body: (signal: AbortSignal) => Promise<void>): this {
    this.#loops.push(body);
    return this;
  }

  /** Run after the workers finished and before the caches stop (e.g. stopping what the reconciles started). */
  onStop(hook: () => void | Promise<void>): this {
    this.#stopHooks.push(hook);
    return this;
  }

  hasSynced(): boolean {
    return this.#caches.every((c) => c.hasSynced());
  }

  /** Runs until `signal` aborts; resolves once everything is stopped. Once per controller. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error(`controller ${this.name} runs already`);
    this.#started = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const unsubscribes = this.#sources.map((subscribe) => subscribe(this.enqueue));
    for (const c of this.#caches) c.start();
    let work: Promise<unknown> = Promise.resolve();
    try {
      await Promise.race([Promise.all(this.#caches.map((c) => c.waitForSync())), stopped]);
      for (const hook of this.#startHooks) {
        if (signal.aborted) break;
        await hook(signal);
      }
      if (!signal.aborted) work = Promise.all([this.#workers(), ...this.#loops.map((body) => body(signal))]);
      await stopped;
    } finally {
      this.#queue.shutDown();
      await Promise.all([...unsubscribes.map((u) => u?.()), work]);
      for (const hook of this.#stopHooks) await hook();
      await Promise.all(this.#caches.map((c) => c.stop()));
    }
  }

  /** Runs in the background until stop(), for controllers that are started and stopped by their owner. */
  start(): void {
    this.#running ??= this.run(this.#stop.signal).catch((e: unknown) => {
      logFailure(this.#log, 'controller stopped on an error', { err: e });
    });
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  #workers(): Promise<void> | undefined {
    const { reconcile, workers = 1 } = this.#opts;
    if (!reconcile) return undefined;
    return runWorkers(this.#queue, workers, measuredReconcile(this.name, reconcile), { logger: this.#log });
  }
}
