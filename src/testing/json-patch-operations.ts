import type { OverrideOperation } from '../propagation/json-patch.ts';

/**
 * A raw JSON patch as evanphx/json-patch decodes it (Operation.Kind, Path, From, value): an op that is not a
 * string is "unknown", a path or from that is not a string is absent, and a value key that is present stays
 * present (null included). The JSON-patch tests feed the library's own test patches through this.
 */
export function operationsFromRaw(patch: readonly Record<string, unknown>[]): OverrideOperation[] {
  return patch.map((raw) => {
    const op: OverrideOperation = { op: typeof raw.op === 'string' ? raw.op : 'unknown' };
    if (typeof raw.path === 'string') op.path = raw.path;
    if (typeof raw.from === 'string') op.from = raw.from;
    if ('value' in raw) op.value = raw.value;
    return op;
  });
}
