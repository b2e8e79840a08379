// RFC 6902 JSON Patch (add, remove, replace) over RFC 6901 JSON Pointers, with the negative array
// indexes of evanphx/json-patch v4.12 (what KubeFed v0.10 applies overrides with).

import { deepCopy, hasOwn, isPlainObject, type JsonObject, setOwn } from './json.ts';

export type PatchOp = 'add' | 'remove' | 'replace';

export interface OverrideOperation {
  op: PatchOp;
  path: string;
  value?: unknown;
}

export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
}

/** Splits a JSON pointer into unescaped reference tokens; "" is the whole document. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token))
        throw new JsonPatchError(
          `invalid JSON pointer ${JSON.stringify(pointer)}: "~" must be followed by 0 or 1`,
        );
      return token.replaceAll('~1', '/').replaceAll('~0', '~');
    });
}

/** Escapes one reference token for a JSON pointer. */
export function escapeJsonPointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

const INDEX_RE = /^(0|-?[1-9][0-9]*)$/;

type Container = JsonObject | unknown[];

class Patcher {
  readonly op: string;
  readonly path: string;

  constructor(op: string, path: string) {
    this.op = op;
    this.path = path;
  }

  fail(reason: string): never {
    throw new JsonPatchError(`${this.op} operation does not apply: ${reason}`);
  }

  missing(): never {
    this.fail(`doc is missing path: ${this.path}`);
  }

  index(token: string): number {
    if (!INDEX_RE.test(token))
      this.fail(`invalid array index ${JSON.stringify(token)} in path: ${this.path}`);
    return Number(token);
  }

  /** Index of an existing element; negative counts from the end (-1 is the last element). */
  existingIndex(arr: readonly unknown[], token: string): number {
    const idx = this.index(token);
    if (idx >= arr.length || idx < -arr.length)
      this.fail(`array index ${token} out of range in path: ${this.path}`);
    return idx < 0 ? idx + arr.length : idx;
  }

  /** Insertion index: may equal the length; negative counts from one past the end (-1 appends). */
  insertionIndex(arr: readonly unknown[], token: string): number {
    if (token === '-') return arr.length;
    const size = arr.length + 1;
    const idx = this.index(token);
    if (idx >= size || idx < -size) this.fail(`array index ${token} out of range in path: ${this.path}`);
    return idx < 0 ? idx + size : idx;
  }

  /** The container holding the last token; every token before it must exist. */
  parent(doc: unknown, tokens: readonly string[]): Container {
    let cur = doc;
    for (const token of tokens.slice(0, -1)) {
      if (Array.isArray(cur)) cur = cur[this.existingIndex(cur, token)];
      else if (isPlainObject(cur) && hasOwn(cur, token)) cur = cur[token];
      else this.missing();
    }
    if (!Array.isArray(cur) && !isPlainObject(cur)) this.missing();
    return cur;
  }
}

function applyOne(doc: unknown, operation: OverrideOperation): unknown {
  const { op, path } = operation;
  // Explicitly typed so that calls of its `never` methods narrow control flow.
  const p: Patcher = new Patcher(op, path);
  if (op !== 'add' && op !== 'remove' && op !== 'replace')
    throw new JsonPatchError(`unsupported operation ${JSON.stringify(op)} for path: ${path}`);
  if (op !== 'remove' && operation.value === undefined) p.fail(`missing value for path: ${path}`);
  let tokens: string[];
  try {
    tokens = parseJsonPointer(path);
  } catch (err) {
    p.fail((err as Error).message);
  }
  if (tokens.length === 0) {
    if (op === 'remove') p.fail('cannot remove the whole document');
    return deepCopy(operation.value);
  }
  const parent = p.parent(doc, tokens);
  const key = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    if (op === 'add') parent.splice(p.insertionIndex(parent, key), 0, deepCopy(operation.value));
    else if (op === 'remove') parent.splice(p.existingIndex(parent, key), 1);
    else parent[p.existingIndex(parent, key)] = deepCopy(operation.value);
    return doc;
  }
  // `add` on an existing member replaces it, whole arrays included (KubeFed issue #1224).
  if (op !== 'add' && !hasOwn(parent, key)) p.missing();
  if (op === 'remove') delete parent[key];
  else setOwn(parent, key, deepCopy(operation.value));
  return doc;
}

/** Applies the operations in order to a deep copy of `doc`; the input is never modified. */
export function applyJsonPatch<T>(doc: T, ops: readonly OverrideOperation[]): T {
  let out: unknown = deepCopy(doc);
  for (const op of ops) out = applyOne(out, op);
  return out as T;
}
