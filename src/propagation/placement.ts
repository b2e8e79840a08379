// Which member clusters a federated object is propagated to (KubeFed pkg/controller/util/placement.go).

import { isPlainObject } from './json.ts';
import { compileLabelSelector, type LabelSelector } from './label-selector.ts';

export interface ClusterReference {
  name: string;
}

export interface Placement {
  clusters?: ClusterReference[] | null;
  clusterSelector?: LabelSelector | null;
}

/** A KubeFedCluster as placement sees it: its name and its metadata.labels. */
export interface ClusterInfo {
  name: string;
  labels?: Record<string, string>;
}

/** `spec.placement` has a shape KubeFed could not have decoded (the CRD schema was bypassed or relaxed). */
export class PlacementError extends Error {
  override name = 'PlacementError';
}

/**
 * The clusters one placement selects, restricted to existing clusters:
 * `clusters` present (even empty) wins over the selector; a nil selector selects nothing; `{}`
 * selects everything. Throws LabelSelectorError or PlacementError for invalid input.
 */
export function selectedClusterNames(
  placement: Placement | undefined,
  clusters: readonly ClusterInfo[],
): Set<string> {
  const selected = new Set<string>();
  if (placement === undefined || placement === null) return selected;
  if (!isPlainObject(placement)) throw new PlacementError('placement must be an object');

  const names: unknown = placement.clusters;
  // null is what Go decodes as a nil slice: same as absent.
  if (names !== undefined && names !== null) {
    if (!Array.isArray(names)) throw new PlacementError('placement.clusters must be a list');
    const wanted = new Set<string>();
    names.forEach((ref: unknown, i) => {
      if (!isPlainObject(ref) || typeof ref.name !== 'string')
        throw new PlacementError(`placement.clusters[${i}] must be an object with a string name`);
      wanted.add(ref.name);
    });
    for (const cluster of clusters) if (wanted.has(cluster.name)) selected.add(cluster.name);
    return selected;
  }

  const selector: unknown = placement.clusterSelector;
  if (selector === undefined || selector === null) return selected;
  if (!isPlainObject(selector)) throw new PlacementError('placement.clusterSelector must be an object');
  const match = compileLabelSelector(selector);
  for (const cluster of clusters) if (match(cluster.labels)) selected.add(cluster.name);
  return selected;
}

export interface ResolvePlacementInput {
  placement: Placement | undefined;
  /** The federated type is namespaced (FederatedNamespace itself included). */
  namespaced: boolean;
  /**
   * Placement of the FederatedNamespace of the object's namespace. `null`: there is none.
   * `undefined`: not applicable (cluster-scoped types, or the FederatedNamespace itself).
   */
  namespacePlacement: Placement | undefined | null;
  controlPlaneScope: 'Cluster' | 'Namespaced';
  clusters: readonly ClusterInfo[];
}

export interface ResolvedPlacement {
  clusters: Set<string>;
  /** Cluster-scoped control plane and no FederatedNamespace: the aggregate reason is NamespaceNotFederated. */
  namespaceNotFederated: boolean;
}

/** Placement of a federated object combined with its FederatedNamespace (KubeFed ComputeNamespacedPlacement). */
export function resolvePlacement(input: ResolvePlacementInput): ResolvedPlacement {
  // The resource placement is computed first so that its errors win, as in KubeFed.
  const own = selectedClusterNames(input.placement, input.clusters);
  if (!input.namespaced || input.namespacePlacement === undefined) {
    return { clusters: own, namespaceNotFederated: false };
  }
  if (input.namespacePlacement === null) {
    // A namespaced control plane's namespace exists in every member, so it is implicitly federated.
    if (input.controlPlaneScope === 'Namespaced') return { clusters: own, namespaceNotFederated: false };
    return { clusters: new Set(), namespaceNotFederated: true };
  }
  const ns = selectedClusterNames(input.namespacePlacement, input.clusters);
  return { clusters: new Set([...own].filter((c) => ns.has(c))), namespaceNotFederated: false };
}
