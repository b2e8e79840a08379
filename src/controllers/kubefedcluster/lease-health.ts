import { AGENT_LEASE_NAME } from '../../api/core/v1beta1/index.ts';
import type { ProbeResult } from './health.ts';

/**
 * A Pull cluster is never probed: the hub holds no credential for it. It is healthy while its kubefed-agent
 * renews the Lease `managed-cluster-lease` in the hub namespace named after the cluster. OCM's rule (ocm
 * pkg/registration/hub/lease/controller.go, leaseController.sync): the lease has expired once
 * `now >= renewTime + 5 × leaseDurationSeconds`.
 */
export const LEASE_GRACE_MULTIPLIER = 5;
/** OCM's LeaseDurationSeconds default, used when the lease does not say. */
export const DEFAULT_LEASE_DURATION_SECONDS = 60;

export const AGENT_LEASE_READY_MESSAGE = 'kubefed-agent renews its lease';

/** The fields of a coordination.k8s.io/v1 Lease that the decision reads. */
export interface AgentLease {
  spec?: { renewTime?: string; leaseDurationSeconds?: number; holderIdentity?: string };
}

/** How long after its last renewal a lease counts as fresh. */
export function leaseGraceMs(lease: AgentLease): number {
  const seconds = lease.spec?.leaseDurationSeconds || DEFAULT_LEASE_DURATION_SECONDS;
  return LEASE_GRACE_MULTIPLIER * seconds * 1000;
}

/**
 * What a Pull cluster's lease says of it, as a probe result, so it gets KubeFed's condition vocabulary:
 * `ready` while fresh; `unreachable` (Offline=True, ClusterNotReachable) when missing, never renewed or
 * expired. OCM sets ManagedCluster Available=Unknown there (reason ManagedClusterLeaseUpdateStopped); KubeFed
 * has no Unknown, and Offline is its word for "the control plane cannot tell".
 */
export function leaseProbe(cluster: string, lease: AgentLease | undefined, nowMs: number): ProbeResult {
  const where = `${cluster}/${AGENT_LEASE_NAME}`;
  if (!lease) {
    return {
      kind: 'unreachable',
      error: `no Lease ${where} on the hub (was the cluster joined with --mode pull?)`,
    };
  }
  const renewTime = lease.spec?.renewTime;
  const renewedAt = renewTime ? Date.parse(renewTime) : Number.NaN;
  if (!Number.isFinite(renewedAt)) {
    return { kind: 'unreachable', error: `kubefed-agent has not renewed its Lease ${where} yet` };
  }
  const graceMs = leaseGraceMs(lease);
  if (!(nowMs < renewedAt + graceMs)) {
    return {
      kind: 'unreachable',
      error: `kubefed-agent stopped renewing its Lease ${where}: last renewed ${renewTime}, grace ${graceMs / 1000}s`,
    };
  }
  return { kind: 'ready', message: AGENT_LEASE_READY_MESSAGE };
}
