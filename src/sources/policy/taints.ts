// Cluster taints against policy tolerations: corev1's Toleration.ToleratesTaint and
// FindMatchingUntoleratedTaint (k8s.io/api/core/v1/toleration.go, component-helpers/scheduling/corev1),
// which Karmada's TaintToleration filter and taint manager use on Cluster.spec.taints. Pure.

import type { Taint } from '../../api/core/v1beta1/kubefedcluster.ts';
import type { Toleration } from '../../api/policy/v1alpha1/index.ts';

/** Toleration.ToleratesTaint: empty effect matches every effect, empty key with Exists matches every key. */
export function tolerates(t: Toleration, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The first taint the predicate selects that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  select: (taint: Taint) => boolean,
): Taint | undefined {
  return taints.find((taint) => select(taint) && !tolerations.some((t) => tolerates(t, taint)));
}

/** corev1 Taint.ToString(): `key=value:effect`, or `key:effect` without a value. */
export function taintString(taint: Pick<Taint, 'key' | 'value' | 'effect'>): string {
  return taint.value ? `${taint.key}=${taint.value}:${taint.effect}` : `${taint.key}:${taint.effect}`;
}

/**
 * How long a binding may stay on a cluster with these NoExecute taints (the taint manager's
 * getMinTolerationTime): 0 when one is not tolerated at all, the smallest tolerationSeconds among the
 * tolerations that tolerate them, Infinity when tolerated without a limit (or there is none).
 */
export function noExecuteTolerationSeconds(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
): number {
  let min = Number.POSITIVE_INFINITY;
  for (const taint of taints) {
    if (taint.effect !== 'NoExecute') continue;
    const matching = tolerations.filter((t) => tolerates(t, taint));
    if (matching.length === 0) return 0;
    for (const t of matching) {
      if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
      min = Math.min(min, Math.max(0, Number(t.tolerationSeconds)));
    }
  }
  return min;
}

/** karmada-webhook's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;

/**
 * The tolerations Karmada's PropagationPolicy webhook adds to every policy (helper.AddTolerations in
 * pkg/webhook/propagationpolicy/mutating.go): not-ready and unreachable NoExecute, each for 300 s, unless the
 * policy already tolerates that taint. Applied by the webhook and, where no webhook runs, by the scheduler and
 * taint manager, so both deployments evict at the same moment.
 */
export function withDefaultTolerations(
  tolerations: readonly Toleration[] | undefined,
  seconds = DEFAULT_TOLERATION_SECONDS,
): Toleration[] {
  const out = [...(tolerations ?? [])];
  for (const key of ['cluster.karmada.io/not-ready', 'cluster.karmada.io/unreachable']) {
    const taint = { key, effect: 'NoExecute' as const };
    if (!out.some((t) => tolerates(t, taint)))
      out.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
  }
  return out;
}
