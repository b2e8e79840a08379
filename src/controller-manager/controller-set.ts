import type { FeatureGate } from '../config/feature-gates.ts';

/** Which of the controller manager's controllers run, decided from the KubeFedConfig's feature gates. */
export interface ControllerSet {
  /** The KubeFedCluster health controller: always, as in KubeFed. */
  clusterHealth: true;
  /** OCM's hub controllers: Placement decisions, ManifestWorkReplicaSets, completed-work TTL. Always on. */
  manifestWorkHub: true;
  /** The FederatedTypeConfig controller, and through it every sync controller (propagation). */
  federatedTypeConfig: boolean;
  /** The ReplicaSchedulingPreference controller. */
  scheduling: boolean;
  /** The multi-cluster DNS controllers (ServiceDNSRecord, IngressDNSRecord). */
  dns: boolean;
  /**
   * OCM's work agent in push mode, one per ready Push-mode KubeFedCluster (src/sources/manifestwork): always,
   * being a kubefed-ts addition no KubeFed gate governs (main.ts runs it in a cluster-scoped control plane
   * only); idle (one namespaced informer per cluster) while no ManifestWorks exist.
   */
  manifestWorkPush: true;
  /**
   * SIG-Multicluster's Multi-Cluster Services (src/sources/mcs): always, a kubefed-ts addition no KubeFed gate
   * governs (main.ts runs it in a cluster-scoped control plane only); idle (one ServiceExport watch per member)
   * while no member exports a service.
   */
  mcs: true;
  /** Why a controller that KubeFed would run does not, for the start-up log; empty when none. */
  notStarted: string[];
}

/**
 * KubeFed's startControllers (cmd/controller-manager/app/controller-manager.go): the cluster controller
 * always; the scheduling manager when SchedulerPreferences is on; the FederatedTypeConfig controller (and
 * with it all sync controllers) when PushReconciler is on.
 *
 * One deliberate difference: kubefed-ts's RSP and DNS controllers read federated objects from the sync
 * controllers' caches, and member objects from the member caches those share, rather than keeping their own,
 * so with PushReconciler off they do not start either. KubeFed's scheduling manager still ran then and kept rewriting the placement and replica overrides
 * of FederatedDeployments/ReplicaSets that nothing propagated; here those are left as they are until
 * propagation is enabled again (docs/differences-from-kubefed.md).
 */
export function controllerSet(gates: Readonly<Record<FeatureGate, boolean>>): ControllerSet {
  const push = gates.PushReconciler;
  const notStarted: string[] = [];
  if (!push) {
    notStarted.push(
      'PushReconciler is Disabled: no FederatedTypeConfig or sync controller runs, nothing is propagated',
    );
    if (gates.SchedulerPreferences) {
      notStarted.push(
        'SchedulerPreferences is Enabled but ReplicaSchedulingPreferences are not scheduled: ' +
          'the RSP controller reads the sync controllers, which PushReconciler Disabled does not start',
      );
    }
  }
  return {
    clusterHealth: true,
    manifestWorkHub: true,
    federatedTypeConfig: push,
    scheduling: push && gates.SchedulerPreferences,
    dns: push,
    manifestWorkPush: true,
    mcs: true,
    notStarted,
  };
}
