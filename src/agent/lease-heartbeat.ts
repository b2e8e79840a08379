// The agent's heartbeat: it renews the Lease `managed-cluster-lease` in its hub namespace, as OCM's
// registration agent does (ocm pkg/registration/spoke/lease/lease_controller.go, leaseUpdater.update: get,
// set renewTime, update, every leaseDuration with a 0.25 jitter). The hub's cluster health controller reads
// it (src/controllers/kubefedcluster/lease-health.ts). join creates the Lease, so the agent needs only
// get and update on that one name.
import { AGENT_LEASE_NAME } from '../api/core/v1beta1/index.ts';
import { CoreTypes, errorMessage, type KubeClient, type KubeObject } from '../kube/client/index.ts';
import { formatMicroTime } from '../runtime/leader-election.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import { sleep } from '../util/backoff.ts';

/** wait.JitterUntil's factor in OCM's lease updater. */
export const LEASE_UPDATE_JITTER = 0.25;

export interface AgentLeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    renewTime?: string;
    acquireTime?: string;
    leaseTransitions?: number;
  };
}

/**
 * The renewed Lease: renewTime now, and (a kubefed-ts addition: OCM keeps the duration on the ManagedCluster,
 * which KubeFed has no field for) the agent's lease duration and identity, which the hub's grace is computed from.
 */
export function renewedLease(
  lease: AgentLeaseObject,
  now: Date,
  holderIdentity: string,
  leaseDurationSeconds: number,
): AgentLeaseObject {
  return {
    ...lease,
    spec: { ...lease.spec, holderIdentity, leaseDurationSeconds, renewTime: formatMicroTime(now) },
  };
}

/** wait.Jitter: the period plus up to factor × period, `random` in [0, 1). */
export function jitteredPeriodMs(periodMs: number, random: number, factor = LEASE_UPDATE_JITTER): number {
  return periodMs + random * factor * periodMs;
}

export interface LeaseHeartbeatOptions {
  hub: KubeClient;
  /** The cluster's hub namespace (named after the cluster). */
  namespace: string;
  holderIdentity: string;
  leaseDurationMs: number;
  log?: Logger;
  random?: () => number;
}

/** Renews the lease until the signal aborts; an unreachable hub is logged once per outage and retried. */
export class LeaseHeartbeat {
  readonly #opts: LeaseHeartbeatOptions;
  readonly #log: Logger;
  #failing = false;
  #lastRenewal: Date | undefined;

  constructor(opts: LeaseHeartbeatOptions) {
    this.#opts = opts;
    this.#log = (opts.log ?? silentLogger).child({ lease: `${opts.namespace}/${AGENT_LEASE_NAME}` });
  }

  /** When the lease was last renewed by this process. */
  get lastRenewal(): Date | undefined {
    return this.#lastRenewal;
  }

  async run(signal: AbortSignal): Promise<void> {
    const random = this.#opts.random ?? Math.random;
    while (!signal.aborted) {
      await this.renew();
      await sleep(jitteredPeriodMs(this.#opts.leaseDurationMs, random()), signal);
    }
  }

  /** One renewal; returns whether it was written. */
  async renew(): Promise<boolean> {
    const { hub, namespace, holderIdentity, leaseDurationMs } = this.#opts;
    try {
      const lease = await hub.get<AgentLeaseObject>(CoreTypes.leases, AGENT_LEASE_NAME, namespace);
      const now = new Date();
      await hub.update(
        CoreTypes.leases,
        renewedLease(lease, now, holderIdentity, Math.max(1, Math.round(leaseDurationMs / 1000))),
      );
      this.#lastRenewal = now;
      if (this.#failing) this.#log.info('renewing the cluster lease on the hub again');
      this.#failing = false;
      return true;
    } catch (e) {
      if (!this.#failing)
        this.#log.warn({ err: errorMessage(e) }, 'cannot renew the cluster lease on the hub');
      this.#failing = true;
      return false;
    }
  }
}
