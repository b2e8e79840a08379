import type { FederatedTypeConfig } from '../../api/core/v1beta1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';

export type FtcAction = 'finalize' | 'start' | 'stop' | 'restart' | 'waitForNamespaces' | 'none';

/**
 * KubeFed's name-derived defaults (pkg/apis/core/v1beta1/federatedtypeconfig_types.go,
 * SetFederatedTypeConfigDefaults): an FTC named `plural.group` (or `plural` for the core group) may leave
 * targetType.pluralName and group empty. Returns a copy with them filled in and leaves `ftc` as it is (callers
 * pass informer caches), copying only the path it fills: a deep copy per call showed in the webhook's profile.
 */
export function applyFtcDefaults<T extends FederatedTypeConfig & KubeObject>(ftc: T): T {
  const target = ftc.spec?.targetType;
  if (!target) return ftc;
  const name = ftc.metadata?.name ?? '';
  const dot = name.indexOf('.');
  const plural = dot < 0 ? name : name.slice(0, dot);
  const group = dot < 0 ? '' : name.slice(dot + 1);
  return {
    ...ftc,
    spec: {
      ...ftc.spec,
      targetType: { ...target, pluralName: target.pluralName || plural, group: target.group || group },
    },
  };
}

/**
 * What the FTC controller must do with an FTC's sync controller (KubeFed
 * pkg/controller/federatedtypeconfig/controller.go, (*Controller).reconcile), as a pure decision.
 */
export function ftcControlPlan(input: {
  ftc: FederatedTypeConfig & KubeObject;
  controlPlaneScope: 'Cluster' | 'Namespaced';
  namespacesFtcPresent: boolean;
  running: boolean;
  runningGeneration: number | undefined;
  /** The FederatedNamespace type the running controller uses is no longer the current one. */
  namespaceTypeChanged?: boolean;
}): { action: FtcAction } {
  const { ftc, running } = input;
  if (ftc.metadata?.deletionTimestamp) return { action: 'finalize' };
  const enabled = ftc.spec?.propagation === 'Enabled';
  const targetNamespaced = ftc.spec?.targetType?.scope === 'Namespaced';
  // A namespaced control plane never propagates cluster-scoped types, Namespace included.
  if (input.controlPlaneScope === 'Namespaced' && !targetNamespaced)
    return { action: running ? 'stop' : 'none' };
  if (!enabled) return { action: running ? 'stop' : 'none' };
  if (targetNamespaced && !input.namespacesFtcPresent && input.controlPlaneScope === 'Cluster') {
    return { action: 'waitForNamespaces' };
  }
  if (!running) return { action: 'start' };
  if (input.runningGeneration !== (ftc.metadata?.generation ?? 0)) return { action: 'restart' };
  if (targetNamespaced && input.namespaceTypeChanged) return { action: 'restart' };
  return { action: 'none' };
}
