// RFC 6902 add/remove/replace exactly as evanphx/json-patch/v5 applies them (patch.go, default ApplyOptions),
// which is what Karmada's override manager uses (pkg/util/overridemanager/overridemanager.go, applyJSONPatch).
// It differs from the v4 library that KubeFed uses (src/propagation/json-patch.ts) where it matters here:
// * `replace` of a missing object member fails ("doc is missing key"); v4 sets it.
// * `remove` of a missing member fails with v5's lower-case message.
// Shared with v4: a JSON null on the way is missing, indexes are Go strconv.Atoi and may be negative (from the
// end; for `add` -1 appends), `-` appends, a path without a leading `/` drops its first token, and `replace` of
// "" swaps the whole document for an object or array value and silently does nothing otherwise.
// Absent values are null: Karmada serialises every operation with a value.

import { deepCopy, hasOwn, isPlainObject, type JsonObject, setOwn } from '../../../propagation/json.ts';
import { decodePointerToken } from '../../../propagation/json-patch.ts';

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

export class PatchError extends Error {
  override name = 'PatchError';
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

type Container = JsonObject | unknown[];

function fail(message: string, cause: string): never {
  throw new PatchError(`${message}: ${cause}`);
}

/** strconv.Atoi: optional sign and decimal digits within int64, else the Go error text. */
export function atoi(token: string): number | { error: string } {
  const quoted = JSON.stringify(token);
  if (!/^[+-]?[0-9]+$/.test(token)) return { error: `strconv.Atoi: parsing ${quoted}: invalid syntax` };
  const big = BigInt(token);
  if (big > 9223372036854775807n || big < -9223372036854775808n)
    return { error: `strconv.Atoi: parsing ${quoted}: value out of range` };
  return Number(big);
}

const invalidIndex = (idx: number): string => `Unable to access invalid index: ${idx}: ${INVALID_INDEX}`;

/** partialDoc.get / partialArray.get: the member (undefined for a JSON null), or the reason there is none. */
function get(con: Container, key: string): { value: unknown } | { error: string } {
  if (!Array.isArray(con)) {
    if (!hasOwn(con, key)) return { error: `unable to get nonexistent key: ${key}: ${MISSING}` };
    return { value: con[key] ?? undefined };
  }
  const idx = atoi(key);
  if (typeof idx !== 'number') return idx;
  const at = idx < 0 ? idx + con.length : idx;
  if (idx < -con.length || at >= con.length) return { error: invalidIndex(idx) };
  return { value: con[at] ?? undefined };
}

/** findObject: the container holding the last token and that token decoded, or undefined. */
function findObject(doc: unknown, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let cur: unknown = doc;
  for (const part of split.slice(1, -1)) {
    if (!Array.isArray(cur) && !isPlainObject(cur)) return undefined;
    const next = get(cur, decodePointerToken(part));
    if ('error' in next || next.value === undefined) return undefined;
    cur = next.value;
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) return undefined;
  return { con: cur, key: decodePointerToken(split[split.length - 1]!) };
}

function addTo(con: Container, key: string, value: unknown): string | undefined {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return undefined;
  }
  if (key === '-') {
    con.push(value);
    return undefined;
  }
  const idx = atoi(key);
  if (typeof idx !== 'number') return `value was not a proper array index: '${key}': ${idx.error}`;
  const size = con.length + 1;
  if (idx >= size || idx < -size) return invalidIndex(idx);
  con.splice(idx < 0 ? idx + size : idx, 0, value);
  return undefined;
}

function removeFrom(con: Container, key: string): string | undefined {
  if (!Array.isArray(con)) {
    if (!hasOwn(con, key)) return `unable to remove nonexistent key: ${key}: ${MISSING}`;
    delete con[key];
    return undefined;
  }
  const idx = atoi(key);
  if (typeof idx !== 'number') return idx.error;
  if (idx >= con.length || idx < -con.length) return invalidIndex(idx);
  con.splice(idx < 0 ? idx + con.length : idx, 1);
  return undefined;
}

function applyOne(doc: unknown, op: PatchOperation): unknown {
  const { path } = op;
  const value = deepCopy(op.value ?? null);
  switch (op.op) {
    case 'add': {
      const found = findObject(doc, path);
      if (!found) fail(`add operation does not apply: doc is missing path: "${path}"`, MISSING);
      const err = addTo(found.con, found.key, value);
      if (err) fail(`error in add for path: '${path}'`, err);
      return doc;
    }
    case 'remove': {
      const found = findObject(doc, path);
      if (!found) fail(`remove operation does not apply: doc is missing path: "${path}"`, MISSING);
      const err = removeFrom(found.con, found.key);
      if (err) fail(`error in remove for path: '${path}'`, err);
      return doc;
    }
    case 'replace': {
      // errors.Wrapf(nil, ...) is nil: a scalar replacing the whole document is silently ignored.
      if (path === '') return Array.isArray(value) || isPlainObject(value) ? value : doc;
      const found = findObject(doc, path);
      if (!found) fail(`replace operation does not apply: doc is missing path: ${path}`, MISSING);
      const { con, key } = found;
      if ('error' in get(con, key))
        fail(`replace operation does not apply: doc is missing key: ${path}`, MISSING);
      if (Array.isArray(con)) {
        const idx = atoi(key) as number;
        con[idx < 0 ? idx + con.length : idx] = value;
      } else setOwn(con, key, value);
      return doc;
    }
    default:
      throw new PatchError(`Unexpected kind: ${op.op}`);
  }
}

/** Applies the operations in order to a deep copy of `doc`; the input is never modified. */
export function applyPatch<T>(doc: T, ops: readonly PatchOperation[]): T {
  let out: unknown = deepCopy(doc);
  for (const op of ops) out = applyOne(out, op);
  return out as T;
}
