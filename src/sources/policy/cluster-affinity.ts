// Which clusters a ClusterAffinity selects (karmada pkg/util/selector.go ClusterMatches): exclude first, then
// clusterNames, labelSelector and fieldSelector, all ANDed. Pure: the caller turns KubeFedClusters into
// PolicyClusters.

import type { Taint } from '../../api/core/v1beta1/kubefedcluster.ts';
import type { ClusterAffinity, FieldSelectorRequirement } from '../../api/policy/v1alpha1/index.ts';
import { compileLabelSelector } from '../../propagation/label-selector.ts';

/** A member cluster as policies see it. */
export interface PolicyCluster {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** KubeFedCluster `spec.provider` (a kubefed-ts addition, Karmada's Cluster.spec.provider). */
  provider?: string;
  /** KubeFedCluster `status.region`, from the member's node labels. */
  region?: string;
  /** KubeFedCluster `status.zones`. */
  zones: readonly string[];
  /** Ready as the health controller last said. */
  ready: boolean;
  /** KubeFedCluster `spec.taints` (kubefed-ts addition, Karmada's Cluster.spec.taints). */
  taints?: readonly Taint[];
}

/**
 * Whether the affinity selects the cluster. An undefined affinity selects every cluster. Throws
 * LabelSelectorError for an invalid label selector (the webhook refuses those; a stored one is reported).
 */
export function affinityMatches(affinity: ClusterAffinity | undefined, cluster: PolicyCluster): boolean {
  if (!affinity) return true;
  if (affinity.exclude?.includes(cluster.name)) return false;
  if (
    affinity.clusterNames &&
    affinity.clusterNames.length > 0 &&
    !affinity.clusterNames.includes(cluster.name)
  )
    return false;
  if (affinity.labelSelector && !compileLabelSelector(affinity.labelSelector)(cluster.labels)) return false;
  for (const req of affinity.fieldSelector?.matchExpressions ?? []) {
    if (!fieldRequirementMatches(req, cluster)) return false;
  }
  return true;
}

function fieldRequirementMatches(req: FieldSelectorRequirement, cluster: PolicyCluster): boolean {
  const values = req.values ?? [];
  if (req.key === 'zone') return zoneMatches(req.operator, values, cluster.zones);
  const actual =
    req.key === 'provider' ? cluster.provider : req.key === 'region' ? cluster.region : undefined;
  switch (req.operator) {
    case 'In':
      return actual !== undefined && values.includes(actual);
    case 'NotIn':
      return actual === undefined || !values.includes(actual);
    case 'Exists':
      return actual !== undefined && actual !== '';
    case 'DoesNotExist':
      return actual === undefined || actual === '';
    default:
      return false;
  }
}

/** Karmada's zone rules (selector.go matchZones): a cluster may span several zones. */
function zoneMatches(operator: string, values: readonly string[], zones: readonly string[]): boolean {
  switch (operator) {
    case 'In':
      return zones.some((z) => values.includes(z));
    case 'NotIn':
      return !zones.some((z) => values.includes(z));
    case 'Exists':
      return zones.length > 0;
    case 'DoesNotExist':
      return zones.length === 0;
    default:
      return false;
  }
}
