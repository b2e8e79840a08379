// The schedule a binding can be created with (pure). Karmada's detector creates a binding without clusters
// and its scheduler then writes them (pkg/detector, pkg/scheduler): two writes. Here the detector asks for
// the scheduler's result first and creates the binding with it when that result cannot differ from the one
// the scheduler will compute once the binding exists — so the scheduler's first reconcile writes only the
// status, with the same fields, condition and event — and for most bindings not even that: the binding
// controller's first report carries the Scheduled status too (createdScheduled), so the status is written once.

import type { BindingObject } from './binding-spec.ts';
import type { PolicyCluster } from './cluster-affinity.ts';
import { everScheduled } from './scheduled-status.ts';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  placementString,
  rescheduleRequested,
  scheduleBinding,
} from './scheduling.ts';

/**
 * Uids whose FNV-1a hashes differ in parity, which is what the replica division's tie-break reads
 * (webster.ts): a result equal under both does not depend on the uid, unknown before the create.
 */
const TIE_BREAK_PROBES = ['a', 'b'] as const;

/** `b` with spec.clusters and the applied-placement annotation set, or `b` itself when it must wait. */
export function withFirstSchedule(b: BindingObject, clusters: readonly PolicyCluster[]): BindingObject {
  if (b.spec.suspension?.scheduling || (b.spec.clusters ?? []).length > 0) return b;
  const [first, second] = TIE_BREAK_PROBES.map((bindingUid) =>
    scheduleBinding({
      placement: b.spec.placement,
      clusters,
      replicas: b.spec.replicas ?? 0,
      bindingUid,
      evicting: [],
      fresh: rescheduleRequested(b),
      placementChanged: true,
    }),
  );
  if (!first?.ok || first.clusters.length === 0 || JSON.stringify(first) !== JSON.stringify(second)) return b;
  return {
    ...b,
    metadata: {
      ...b.metadata,
      annotations: {
        ...b.metadata.annotations,
        [APPLIED_PLACEMENT_ANNOTATION]: placementString(b.spec.placement),
      },
    },
    spec: { ...b.spec, clusters: first.clusters },
  };
}

/**
 * Created with its schedule (withFirstSchedule) and not reported as scheduled yet, with nothing for the
 * status to say beyond success: no affinity term chosen (schedulerObservingAffinityName), no reschedule
 * trigger to consume (lastScheduledTime). The binding controller applies it at once and writes its Scheduled
 * status with its first report; the scheduler writes that status itself only if the binding controller has
 * not within a grace period (Scheduler's firstStatusGraceMs), e.g. while a member's cache is still loading.
 */
export function createdScheduled(b: BindingObject): boolean {
  return (
    !everScheduled(b) &&
    !b.spec.suspension?.scheduling &&
    (b.spec.clusters ?? []).length > 0 &&
    b.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION] === placementString(b.spec.placement) &&
    (b.spec.placement?.clusterAffinities ?? []).length === 0 &&
    !b.spec.rescheduleTriggeredAt
  );
}
