import { CoreTypes, isConflict, isNotFound, type KubeClient, type KubeObject } from '../kube/client/index.ts';
import { sleep } from '../util/backoff.ts';
import { type Logger, silentLogger } from './logger.ts';
import { leaderStatus } from './metrics.ts';

interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionConfig {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger?: Logger;
}

/** Lease times are MicroTime: the API server insists on exactly six fractional digits. */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease with client-go's algorithm: a held lease is only taken
 * over once it has not been renewed for leaseDuration as measured on *our* monotonic clock since we last saw
 * it change (so clock skew between candidates does not matter); every write uses optimistic concurrency.
 */
export class LeaderElector {
  readonly #cfg: LeaderElectionConfig;
  readonly #log: Logger;
  #observed: { record: string; at: number } | undefined;
  #leading = false;

  constructor(cfg: LeaderElectionConfig) {
    this.#cfg = cfg;
    this.#log = (cfg.logger ?? silentLogger).child({
      lease: `${cfg.namespace}/${cfg.name}`,
      identity: cfg.identity,
    });
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /**
   * Blocks until this candidate holds the lease (resolves true) or the signal aborts (resolves false).
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    let logged = false;
    while (!signal.aborted) {
      if (await this.#tryAcquireOrRenew()) {
        this.#leading = true;
        leaderStatus.set({ name: this.#cfg.name }, 1);
        this.#log.info('promoted as leader');
        return true;
      }
      if (!logged) {
        this.#log.info('lease is held by another candidate; standing by');
        logged = true;
      }
      await sleep(this.#cfg.retryPeriodMs * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  /**
   * Renews every retryPeriod while leading. Resolves when leadership is lost (no successful renewal within
   * renewDeadline) or when the signal aborts; returns which.
   */
  async holdLease(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    let lastRenew = performance.now();
    while (!signal.aborted) {
      await sleep(this.#cfg.retryPeriodMs, signal);
      if (signal.aborted) break;
      if (await this.#tryAcquireOrRenew()) {
        lastRenew = performance.now();
      } else if (performance.now() - lastRenew > this.#cfg.renewDeadlineMs) {
        this.#leading = false;
        leaderStatus.set({ name: this.#cfg.name }, 0);
        this.#log.error('leader election lost');
        return 'lost';
      }
    }
    return 'stopped';
  }

  /** Gives the lease up so that a standby takes over at once instead of after leaseDuration. */
  async release(): Promise<void> {
    if (!this.#leading) return;
    this.#leading = false;
    leaderStatus.set({ name: this.#cfg.name }, 0);
    try {
      const lease = await this.#cfg.client.get<Lease>(CoreTypes.leases, this.#cfg.name, this.#cfg.namespace);
      if (lease.spec?.holderIdentity !== this.#cfg.identity) return;
      const now = formatMicroTime(new Date());
      await this.#cfg.client.update<Lease>(CoreTypes.leases, {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: now,
          acquireTime: now,
        },
      });
      this.#log.info('released leader lease');
    } catch (e) {
      this.#log.warn({ err: (e as Error).message }, 'could not release the leader lease');
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.#cfg;
    const now = new Date();
    const durationSeconds = Math.ceil(this.#cfg.leaseDurationMs / 1000);
    try {
      let lease: Lease;
      try {
        lease = await client.get<Lease>(CoreTypes.leases, name, namespace);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        await client.create<Lease>(CoreTypes.leases, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: formatMicroTime(now),
            renewTime: formatMicroTime(now),
            leaseTransitions: 0,
          },
        });
        return true;
      }
      const spec = lease.spec ?? {};
      const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
      if (this.#observed?.record !== record) this.#observed = { record, at: performance.now() };
      const holder = spec.holderIdentity ?? '';
      const heldByOther = holder !== '' && holder !== identity;
      const expiresAt = this.#observed.at + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (heldByOther && performance.now() < expiresAt) return false;

      const isRenewal = holder === identity;
      await client.update<Lease>(CoreTypes.leases, {
        ...lease,
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: isRenewal && spec.acquireTime ? spec.acquireTime : formatMicroTime(now),
          renewTime: formatMicroTime(now),
          leaseTransitions: isRenewal ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
        },
      });
      return true;
    } catch (e) {
      // 409 means another candidate wrote first; anything else (unreachable host) is retried next period.
      if (!isConflict(e)) this.#log.warn({ err: (e as Error).message }, 'lease update failed');
      return false;
    }
  }
}
