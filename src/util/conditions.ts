// Status conditions as controllers write them: one entry per type, with a `lastTransitionTime` that moves
// only when the condition really changes state, so `kubectl describe` says since when something is wrong.

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface ConditionUpdate {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
}

/** RFC 3339 with seconds precision, as the API server stores metav1.Time. */
export function conditionTimestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Returns `conditions` with the condition of `update.type` set (other types kept, in order). The transition
 * time is kept unless the status or the reason changed — a new message alone (e.g. a different count) is
 * not a transition.
 */
export function setCondition<C extends Condition>(
  conditions: readonly C[] | undefined,
  update: ConditionUpdate,
  now: Date,
): Condition[] {
  const list = conditions ?? [];
  const prev = list.find((c) => c.type === update.type);
  const transition = !prev || prev.status !== update.status || prev.reason !== update.reason;
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    ...(update.message ? { message: update.message } : {}),
    lastTransitionTime:
      transition || !prev?.lastTransitionTime ? conditionTimestamp(now) : prev.lastTransitionTime,
  };
  return prev ? list.map((c) => (c === prev ? next : c)) : [...list, next];
}

/**
 * A metav1.Condition with its lastTransitionTime: kept from the previous condition of its type while the
 * status is the same (apimachinery meta.SetStatusCondition), `now` otherwise.
 */
export function stampCondition<C extends { type: string; status: string }>(
  c: C,
  previous: ReadonlyArray<{ type: string; status: string; lastTransitionTime?: string }> | undefined,
  now: string,
): C & { lastTransitionTime: string } {
  const old = previous?.find((p) => p.type === c.type);
  return {
    ...c,
    lastTransitionTime: old?.lastTransitionTime && old.status === c.status ? old.lastTransitionTime : now,
  };
}
