import { type Check, ProbeServer } from './http-server.ts';
import { type LeaderElectionConfig, LeaderElector } from './leader-election.ts';
import { type Logger, silentLogger } from './logger.ts';
import { collectProcessMetrics, registry } from './metrics.ts';

/** Something the manager runs: it works until the signal aborts, then cleans up and resolves. */
export interface Runnable {
  name: string;
  /** Leader-only runnables (every controller) start after the lease is won; others start at once. */
  leaderOnly: boolean;
  run(signal: AbortSignal): Promise<void>;
}

export interface ManagerOptions {
  logger?: Logger;
  healthAddr?: string;
  metricsAddr?: string;
  leaderElection?: Omit<LeaderElectionConfig, 'logger'>;
  /** How long runnables get to finish after stop is asked for. */
  gracefulShutdownMs?: number;
}

export type ManagerExit = 'stopped' | 'leadership-lost';

/**
 * Runs a process's controllers: probe and metrics endpoints first, then leader election, then the
 * controllers; on stop (SIGTERM) it stops the controllers, waits for them, and releases the lease.
 */
export class Manager {
  readonly #opts: ManagerOptions;
  readonly #log: Logger;
  readonly #runnables: Runnable[] = [];
  readonly #probes: ProbeServer;
  readonly #metrics: ProbeServer | undefined;
  #elector: LeaderElector | undefined;
  #started = false;

  constructor(opts: ManagerOptions) {
    this.#opts = opts;
    this.#log = opts.logger ?? silentLogger;
    collectProcessMetrics();
    const shared = !opts.metricsAddr || opts.metricsAddr === opts.healthAddr;
    this.#probes = new ProbeServer({ serveProbes: true, registry: shared ? registry : undefined });
    this.#metrics = shared ? undefined : new ProbeServer({ serveProbes: false, registry });
    this.#probes.addHealthCheck('ping', () => true);
    this.#probes.addReadyCheck('started', () => this.#started || 'not started');
  }

  add(runnable: Runnable): void {
    this.#runnables.push(runnable);
  }

  addReadyCheck(name: string, check: Check): void {
    this.#probes.addReadyCheck(name, check);
  }

  get isLeader(): boolean {
    return this.#elector?.isLeader ?? true;
  }

  async run(signal: AbortSignal): Promise<ManagerExit> {
    if (this.#opts.healthAddr) {
      const a = await this.#probes.listen(this.#opts.healthAddr);
      this.#log.info({ address: `${a.address}:${a.port}` }, 'serving /healthz and /readyz');
    }
    if (this.#metrics && this.#opts.metricsAddr) {
      const a = await this.#metrics.listen(this.#opts.metricsAddr);
      this.#log.info({ address: `${a.address}:${a.port}` }, 'serving /metrics');
    }
    this.#started = true;
    const stopRunnables = new AbortController();
    const running: Promise<void>[] = [];
    const start = (r: Runnable) =>
      running.push(
        r.run(stopRunnables.signal).catch((e: unknown) => {
          this.#log.error({ runnable: r.name, err: (e as Error).message }, 'runnable failed');
        }),
      );
    for (const r of this.#runnables.filter((r) => !r.leaderOnly)) start(r);

    let exit: ManagerExit = 'stopped';
    if (this.#opts.leaderElection) {
      this.#elector = new LeaderElector({ ...this.#opts.leaderElection, logger: this.#log });
      if (await this.#elector.acquire(signal)) {
        for (const r of this.#runnables.filter((r) => r.leaderOnly)) start(r);
        exit = (await this.#elector.holdLease(signal)) === 'lost' ? 'leadership-lost' : 'stopped';
      }
    } else {
      for (const r of this.#runnables.filter((r) => r.leaderOnly)) start(r);
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }

    this.#log.info({ reason: exit }, 'stopping controllers');
    stopRunnables.abort();
    const grace = this.#opts.gracefulShutdownMs ?? 20_000;
    const timedOut = await Promise.race([
      Promise.all(running).then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), grace).unref()),
    ]);
    if (timedOut) this.#log.warn({ graceMs: grace }, 'controllers did not stop within the grace period');
    if (exit === 'stopped') await this.#elector?.release();
    await this.#probes.close();
    await this.#metrics?.close();
    return exit;
  }
}

/** An AbortSignal that fires on SIGTERM or SIGINT; a second signal exits at once. */
export function signalsHandler(log: Logger): AbortSignal {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (ac.signal.aborted) {
      log.warn({ signal: sig }, 'second signal; exiting now');
      process.exit(1);
    }
    log.info({ signal: sig }, 'shutting down');
    ac.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return ac.signal;
}
