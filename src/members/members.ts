import type { KubeClient, KubeClientOptions } from '../kube/client/index.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Runnable } from '../runtime/manager.ts';
import { ClusterRegistry } from './cluster-registry.ts';
import { MemberCaches } from './member-caches.ts';

/**
 * The member clusters as one process-level component: the cluster registry (KubeFedClusters, their Secrets
 * and one client per member) and the member caches shared by every controller. The controller manager builds
 * it once and hands it to each controller, which reads members only through it.
 *
 * As a runnable it starts with the leader's controllers and stops after the last of them has let go
 * (`use()`), so no controller loses its member clients or caches while it is still stopping.
 */
export class Members implements Runnable {
  readonly name = 'members';
  readonly leaderOnly = true;
  readonly registry: ClusterRegistry;
  readonly caches: MemberCaches;
  readonly #users = new Set<symbol>();
  #idle: (() => void) | undefined;
  #started = false;

  constructor(opts: {
    host: KubeClient;
    namespace: string;
    clientOptions?: KubeClientOptions;
    logger?: Logger;
  }) {
    this.registry = new ClusterRegistry(opts);
    this.caches = new MemberCaches({ registry: this.registry, logger: opts.logger });
  }

  /** Starts following the registry (idempotent: whoever needs members first starts them). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.registry.start();
    this.caches.start();
  }

  waitForSync(): Promise<void> {
    return this.registry.waitForSync();
  }

  hasSynced(): boolean {
    return this.registry.hasSynced();
  }

  /** Marks a controller as using members until the returned function is called. */
  use(): () => void {
    const token = Symbol('member-user');
    this.#users.add(token);
    return () => {
      this.#users.delete(token);
      if (this.#users.size === 0) this.#idle?.();
    };
  }

  /**
   * The members as one of a controller's caches (runtime/controller's CacheSource): started if nobody has
   * yet, waited for before the first reconcile, and held until the controller's workers have finished.
   */
  asCache(): { start(): void; waitForSync(): Promise<void>; hasSynced(): boolean; stop(): Promise<void> } {
    let release: (() => void) | undefined;
    return {
      start: () => {
        this.start();
        release ??= this.use();
      },
      waitForSync: () => this.waitForSync(),
      hasSynced: () => this.hasSynced(),
      stop: async () => {
        release?.();
        release = undefined;
      },
    };
  }

  async run(signal: AbortSignal): Promise<void> {
    this.start();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (this.#users.size > 0) await new Promise<void>((resolve) => (this.#idle = resolve));
    await this.stop();
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.caches.stop();
    await this.registry.stop();
  }
}
