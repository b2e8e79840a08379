// Whether a controller manager is alive, read from the leader-election Lease it renews (src/runtime/
// leader-election.ts, LEADER_LOCK_NAME of src/controller-manager/main.ts, in the KubeFed namespace). An FTC's
// `propagationController: Running` is never reset when the controller manager goes away, so the sync
// finalizer at admission also needs a leader that holds its lease now: else nothing would remove the
// finalizer at deletion, where KubeFed (which sets it later by PATCH) deletes the object at once.

import type { KubeObject } from '../kube/client/index.ts';

/** The controller manager's leader-election Lease (the same name as KubeFed's leader lock). */
export const CONTROLLER_MANAGER_LEASE_NAME = 'kubefed-controller-manager';

/**
 * How long past `renewTime + leaseDurationSeconds` a lease still counts as held: for clock skew between the
 * controller manager and the webhook, and the watch's delay. Small, because a lease wrongly counted as held
 * makes a delete wait for a controller, while one wrongly counted as lost costs one PATCH.
 */
export const LEASE_GRACE_MS = 2_000;

/** A coordination.k8s.io/v1 Lease, the fields read here. */
export interface LeaderLease extends KubeObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

/**
 * Whether the lease has a holder whose last renewal is recent enough, on the webhook's clock `nowMs`. No
 * lease (no controller manager ever started, or leader election not used), a released one (empty holder,
 * as a controller manager leaves it on a clean stop) or an expired one (a crashed or scaled-down one): no.
 */
export function controllerManagerLive(lease: LeaderLease | undefined, nowMs: number): boolean {
  const spec = lease?.spec;
  if (!spec?.holderIdentity) return false;
  const durationSeconds = spec.leaseDurationSeconds;
  if (typeof durationSeconds !== 'number' || !(durationSeconds > 0)) return false;
  const renewed = typeof spec.renewTime === 'string' ? Date.parse(spec.renewTime) : Number.NaN;
  if (Number.isNaN(renewed)) return false;
  return nowMs < renewed + durationSeconds * 1000 + LEASE_GRACE_MS;
}
