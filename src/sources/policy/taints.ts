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

/** karmada-webhook's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;

/**
 * The tolerations Karmada's PropagationPolicy webhook adds to every policy (helper.AddTolerations in
 * pkg/webhook/propagationpolicy/mutating.go): not-ready and unreachable NoExecute, each for 300 s, unless the
 * policy already has that very toleration (helper.TolerationExists: corev1 MatchToleration, the same key,
 * operator, value and effect; tolerationSeconds aside). Applied by the webhook and, where no webhook runs,
 * by the scheduler and taint manager, so both deployments evict at the same moment.
 */
export function withDefaultTolerations(
  tolerations: readonly Toleration[] | undefined,
  seconds = DEFAULT_TOLERATION_SECONDS,
): Toleration[] {
  const out = [...(tolerations ?? [])];
  for (const key of ['cluster.karmada.io/not-ready', 'cluster.karmada.io/unreachable']) {
    const toleration: Toleration = {
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: seconds,
    };
    if (!out.some((t) => matchToleration(t, toleration))) out.push(toleration);
  }
  return out;
}

/** corev1 Toleration.MatchToleration: the same key, operator, value and effect, compared as written. */
export function matchToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '')
  );
}
