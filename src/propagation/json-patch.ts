// RFC 6902 JSON Patch exactly as evanphx/json-patch v4.12.0 applies it (patch.go: Patch.ApplyIndent,
// findObject, partialDoc/partialArray), which is what KubeFed v0.10 applies overrides with
// (pkg/controller/util/overrides.go, ApplyJSONPatch). Where that library departs from the RFC, this module
// departs with it, and its error messages are the library's, word for word:
// * `replace` of a missing member of an existing object sets it (partialDoc.get never fails); only a missing
//   parent, or a missing array element, fails.
// * Array indexes are parsed like Go's strconv.Atoi (`+1` and `01` are indexes) and may be negative, counting
//   from the end (SupportNegativeIndices): -1 is the last element, and for `add` one past it (so it appends).
// * A JSON null member or element is missing when a path passes through it.
// * A pointer token decodes `~1` then `~0` in one pass; any other `~` stays as it is (no error).
// * A path without a leading `/` drops its first token; `""` is the whole document, which only `replace` and
//   `test` can use (a `replace` of it with a value that is neither object nor array does nothing).
// * An absent value is null (KubeFed serialises `value` with omitempty): `add` and `replace` set null; `test`
//   of a missing or null member passes.

import { deepCopy, hasOwn, isPlainObject, type JsonObject, setOwn } from './json.ts';

/** The operations evanphx/json-patch knows. KubeFed's CRDs admit only add, remove and replace. */
export type PatchOp = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

/** One JSON Patch operation. `op` is kept as given: an unknown one fails when applied, as in the library. */
export interface OverrideOperation {
  op: string;
  path?: string;
  /** Absent and null are the same: no value (null). */
  value?: unknown;
  from?: string;
}

export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/** errors.Wrapf of github.com/pkg/errors: "<message>: <cause>". */
function fail(message: string, cause: string): never {
  throw new JsonPatchError(`${message}: ${cause}`);
}

/** Unescapes one reference token as the library's strings.NewReplacer("~1", "/", "~0", "~") does. */
export function decodePointerToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** Escapes one reference token for a JSON pointer. */
export function escapeJsonPointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

type Container = JsonObject | unknown[];

/** strconv.Atoi: an optional sign and decimal digits, within int64; otherwise its error text. */
function atoi(token: string): { index: number; text: string } | { error: string } {
  const quoted = JSON.stringify(token);
  if (!/^[+-]?[0-9]+$/.test(token)) return { error: `strconv.Atoi: parsing ${quoted}: invalid syntax` };
  const big = BigInt(token);
  if (big > 9223372036854775807n || big < -9223372036854775808n)
    return { error: `strconv.Atoi: parsing ${quoted}: value out of range` };
  return { index: Number(big), text: big.toString() };
}

const invalidIndex = (text: string): string => `Unable to access invalid index: ${text}: ${INVALID_INDEX}`;

/** The position of an existing element for a (possibly negative) index, or the reason there is none. */
function existingIndex(arr: readonly unknown[], key: string): { index: number } | { error: string } {
  const parsed = atoi(key);
  if ('error' in parsed) return parsed;
  let idx = parsed.index;
  if (idx < 0) {
    if (idx < -arr.length) return { error: invalidIndex(parsed.text) };
    idx += arr.length;
  }
  if (idx >= arr.length) return { error: invalidIndex(parsed.text) };
  return { index: idx };
}

/** The member or element `key` of a container; undefined (the library's nil) when absent or null. */
function get(con: Container, key: string): { value: unknown } | { error: string } {
  if (!Array.isArray(con)) return { value: hasOwn(con, key) ? con[key] : undefined };
  const at = existingIndex(con, key);
  return 'error' in at ? at : { value: con[at.index] };
}

/** partialDoc.add / partialArray.add; returns an error text or undefined. */
function add(con: Container, key: string, value: unknown): string | undefined {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return undefined;
  }
  if (key === '-') {
    con.push(value);
    return undefined;
  }
  const parsed = atoi(key);
  if ('error' in parsed) return `value was not a proper array index: '${key}': ${parsed.error}`;
  const size = con.length + 1;
  let idx = parsed.index;
  if (idx >= size) return invalidIndex(parsed.text);
  if (idx < 0) {
    if (idx < -size) return invalidIndex(parsed.text);
    idx += size;
  }
  con.splice(idx, 0, value);
  return undefined;
}

/** partialDoc.remove / partialArray.remove; returns an error text or undefined. */
function remove(con: Container, key: string): string | undefined {
  if (!Array.isArray(con)) {
    if (!hasOwn(con, key)) return `Unable to remove nonexistent key: ${key}: ${MISSING}`;
    delete con[key];
    return undefined;
  }
  const parsed = atoi(key);
  if ('error' in parsed) return parsed.error;
  let idx = parsed.index;
  if (idx >= con.length) return invalidIndex(parsed.text);
  if (idx < 0) {
    if (idx < -con.length) return invalidIndex(parsed.text);
    idx += con.length;
  }
  con.splice(idx, 1);
  return undefined;
}

/**
 * findObject: the container that holds the path's last token, and that token decoded; undefined when the path
 * has fewer than two `/`-separated parts or a container on the way is missing, null or not a container.
 */
function findObject(doc: unknown, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let cur: unknown = doc;
  for (const part of split.slice(1, -1)) {
    if (!Array.isArray(cur) && !isPlainObject(cur)) return undefined;
    const next = get(cur, decodePointerToken(part));
    if ('error' in next) return undefined;
    cur = next.value;
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) return undefined;
  return { con: cur, key: decodePointerToken(split[split.length - 1]!) };
}

/** lazyNode.equal: structural equality in which a null member equals an absent one only on both sides. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined)
    return (a === null || a === undefined) && (b === null || b === undefined);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return a === b;
}

const valueIn = (op: OverrideOperation): unknown => deepCopy(op.value ?? null);

/**
 * The path, or the library's error for an operation without one: add, remove and copy wrap ErrMissing, the
 * others wrap Operation.Path's own error.
 */
function requirePath(op: OverrideOperation): string {
  if (typeof op.path === 'string') return op.path;
  const wrapsMissing = op.op === 'add' || op.op === 'remove' || op.op === 'copy';
  return fail(
    `${op.op} operation failed to decode path`,
    wrapsMissing ? MISSING : `operation missing path field: ${MISSING}`,
  );
}

function requireFrom(op: OverrideOperation): string {
  if (typeof op.from !== 'string')
    fail(`${op.op} operation failed to decode from`, `operation, missing from field: ${MISSING}`);
  return op.from;
}

/** Applies one operation to `doc` in place where it can, and returns the (possibly new) document. */
function applyOne(doc: unknown, op: OverrideOperation): unknown {
  switch (op.op) {
    case 'add': {
      const path = requirePath(op);
      const found = findObject(doc, path);
      if (!found) fail(`add operation does not apply: doc is missing path: "${path}"`, MISSING);
      const err = add(found.con, found.key, valueIn(op));
      if (err) fail(`error in add for path: '${path}'`, err);
      return doc;
    }
    case 'remove': {
      const path = requirePath(op);
      const found = findObject(doc, path);
      if (!found) fail(`remove operation does not apply: doc is missing path: "${path}"`, MISSING);
      const err = remove(found.con, found.key);
      if (err) fail(`error in remove for path: '${path}'`, err);
      return doc;
    }
    case 'replace': {
      const path = requirePath(op);
      if (path === '') {
        const value = valueIn(op);
        return Array.isArray(value) || isPlainObject(value) ? value : doc;
      }
      const found = findObject(doc, path);
      if (!found) fail(`replace operation does not apply: doc is missing path: ${path}`, MISSING);
      const { con, key } = found;
      if (Array.isArray(con)) {
        const at = existingIndex(con, key);
        if ('error' in at) fail(`replace operation does not apply: doc is missing key: ${path}`, MISSING);
        con[at.index] = valueIn(op);
      } else setOwn(con, key, valueIn(op));
      return doc;
    }
    case 'move': {
      const from = requireFrom(op);
      const source = findObject(doc, from);
      if (!source) fail(`move operation does not apply: doc is missing from path: ${from}`, MISSING);
      const got = get(source.con, source.key);
      if ('error' in got) fail(`error in move for path: '${source.key}'`, got.error);
      const removed = remove(source.con, source.key);
      if (removed) fail(`error in move for path: '${source.key}'`, removed);
      const path = requirePath(op);
      const target = findObject(doc, path);
      if (!target) fail(`move operation does not apply: doc is missing destination path: ${path}`, MISSING);
      const err = add(target.con, target.key, got.value ?? null);
      if (err) fail(`error in move for path: '${path}'`, err);
      return doc;
    }
    case 'copy': {
      const from = requireFrom(op);
      const source = findObject(doc, from);
      if (!source) fail(`copy operation does not apply: doc is missing from path: ${from}`, MISSING);
      const got = get(source.con, source.key);
      if ('error' in got) fail(`error in copy for from: '${from}'`, got.error);
      const path = requirePath(op);
      const target = findObject(doc, path);
      if (!target) fail(`copy operation does not apply: doc is missing destination path: ${path}`, MISSING);
      const err = add(target.con, target.key, deepCopy(got.value ?? null));
      if (err) fail('error while adding value during copy', err);
      return doc;
    }
    case 'test': {
      const path = requirePath(op);
      const failed = (): never => fail(`testing value ${path} failed`, 'test failed');
      if (path === '') return jsonEqual(doc, op.value) ? doc : failed();
      const found = findObject(doc, path);
      if (!found) fail(`test operation does not apply: is missing path: ${path}`, MISSING);
      const got = get(found.con, found.key);
      if ('error' in got) fail(`error in test for path: '${path}'`, got.error);
      return jsonEqual(got.value, op.value) ? doc : failed();
    }
    default:
      throw new JsonPatchError(`Unexpected kind: ${op.op}`);
  }
}

/** Applies the operations in order to a deep copy of `doc`; the input is never modified. */
export function applyJsonPatch<T>(doc: T, ops: readonly OverrideOperation[]): T {
  let out: unknown = deepCopy(doc);
  for (const op of ops) out = applyOne(out, op);
  return out as T;
}
