// A KubeFedCluster as policies see it: the fields Karmada's ClusterAffinity and scheduler read from a
// Karmada Cluster (labels, spec.provider/region/zones, the Ready condition), taken from where kubefed-ts
// keeps them.

import { isClusterReady, type KubeFedCluster } from '../../api/core/v1beta1/kubefedcluster.ts';
import type { KubeObject } from '../../kube/client/types.ts';
import type { PolicyCluster } from './cluster-affinity.ts';

/** Region and zones come from status (the member's node labels), provider from spec.provider. */
export function policyClusterOf(kfc: KubeFedCluster & KubeObject): PolicyCluster {
  const cluster: PolicyCluster = {
    name: kfc.metadata.name ?? '',
    labels: { ...(kfc.metadata.labels ?? {}) },
    zones: [...(kfc.status?.zones ?? [])],
    ready: isClusterReady(kfc.status?.conditions),
  };
  if (kfc.spec.provider) cluster.provider = kfc.spec.provider;
  if (kfc.spec.taints && kfc.spec.taints.length > 0) cluster.taints = kfc.spec.taints.map((t) => ({ ...t }));
  if (kfc.status?.region) cluster.region = kfc.status.region;
  return cluster;
}
