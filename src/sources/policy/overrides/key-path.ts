// Key-addressed list entries in override paths: a kubefed-ts extension (asked for in karmada#3362, #2069,
// #5384). A token `[name=app]` that meets a JSON array selects the first element that is an object whose
// field `name` equals `app`; everywhere else it is an ordinary RFC 6901 token, so a path that Karmada
// accepts means exactly what it means in Karmada (such a token on an array is an error there). Resolution
// turns the tokens into indexes against the current document; the RFC 6902 engine then does the rest.

import { hasOwn, isPlainObject } from '../../../propagation/json.ts';
import { decodePointerToken } from '../../../propagation/json-patch.ts';
import { atoi, type PatchOperation } from './patch.ts';

export class KeyPathError extends Error {
  override name = 'KeyPathError';
}

export interface ListKey {
  field: string;
  value: string;
}

/** `[field=value]` (both parts `~0`/`~1`-decoded; the field non-empty), or undefined. */
export function parseListKey(token: string): ListKey | undefined {
  if (!token.startsWith('[') || !token.endsWith(']')) return undefined;
  const body = token.slice(1, -1);
  const eq = body.indexOf('=');
  if (eq <= 0) return undefined;
  return { field: decodePointerToken(body.slice(0, eq)), value: decodePointerToken(body.slice(eq + 1)) };
}

/** Whether the path has any token that could address a list entry by key. */
export function hasListKeys(path: string): boolean {
  return path.split('/').some((t) => parseListKey(t) !== undefined);
}

/** A string field equal to the key, or a number or boolean that prints as it (`[containerPort=80]`). */
function entryMatches(entry: unknown, key: ListKey): boolean {
  if (!isPlainObject(entry) || !hasOwn(entry, key.field)) return false;
  const v = entry[key.field];
  if (typeof v === 'string') return v === key.value;
  return (typeof v === 'number' || typeof v === 'boolean') && String(v) === key.value;
}

const describe = (key: ListKey): string => `${key.field}=${key.value}`;

/** One step down a plain token, undefined when there is nothing there. */
function step(cur: unknown, token: string): unknown {
  if (Array.isArray(cur)) {
    const idx = atoi(token);
    if (typeof idx !== 'number') return undefined;
    return cur[idx < 0 ? idx + cur.length : idx];
  }
  return isPlainObject(cur) && hasOwn(cur, token) ? cur[token] : undefined;
}

export interface ResolvedPath {
  /** The path with every list key replaced by an index (or `-` for an entry to append). */
  path: string;
  /** Set when the last token is a list key: the key and whether an entry has it. */
  last?: { key: ListKey; exists: boolean };
}

/**
 * Resolves list keys against `doc`. A key that matches no entry fails, except as the last token, where the
 * caller decides (`add` appends). Tokens after a missing parent are left for the patch to report.
 */
export function resolveListKeys(doc: unknown, path: string): ResolvedPath {
  if (!hasListKeys(path)) return { path };
  const tokens = path.split('/');
  let cur: unknown = doc;
  let last: ResolvedPath['last'];
  // Token 0 is whatever precedes the first `/`; the RFC 6902 engine ignores it, so does this walk.
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    const key = Array.isArray(cur) ? parseListKey(token) : undefined;
    if (!key) {
      cur = step(cur, decodePointerToken(token));
      continue;
    }
    const list = cur as unknown[];
    const idx = list.findIndex((e) => entryMatches(e, key));
    const isLast = i === tokens.length - 1;
    if (idx < 0) {
      if (!isLast)
        throw new KeyPathError(
          `doc is missing path: ${path}: no entry of ${tokens.slice(0, i).join('/')} has ${describe(key)}`,
        );
      tokens[i] = '-';
      last = { key, exists: false };
      break;
    }
    tokens[i] = String(idx);
    if (isLast) last = { key, exists: true };
    cur = list[idx];
  }
  return { path: tokens.join('/'), ...(last ? { last } : {}) };
}

/**
 * One add/remove/replace with list keys resolved. `add` of a keyed entry appends it when no entry has the
 * key and replaces the entry otherwise (an upsert, as `add` of an object member is); `remove` and `replace`
 * of a keyed entry that is not there fail. A value for a keyed entry must be an object; its key field is
 * set when absent and must not name another entry.
 */
export function resolveOperation(doc: unknown, op: PatchOperation): PatchOperation {
  const resolved = resolveListKeys(doc, op.path);
  const { last } = resolved;
  if (!last) return { ...op, path: resolved.path };
  if (!last.exists && op.op !== 'add')
    throw new KeyPathError(
      `${op.op} operation does not apply: doc is missing key: ${op.path}: no entry has ${describe(last.key)}`,
    );
  if (op.op === 'remove') return { op: 'remove', path: resolved.path };
  const value = op.value;
  if (!isPlainObject(value))
    throw new KeyPathError(`the value for the list entry ${op.path} must be an object`);
  if (hasOwn(value, last.key.field) && !entryMatches(value, last.key))
    throw new KeyPathError(
      `the value for the list entry ${op.path} has ${last.key.field}=${JSON.stringify(value[last.key.field])}`,
    );
  const keyed = hasOwn(value, last.key.field) ? value : { [last.key.field]: last.key.value, ...value };
  return { op: last.exists ? 'replace' : 'add', path: resolved.path, value: keyed };
}
