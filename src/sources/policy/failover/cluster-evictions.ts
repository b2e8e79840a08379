// Which clusters the taint manager evicts a binding from (karmada pkg/controllers/cluster/taint_manager.go
// needEviction, with k8s' GetMatchingTolerations and Karmada's GetMinTolerationTimeWithCurrentTime): a
// scheduled cluster with a NoExecute taint the binding does not tolerate at all, or tolerates for less than
// the time since the taint was added. Pure.

import type { Taint } from '../../../api/core/v1beta1/kubefedcluster.ts';
import type { Toleration } from '../../../api/policy/v1alpha1/index.ts';
import type { ResourceBindingSpec } from '../../../api/work/v1alpha2/resourcebinding.ts';
import type { PolicyCluster } from '../cluster-affinity.ts';
import { tolerates, withDefaultTolerations } from '../taints.ts';

export interface ClusterEviction {
  cluster: string;
  /** The taint whose toleration is missing or ran out. */
  taint: Taint;
}

export interface ClusterEvictionDecision {
  evict: ClusterEviction[];
  /** When the next toleration runs out, if one is still running. */
  recheckAfterMs?: number;
}

/**
 * How long the tolerations still allow a cluster with these taints: 0 when a NoExecute taint is not
 * tolerated or its toleration ran out (that taint is returned), Infinity when tolerated forever. Each taint
 * counts from its timeAdded (from now when unset), with the first toleration that tolerates it (k8s
 * GetMatchingTolerations).
 */
export function noExecuteTolerationLeftMs(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[],
  now: Date,
): { leftMs: number; taint?: Taint } {
  let leftMs = Number.POSITIVE_INFINITY;
  let first: Taint | undefined;
  for (const taint of taints ?? []) {
    if (taint.effect !== 'NoExecute') continue;
    const toleration = tolerations.find((t) => tolerates(t, taint));
    if (!toleration) return { leftMs: 0, taint };
    if (toleration.tolerationSeconds === undefined || toleration.tolerationSeconds === null) continue;
    // An unset or unreadable timeAdded counts from now, as an unset one always did.
    const parsed = taint.timeAdded ? Date.parse(taint.timeAdded) : Number.NaN;
    const added = Number.isNaN(parsed) ? now.getTime() : parsed;
    const left = added + Math.max(0, Number(toleration.tolerationSeconds)) * 1_000 - now.getTime();
    if (left <= 0) return { leftMs: 0, taint };
    if (left < leftMs) {
      leftMs = left;
      first = taint;
    }
  }
  return first ? { leftMs, taint: first } : { leftMs };
}

/** The tolerations the taint manager uses: the policy's, plus Karmada's default not-ready/unreachable ones. */
export function bindingTolerations(spec: Pick<ResourceBindingSpec, 'placement'>): Toleration[] {
  return withDefaultTolerations(spec.placement?.clusterTolerations);
}

/** The clusters to evict the binding from now, and when to look again for the ones still tolerated. */
export function clusterEvictions(
  binding: { spec: ResourceBindingSpec },
  clusters: readonly PolicyCluster[],
  now: Date,
): ClusterEvictionDecision {
  const byName = new Map(clusters.map((c) => [c.name, c]));
  const tolerations = bindingTolerations(binding.spec);
  const evict: ClusterEviction[] = [];
  let recheck = Number.POSITIVE_INFINITY;
  for (const target of binding.spec.clusters ?? []) {
    const cluster = byName.get(target.name);
    if (!cluster) continue;
    const { leftMs, taint } = noExecuteTolerationLeftMs(cluster.taints, tolerations, now);
    if (leftMs === 0 && taint) evict.push({ cluster: target.name, taint });
    else if (Number.isFinite(leftMs)) recheck = Math.min(recheck, leftMs);
  }
  return Number.isFinite(recheck) ? { evict, recheckAfterMs: recheck } : { evict };
}

/**
 * Whether the binding may run on the cluster again: Ready, and no NoExecute taint it does not tolerate any
 * more (the cluster an eviction task was made for has recovered).
 */
export function clusterRecovered(
  cluster: PolicyCluster | undefined,
  spec: Pick<ResourceBindingSpec, 'placement'>,
  now: Date,
): boolean {
  if (!cluster?.ready) return false;
  return noExecuteTolerationLeftMs(cluster.taints, bindingTolerations(spec), now).leftMs > 0;
}
