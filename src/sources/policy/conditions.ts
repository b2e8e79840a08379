// A binding's conditions as Karmada writes them (apimachinery meta.SetStatusCondition): one per type, a
// changed one replaced where it stands. Two controllers write the same list (the scheduler its Scheduled
// condition, the binding controller the others): if either moved its own to the end, each would see the
// other's order as a change and rewrite the status, e.g. once after every restart.

/** `conditions` with `c` in the place of the condition of its type, or appended when there is none. */
export function putCondition<C extends { type: string }>(conditions: readonly C[] | undefined, c: C): C[] {
  const list = conditions ?? [];
  return list.some((x) => x.type === c.type) ? list.map((x) => (x.type === c.type ? c : x)) : [...list, c];
}
