import type { KubeObject } from '../../kube/client/index.ts';
import type { Placement } from '../../propagation/placement.ts';
import type { FederatedStatus } from '../../propagation/status.ts';

/**
 * A `Federated<Kind>` object as the sync controller reads it (KubeFed pkg/controller/sync/resource.go,
 * federatedResource).
 */
export interface FederatedObject extends KubeObject {
  spec?: {
    template?: unknown;
    placement?: Placement;
    overrides?: unknown;
    retainReplicas?: boolean;
  };
  status?: FederatedStatus;
}

/** Namespaces that can never be federated (KubeFed's accessor skips them). */
export function isUnfederatableNamespace(name: string, kubefedNamespace: string): boolean {
  return name === 'kube-system' || name === 'kube-public' || name === 'default' || name === kubefedNamespace;
}
