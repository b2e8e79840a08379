// Writes a KubeFedCluster's spec.taints when a decision says they change: the health controller, the
// ClusterTaintPolicy controller and kubefedctl cordon/taint all go through it. A conflict re-reads the
// cluster and decides again on the fresh taints, so a taint someone else wrote meanwhile is never lost.

import { API_VERSION } from '../../api/core/v1beta1/group.ts';
import { KUBEFED_CLUSTER_KIND, type KubeFedCluster } from '../../api/core/v1beta1/kubefedcluster.ts';
import { KubeFedClusterType } from '../../api/core/v1beta1/resource-types.ts';
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '../../kube/client/index.ts';
import { withTypeMeta } from '../../runtime/type-meta.ts';

export type ClusterObject = KubeFedCluster & KubeObject;
type TaintClient = Pick<KubeClient, 'get' | 'update'>;

export type TaintWrite =
  | { readonly kind: 'unchanged'; readonly cluster: ClusterObject }
  | { readonly kind: 'written'; readonly cluster: ClusterObject }
  | { readonly kind: 'gone' };

export const DEFAULT_TAINT_ATTEMPTS = 5;

/**
 * Decides on `cluster` (or, when only a name is given, on a fresh read) and writes spec.taints when the
 * decision is not undefined. Throws the last error when every attempt conflicted or a request failed.
 */
export async function updateClusterTaints(
  client: TaintClient,
  target: ClusterObject | { name: string; namespace: string },
  decide: (cluster: ClusterObject) => KubeFedCluster['spec']['taints'] | undefined,
  attempts = DEFAULT_TAINT_ATTEMPTS,
): Promise<TaintWrite> {
  const name = 'metadata' in target ? (target.metadata.name ?? '') : target.name;
  const namespace = 'metadata' in target ? target.metadata.namespace : target.namespace;
  const read = async (): Promise<ClusterObject | undefined> => {
    try {
      return await client.get<ClusterObject>(KubeFedClusterType, name, namespace);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  let cluster = 'metadata' in target ? target : await read();
  for (let attempt = 1; ; attempt++) {
    if (!cluster) return { kind: 'gone' };
    const taints = decide(cluster);
    if (taints === undefined) return { kind: 'unchanged', cluster };
    const { taints: _, ...rest } = cluster.spec;
    const spec: KubeFedCluster['spec'] = taints.length > 0 ? { ...rest, taints } : rest;
    const body = withTypeMeta(cluster, { apiVersion: API_VERSION, kind: KUBEFED_CLUSTER_KIND });
    body.spec = spec;
    try {
      return { kind: 'written', cluster: await client.update<ClusterObject>(KubeFedClusterType, body) };
    } catch (e) {
      if (isNotFound(e)) return { kind: 'gone' };
      if (!isConflict(e) || attempt >= attempts) throw e;
    }
    cluster = await read();
  }
}
