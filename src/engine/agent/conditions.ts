// Status conditions of one manifest and of the whole work, as OCM's agent writes them (ocm
// pkg/work/spoke/controllers/manifestcontroller/manifestwork_reconciler.go buildAppliedStatusCondition,
// allInCondition; pkg/work/spoke/controllers/statuscontroller/availablestatus_controller.go
// buildAvailableStatusCondition, aggregateManifestConditions; pkg/work/spoke/conditions/helpers.go
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
 * conditions from an older generation are dropped (their rule is gone: removing a rule bumps the generation).
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
  const generation = input.generation ?? 0;
  return list.filter(
    (c) => !(c.reason.startsWith(RULE_REASON_PREFIX) && (c.observedGeneration ?? 0) !== generation),
  );
}

/**
 * The work's conditions from its manifests:
 * - Applied: False when any manifest's Applied is False, True otherwise; not set while no manifest has one
 *   (AppliedManifestWorkFailed "Failed to apply manifest work" / AppliedManifestWorkComplete "Apply manifest
 *   work complete");
 * - Progressing: True Applying while a manifest has no Applied yet, True Failed while one failed, False
 *   Completed once all are applied;
 * - Available (once Applied is set): False ResourcesNotAvailable "n of m resources are not available", Unknown
 *   ResourcesStatusUnknown, else True ResourcesAvailable "All resources are available";
 * - Complete: True ManifestsComplete when every manifest with a Complete condition has it True (and one does);
 *   absent otherwise;
 * - Deleting: True ManifestWorkDeleting while the work is being deleted; absent otherwise.
 * Each carries observedGeneration; other condition types in `previous` are kept.
 */
export function workConditions(
  previous: readonly MetaCondition[] | undefined,
  manifests: readonly ManifestCondition[],
  input: { generation?: number; now: Date; deleting?: boolean },
): MetaCondition[] {
  const now = conditionTimestamp(input.now);
  const g = input.generation;
  let list: MetaCondition[] = [...(previous ?? [])];

  const applied = manifests.map((m) => m.conditions.find((c) => c.type === WorkCondition.Applied));
  const anyApplied = applied.some((c) => c !== undefined);
  const anyFailed = applied.some((c) => c?.status === 'False');
  if (anyApplied) {
    list = setMeta(
      list,
      withGeneration(
        anyFailed
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
    const pending = applied.some((c) => c === undefined);
    list = setMeta(
      list,
      withGeneration(
        anyFailed
          ? {
              type: WorkCondition.Progressing,
              status: 'True',
              reason: WorkReason.Failed,
              message: 'Failed to apply manifest work',
            }
          : pending
            ? {
                type: WorkCondition.Progressing,
                status: 'True',
                reason: WorkReason.Applying,
                message: 'Applying manifest work',
              }
            : {
                type: WorkCondition.Progressing,
                status: 'False',
                reason: WorkReason.Completed,
                message: 'Apply manifest work complete',
              },
        g,
      ),
      now,
    );
    list = setMeta(list, withGeneration(availableCondition(manifests), g), now);
  }

  const completable = manifests
    .map((m) => m.conditions.find((c) => c.type === WorkCondition.Complete))
    .filter((c) => c !== undefined);
  if (completable.length > 0 && completable.every((c) => c.status === 'True')) {
    list = setMeta(
      list,
      withGeneration(
        {
          type: WorkCondition.Complete,
          status: 'True',
          reason: WorkReason.ManifestsComplete,
          message: 'All manifests are complete',
        },
        g,
      ),
      now,
    );
  } else {
    list = list.filter((c) => c.type !== WorkCondition.Complete);
  }

  if (input.deleting) {
    list = setMeta(
      list,
      withGeneration(
        {
          type: WorkCondition.Deleting,
          status: 'True',
          reason: WorkReason.ManifestWorkDeleting,
          message: 'Manifest work is being deleted',
        },
        g,
      ),
      now,
    );
  } else {
    list = list.filter((c) => c.type !== WorkCondition.Deleting);
  }
  return list;
}

/** A manifest is complete (and no longer updated) once its Complete condition is True. */
export function isManifestComplete(
  conditions: readonly { type: string; status: string }[] | undefined,
): boolean {
  return conditions?.some((c) => c.type === WorkCondition.Complete && c.status === 'True') ?? false;
}

function availableCondition(manifests: readonly ManifestCondition[]): NewCondition {
  let unavailable = 0;
  let unknown = 0;
  for (const m of manifests) {
    for (const c of m.conditions) {
      if (c.type !== WorkCondition.Available) continue;
      if (c.status === 'False') unavailable++;
      else if (c.status === 'Unknown') unknown++;
    }
  }
  if (unavailable > 0) {
    return {
      type: WorkCondition.Available,
      status: 'False',
      reason: WorkReason.ResourcesNotAvailable,
      message: `${unavailable} of ${manifests.length} resources are not available`,
    };
  }
  if (unknown > 0) {
    return {
      type: WorkCondition.Available,
      status: 'Unknown',
      reason: 'ResourcesStatusUnknown',
      message: `${unknown} of ${manifests.length} resources have unknown status`,
    };
  }
  return {
    type: WorkCondition.Available,
    status: 'True',
    reason: WorkReason.ResourcesAvailable,
    message: 'All resources are available',
  };
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
