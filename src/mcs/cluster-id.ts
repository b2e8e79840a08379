// A member's MCS cluster id (KEP-2149 ClusterId): what ServiceImport status.clusters, the source-cluster
// label of EndpointSlices and `<hostname>.<clusterid>.<svc>.<ns>.svc.clusterset.local` name it by.

import { createHash } from 'node:crypto';
import { CLUSTER_ID_PROPERTY, CLUSTERSET_PROPERTY } from '../api/about/v1alpha1/clusterproperty.ts';
import { dns1123SubdomainErrors } from '../kube/validation.ts';

const MAX_LABEL = 63;
const HASH_LENGTH = 10;

/**
 * KEP-2149: a cluster id is an RFC 1123 DNS subdomain (≤ 253) whose every label is ≤ 63 — in practice a
 * label, or `<name>.<extra-label>` (KEP-1645 "Cluster ID").
 */
export function isValidClusterId(id: string): boolean {
  return dns1123SubdomainErrors(id).length === 0 && id.split('.').every((label) => label.length <= MAX_LABEL);
}

/**
 * The member's ClusterProperty `cluster.clusterset.k8s.io` if valid, else its `id.k8s.io` if valid, else
 * the KubeFedCluster name, lower-cased; a name that is still no valid id (a label over 63 characters, say)
 * becomes an RFC 1123 label from its first characters and a hash of it, so that distinct names stay distinct.
 */
export function clusterIdFor(
  clusterName: string,
  properties: { clusterId?: string; legacyId?: string },
): string {
  for (const candidate of [properties.clusterId, properties.legacyId]) {
    if (candidate && isValidClusterId(candidate)) return candidate;
  }
  const lower = clusterName.toLowerCase();
  if (isValidClusterId(lower)) return lower;
  const hash = createHash('sha256').update(clusterName).digest('hex').slice(0, HASH_LENGTH);
  const head = lower
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, MAX_LABEL - HASH_LENGTH - 1)
    .replace(/^-+|-+$/g, '');
  return head ? `${head}-${hash}` : hash;
}

/**
 * The ClusterProperties kubefed-ts creates on a member: `cluster.clusterset.k8s.io` (= the id it uses) and
 * `clusterset.k8s.io` (= the clusterset's name), each only when absent — a value a cluster admin set is never
 * overwritten, even one kubefed-ts cannot use as an id.
 */
export function clusterPropertiesToWrite(input: {
  clusterId: string;
  clusterSet: string;
  existing: { clusterId?: string; legacyId?: string; clusterSet?: string };
}): Array<{ name: string; value: string }> {
  const writes: Array<{ name: string; value: string }> = [];
  if (!input.existing.clusterId) writes.push({ name: CLUSTER_ID_PROPERTY, value: input.clusterId });
  if (!input.existing.clusterSet) writes.push({ name: CLUSTERSET_PROPERTY, value: input.clusterSet });
  return writes;
}
