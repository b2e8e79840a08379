// The conditions kubefed-ts writes on a member's ServiceExport (mcs-api pkg/apis/v1beta1/serviceexport.go):
// Valid, Conflict (only for a valid export: reasons comma-joined, "When multiple conflicts occurs the above
// reasons may be combined using commas"), Ready. lastTransitionTime moves only when a status changes, as
// apimachinery's meta.SetStatusCondition does.

import { ExportCondition, ExportReason } from '../api/mcs/v1beta1/serviceexport.ts';
import type { MetaCondition } from '../api/policy/v1alpha1/propagationpolicy.ts';
import { stampCondition } from '../util/conditions.ts';
import type { ExportConditionsInput } from './model.ts';

const NO_CONFLICTS_MESSAGE = 'No conflicts with the other exports of this service';
const OURS: ReadonlySet<string> = new Set(Object.values(ExportCondition));

/**
 * Valid, Conflict, Ready, in that order, then any condition of another type the export already had (kept
 * as it was). An invalid export has no Conflict: a previous one is dropped, since it no longer takes part.
 */
export function exportConditions(input: ExportConditionsInput): MetaCondition[] {
  const { validity, conflict, ready } = input;
  const wanted: Array<Omit<MetaCondition, 'lastTransitionTime'>> = [
    condition(
      input,
      ExportCondition.Valid,
      validity.valid ? 'True' : 'False',
      validity.reason,
      validity.message,
    ),
  ];
  if (validity.valid && conflict) {
    const conflicting = conflict.reasons.length > 0;
    wanted.push(
      condition(
        input,
        ExportCondition.Conflict,
        conflicting ? 'True' : 'False',
        conflicting ? conflict.reasons.join(',') : ExportReason.NoConflicts,
        conflicting ? conflict.message : NO_CONFLICTS_MESSAGE,
      ),
    );
  }
  wanted.push(condition(input, ExportCondition.Ready, ready.status, ready.reason, ready.message));
  const others = (input.previous ?? []).filter((c) => !OURS.has(c.type));
  return [...wanted.map((c) => stampCondition(c, input.previous, input.now)), ...others];
}

function condition(
  input: ExportConditionsInput,
  type: string,
  status: string,
  reason: string,
  message: string,
): Omit<MetaCondition, 'lastTransitionTime'> {
  return {
    type,
    status,
    ...(input.generation === undefined ? {} : { observedGeneration: input.generation }),
    reason,
    message,
  };
}

/** Whether two condition lists are the same, field by field and in order: write status only when not. */
export function conditionsEqual(
  a: readonly MetaCondition[] | undefined,
  b: readonly MetaCondition[],
): boolean {
  const left = a ?? [];
  return left.length === b.length && left.every((c, i) => sameCondition(c, b[i]));
}

function sameCondition(a: MetaCondition, b: MetaCondition | undefined): boolean {
  return (
    b !== undefined &&
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.observedGeneration === b.observedGeneration
  );
}
