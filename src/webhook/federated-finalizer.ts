// The sync finalizer set at admission: a Federated<Kind> is created with `kubefed.io/sync-controller`
// already in its finalizers, so the sync controller's first reconcile finds it and writes nothing (KubeFed
// adds it moments later with a PATCH, pkg/controller/sync/controller.go ensureFinalizer, which stays the
// fallback). Pure decisions only; the webhook's informers supply the view of the control plane.

import type { FederatedTypeConfig } from '../api/core/v1beta1/index.ts';
import { ControllerStatus } from '../api/core/v1beta1/index.ts';
import type { KubeFedScope } from '../api/core/v1beta1/kubefedconfig.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { SYNC_FINALIZER } from '../propagation/constants.ts';
import { isPlainObject, type JsonObject } from '../propagation/json.ts';
import { isUnfederatableNamespace } from '../sources/federated/federated-object.ts';
import { applyFtcDefaults, ftcControlPlan } from '../sources/federated/type-config-plan.ts';
import { controllerManagerLive, type LeaderLease } from './controller-manager-lease.ts';
import type { JsonPatchOperation } from './kubefedconfig.ts';

type FtcObject = FederatedTypeConfig & KubeObject;

/** What the webhook knows of the control plane, from its informers in the KubeFed namespace. */
export interface ControlPlaneView {
  kubefedNamespace: string;
  /** The KubeFedConfig's scope. */
  scope: KubeFedScope;
  ftcs: readonly FtcObject[];
  /** The controller manager's leader-election Lease; undefined when there is none. */
  controllerManagerLease: LeaderLease | undefined;
  /** The time of the admission request, to judge the lease by. */
  nowMs: number;
}

/** The Federated<Kind> being created: its REST group/plural and where it lives. */
export interface FederatedTarget {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * Whether a sync controller runs for objects of this federated type and place, so that it will also remove
 * the finalizer again at deletion. Without one (no live controller manager, type disabled or unknown,
 * another tenant's namespace, an object the controller skips) a finalizer would keep the object from being
 * deleted, where KubeFed deletes it at once: then nothing is set.
 */
export function syncControllerRuns(view: ControlPlaneView, target: FederatedTarget): boolean {
  // The FTC status stays Running after the controller manager stops: its lease tells whether one leads now.
  if (!controllerManagerLive(view.controllerManagerLease, view.nowMs)) return false;
  // A namespaced control plane watches its own namespace only.
  if (view.scope === 'Namespaced' && target.namespace !== view.kubefedNamespace) return false;
  const namespacesFtcPresent = view.ftcs.some(
    (f) => f.metadata.name === 'namespaces' && !f.metadata.deletionTimestamp,
  );
  for (const raw of view.ftcs) {
    const fed = raw.spec?.federatedType;
    if (!fed || (fed.group ?? '') !== target.group || fed.pluralName !== target.resource) continue;
    const ftc = applyFtcDefaults(raw);
    // The FTC controller's own decision, as for a controller not yet running: would it start one?
    const plan = ftcControlPlan({
      ftc,
      controlPlaneScope: view.scope,
      namespacesFtcPresent,
      running: false,
      runningGeneration: undefined,
    });
    if (plan.action !== 'start') return false;
    // And it says one runs for this generation: not a controller manager that has yet to act on a change.
    const status = ftc.status;
    if (status?.propagationController !== ControllerStatus.Running) return false;
    if (status.observedGeneration !== (ftc.metadata.generation ?? 0)) return false;
    const targetType = ftc.spec.targetType;
    if (targetType.kind === 'Namespace' && (targetType.group ?? '') === '') {
      // The sync controller skips these FederatedNamespaces without ever finalizing them.
      if (target.name !== target.namespace) return false;
      if (isUnfederatableNamespace(target.name, view.kubefedNamespace)) return false;
    }
    return true;
  }
  return false;
}

/**
 * The JSON patch that adds the sync finalizer to an object being created: the list itself when there is
 * none, else an append; nothing when it is there already or the metadata is not what the API accepts.
 */
export function syncFinalizerPatch(obj: JsonObject): JsonPatchOperation[] {
  const metadata = obj['metadata'];
  if (!isPlainObject(metadata)) return [];
  const finalizers = metadata['finalizers'];
  if (finalizers === undefined || finalizers === null) {
    return [{ op: 'add', path: '/metadata/finalizers', value: [SYNC_FINALIZER] }];
  }
  if (!Array.isArray(finalizers) || finalizers.includes(SYNC_FINALIZER)) return [];
  return [{ op: 'add', path: '/metadata/finalizers/-', value: SYNC_FINALIZER }];
}
