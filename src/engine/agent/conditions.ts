// Status conditions of one manifest and of the whole work, as OCM's agent writes them (ocm
// pkg/work/spoke/controllers/manifestcontroller/manifestwork_reconciler.go buildAppliedStatusCondition,
// allInCondition; pkg/work/spoke/controllers/statuscontroller/availablestatus_controller.go
// buildAvailableStatusCondition; pkg/work/spoke/conditions/helpers.go AggregateManifestConditions,
// PruneConditionsGeneratedByConditionRules). Conditions are merged like apimachinery meta.SetStatusCondition:
// an existing condition keeps its place and its lastTransitionTime while its status is unchanged.

import type { FeedbackValue, ManifestCondition } from '../../api/ocm/work/v1/index.ts';
import { WorkCondition, WorkReason } from '../../api/ocm/work/v1/index.ts';
import type { MetaCondition } from '../../api/policy/v1alpha1/propagationpolicy.ts';
import { conditionTimestamp } from '../../util/conditions.ts';
import type { ApplyResult, FeedbackResult } from './types.ts';

type NewCondition = Omit<MetaCondition, 'lastTransitionTime'>;

/** Reasons of conditions made by condition rules start with this (conditionRuleReasonPrefix). */
const RULE_REASON_PREFIX = 'ConditionRule';

/**
 * The conditions of one manifest: Applied (from the apply), Available (the object exists), StatusFeedbackSynced
 * (kept from `previous` when the feedback gives none, i.e. no live object), then the rule conditions. Rule
 * conditions from an older generation are dropped (their rule is gone: removing a rule bumps the generation),
 * except when there is no live object, where OCM leaves them as they were.
 * When `previousValues` is given and the feedback values changed, StatusFeedbackSynced moves to the end with a
 * new lastTransitionTime even if its status is the same, as OCM does so a watcher sees the change.
 */
export function manifestConditions(
  previous: readonly MetaCondition[] | undefined,
  input: {
    generation?: number;
    apply: ApplyResult;
    feedback: FeedbackResult;
    rules: ReadonlyArray<NewCondition>;
    now: Date;
    previousValues?: readonly FeedbackValue[];
  },
): MetaCondition[] {
  const now = conditionTimestamp(input.now);
  let list: MetaCondition[] = [...(previous ?? [])];
  list = setMeta(
    list,
    withGeneration(
      {
        type: WorkCondition.Applied,
        status: input.apply.applied ? 'True' : 'False',
        reason: input.apply.reason,
        message: input.apply.message,
      },
      input.generation,
    ),
    now,
  );
  list = setMeta(
    list,
    input.apply.live
      ? {
          type: WorkCondition.Available,
          status: 'True',
          reason: WorkReason.ResourceAvailable,
          message: 'Resource is available',
        }
      : {
          type: WorkCondition.Available,
          status: 'False',
          reason: WorkReason.ResourceNotAvailable,
          message: 'Resource is not available',
        },
    now,
  );
  const feedback = input.feedback.condition;
  if (feedback) {
    const changed =
      input.previousValues !== undefined && !sameValues(input.previousValues, input.feedback.values);
    list = changed
      ? [...list.filter((c) => c.type !== feedback.type), { ...feedback, lastTransitionTime: now }]
      : setMeta(list, feedback, now);
  }
  for (const rule of input.rules) list = setMeta(list, rule, now);
  // OCM evaluates (and prunes) rule conditions only for an object it could read.
  if (!input.apply.live) return list;
  const generation = input.generation ?? 0;
  return list.filter(
    (c) => !(c.reason.startsWith(RULE_REASON_PREFIX) && (c.observedGeneration ?? 0) !== generation),
  );
}

/**
 * The work's conditions from its manifests:
 * - Applied (manifestwork_reconciler.go allInCondition): False AppliedManifestWorkFailed "Failed to apply
 *   manifest work" when any manifest's Applied is False, else True AppliedManifestWorkComplete "Apply manifest
 *   work complete"; not set while no manifest has one;
 * - once the work has Applied, the aggregated conditions (conditions/helpers.go AggregateManifestConditions),
 *   set in type order: Available (False ResourcesNotAvailable "n of m resources are not available", Unknown
 *   ResourcesStatusUnknown, True ResourcesAvailable "All resources are available"), and every condition type
 *   the condition rules produced (Complete, Progressing, …) with reason ConditionRulesAggregated: Progressing is
 *   True when any manifest's is, the others False when any is False, Unknown when any is Unknown, else True;
 *   aggregated rule conditions of an older generation are pruned;
 * - Deleting: True WorkDeleting "ManifestWork is being deleted" once `deleting` (manifestwork_finalize_controller.go).
 * Each carries observedGeneration; other condition types in `previous` are kept in place.
 */
export function workConditions(
  previous: readonly MetaCondition[] | undefined,
  manifests: readonly ManifestCondition[],
  input: { generation?: number; now: Date; deleting?: boolean },
): MetaCondition[] {
  const now = conditionTimestamp(input.now);
  const g = input.generation;
  let list: MetaCondition[] = [...(previous ?? [])];

  const applied = manifests.flatMap((m) => m.conditions.filter((c) => c.type === WorkCondition.Applied));
  if (applied.length > 0) {
    list = setMeta(
      list,
      withGeneration(
        applied.some((c) => c.status === 'False')
          ? {
              type: WorkCondition.Applied,
              status: 'False',
              reason: WorkReason.AppliedManifestWorkFailed,
              message: 'Failed to apply manifest work',
            }
          : {
              type: WorkCondition.Applied,
              status: 'True',
              reason: WorkReason.AppliedManifestWorkComplete,
              message: 'Apply manifest work complete',
            },
        g,
      ),
      now,
    );
  }

  if (list.some((c) => c.type === WorkCondition.Applied)) {
    for (const c of aggregateManifestConditions(g ?? 0, manifests))
      list = setMeta(list, withGeneration(c, g), now);
    const generation = g ?? 0;
    list = list.filter(
      (c) => !(c.reason.startsWith(RULE_REASON_PREFIX) && (c.observedGeneration ?? 0) !== generation),
    );
  }

  if (input.deleting) {
    list = setMeta(
      list,
      withGeneration(
        {
          type: WorkCondition.Deleting,
          status: 'True',
          reason: 'WorkDeleting',
          message: 'ManifestWork is being deleted',
        },
        g,
      ),
      now,
    );
  }
  return list;
}

/** A manifest is complete (and no longer updated) once its Complete condition is True. */
export function isManifestComplete(
  conditions: readonly { type: string; status: string }[] | undefined,
): boolean {
  return conditions?.some((c) => c.type === WorkCondition.Complete && c.status === 'True') ?? false;
}

interface Tally {
  numTrue: number;
  numFalse: number;
  numUnknown: number;
  message: string;
}

/** AggregateManifestConditions: Available always, plus each condition type made by condition rules. */
function aggregateManifestConditions(
  generation: number,
  manifests: readonly ManifestCondition[],
): NewCondition[] {
  const tallies = new Map<string, Tally>([
    [WorkCondition.Available, { numTrue: 0, numFalse: 0, numUnknown: 0, message: '' }],
  ]);
  for (const m of manifests) {
    for (const c of m.conditions) {
      if (c.type !== WorkCondition.Available && !c.reason.startsWith(RULE_REASON_PREFIX)) continue;
      const t = tallies.get(c.type) ?? { numTrue: 0, numFalse: 0, numUnknown: 0, message: '' };
      if (c.status === 'False') t.numFalse++;
      else if (c.status === 'True') t.numTrue++;
      else if (c.status === 'Unknown') t.numUnknown++;
      if (c.message) t.message = c.message;
      tallies.set(c.type, t);
    }
  }
  return [...tallies.entries()]
    .map(([type, t]) =>
      type === WorkCondition.Available
        ? aggregateAvailable(t, manifests.length)
        : aggregateFromRules(type, t),
    )
    .map((c) => ({ ...c, observedGeneration: generation }))
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

function aggregateAvailable(t: Tally, total: number): NewCondition {
  const type = WorkCondition.Available;
  if (t.numFalse > 0) {
    return {
      type,
      status: 'False',
      reason: WorkReason.ResourcesNotAvailable,
      message: `${t.numFalse} of ${total} resources are not available`,
    };
  }
  if (t.numUnknown > 0) {
    return {
      type,
      status: 'Unknown',
      reason: 'ResourcesStatusUnknown',
      message: `${t.numUnknown} of ${total} resources have unknown status`,
    };
  }
  if (t.numTrue === 0) {
    return {
      type,
      status: 'Unknown',
      reason: 'ResourcesStatusUnknown',
      message: 'cannot get any available resource ',
    };
  }
  return {
    type,
    status: 'True',
    reason: WorkReason.ResourcesAvailable,
    message: 'All resources are available',
  };
}

/** newAggregateConditionFromRules: Progressing is True if any is; others False, then Unknown, then True. */
function aggregateFromRules(type: string, t: Tally): NewCondition {
  let status: 'True' | 'False' | 'Unknown';
  if (type === WorkCondition.Progressing) {
    status = t.numTrue > 0 ? 'True' : t.numUnknown > 0 ? 'Unknown' : 'False';
  } else {
    status = t.numFalse > 0 ? 'False' : t.numUnknown > 0 || t.numTrue === 0 ? 'Unknown' : 'True';
  }
  const total = t.numTrue + t.numFalse + t.numUnknown;
  const message = total === 1 && t.message ? t.message : `Aggregated from ${total} manifest conditions`;
  return { type, status, reason: 'ConditionRulesAggregated', message };
}

function withGeneration(c: NewCondition, generation: number | undefined): NewCondition {
  return generation === undefined ? c : { ...c, observedGeneration: generation };
}

/** meta.SetStatusCondition: replace in place, keeping lastTransitionTime while the status is the same. */
function setMeta(list: readonly MetaCondition[], c: NewCondition, now: string): MetaCondition[] {
  const i = list.findIndex((p) => p.type === c.type);
  const { observedGeneration, ...rest } = c;
  const next: MetaCondition = {
    ...rest,
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    lastTransitionTime:
      i >= 0 && list[i]?.status === c.status ? (list[i] as MetaCondition).lastTransitionTime : now,
  };
  if (i < 0) return [...list, next];
  const out = [...list];
  out[i] = next;
  return out;
}

function sameValues(a: readonly FeedbackValue[], b: readonly FeedbackValue[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
