// The scheduler's part of a binding's status, pure: the Scheduled condition, schedulerObservedGeneration,
// lastScheduledTime and schedulerObservingAffinityName (karmada pkg/scheduler/scheduler.go writes them after
// each schedule: patchScheduleResultCondition, patchBindingStatusWithAffinityName). The scheduler writes it;
// for a binding created with its schedule (first-schedule.ts) the binding controller writes it with its own
// first report, so that such a binding's status is written once instead of twice.

import {
  BindingCondition,
  BindingReason,
  type ResourceBindingStatus,
} from '../../api/work/v1alpha2/index.ts';
import { stampCondition } from '../../util/conditions.ts';
import { putCondition } from './conditions.ts';

export const SCHEDULED_MESSAGE = 'Binding has been scheduled successfully.';

/** A schedule's outcome as the status reports it. */
export type ScheduleOutcome =
  | { ok: true; affinityName?: string | undefined }
  | { ok: false; reason: string; message: string };

export interface ScheduledStatusInput {
  outcome: ScheduleOutcome;
  /** The binding generation the schedule was computed for. */
  generation: number | undefined;
  /** Now, as a condition timestamp (whole seconds). */
  now: string;
  /** Set when this schedule stamps lastScheduledTime (a new result, the first success, a consumed trigger). */
  lastScheduledTime?: string | undefined;
}

/** `old` with the schedule's fields set; everything else (the binding controller's fields) kept. */
export function scheduledStatus(
  old: ResourceBindingStatus,
  input: ScheduledStatusInput,
): ResourceBindingStatus {
  const { outcome } = input;
  const condition = outcome.ok
    ? {
        type: BindingCondition.Scheduled,
        status: 'True',
        reason: BindingReason.Success,
        message: SCHEDULED_MESSAGE,
      }
    : { type: BindingCondition.Scheduled, status: 'False', reason: outcome.reason, message: outcome.message };
  const status: ResourceBindingStatus = {
    ...old,
    schedulerObservedGeneration: input.generation,
    conditions: putCondition(old.conditions, stampCondition(condition, old.conditions, input.now)),
    ...(input.lastScheduledTime !== undefined ? { lastScheduledTime: input.lastScheduledTime } : {}),
  };
  if (outcome.ok && outcome.affinityName) status.schedulerObservingAffinityName = outcome.affinityName;
  return status;
}

/** A first success: the status had no Scheduled condition before. */
export function firstSuccess(old: ResourceBindingStatus, outcome: ScheduleOutcome): boolean {
  return outcome.ok && !old.conditions?.some((c) => c.type === BindingCondition.Scheduled);
}

/**
 * The scheduler has written a result for this binding at least once (its Scheduled condition, or the
 * generation it observed); a binding the scheduler has not seen yet has no clusters to apply to, and a
 * status written for it now would only race the scheduler's own first write.
 */
export function everScheduled(b: { status?: ResourceBindingStatus | undefined }): boolean {
  const s = b.status;
  return (
    s?.schedulerObservedGeneration !== undefined ||
    (s?.conditions ?? []).some((c) => c.type === BindingCondition.Scheduled)
  );
}
