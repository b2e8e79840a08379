// Parsing and validation of `spec.overrides` (KubeFed pkg/controller/util/overrides.go). A violation
// fails every cluster of the object with ApplyOverridesFailed, so the first error is enough.

import { isPlainObject } from './json.ts';
import { escapeJsonPointerToken, type OverrideOperation } from './json-patch.ts';

export { applyJsonPatch, JsonPatchError, type OverrideOperation, type PatchOp } from './json-patch.ts';

export class OverridesError extends Error {
  override name = 'OverridesError';
}

/** Paths an override may not touch: the identity of the member object (exact match, as in KubeFed). */
export const FORBIDDEN_OVERRIDE_PATHS: readonly string[] = [
  '/metadata/namespace',
  '/metadata/name',
  '/metadata/generateName',
  '/kind',
];

const FORBIDDEN: ReadonlySet<string> = new Set(FORBIDDEN_OVERRIDE_PATHS);

/**
 * Returns a JSON pointer for an override path. A path starting with `/` already is one, and `""` is the whole
 * object (KubeFed passes both to the JSON-patch library as they are). Anything else is the pre-v0.1 dotted
 * shorthand of KubeFed, extended with indexes:
 * `spec.replicas`, `spec.template.spec.containers.0.image`, `containers[0].image`, `args[-1]`, and
 * quoted keys for names with dots, `metadata.labels["app.kubernetes.io/name"]`.
 */
export function normalizeOverridePath(path: string): string {
  if (path === '' || path.startsWith('/')) return path;
  return `/${dottedTokens(path).map(escapeJsonPointerToken).join('/')}`;
}

function dottedTokens(path: string): string[] {
  const bad = (reason: string): never => {
    throw new OverridesError(`invalid override path ${JSON.stringify(path)}: ${reason}`);
  };
  const tokens: string[] = [];
  let i = 0;
  // true at the start and after a '.', where a segment must follow.
  let needSegment = true;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '[') {
      if (needSegment && i > 0) bad(`empty segment at offset ${i}`);
      const quote = path[i + 1];
      let token: string;
      if (quote === '"' || quote === "'") {
        const end = path.indexOf(quote, i + 2);
        if (end < 0 || path[end + 1] !== ']') bad(`unterminated quoted key at offset ${i}`);
        token = path.slice(i + 2, end);
        i = end + 2;
      } else {
        const end = path.indexOf(']', i + 1);
        if (end < 0) bad(`missing "]" after offset ${i}`);
        token = path.slice(i + 1, end);
        if (token === '') bad(`empty index at offset ${i}`);
        i = end + 1;
      }
      tokens.push(token);
      needSegment = false;
    } else if (c === '.') {
      if (needSegment) bad(`empty segment at offset ${i}`);
      needSegment = true;
      i++;
    } else {
      if (!needSegment) bad(`expected "." or "[" at offset ${i}`);
      let end = i;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      tokens.push(path.slice(i, end));
      needSegment = false;
      i = end;
    }
  }
  if (needSegment) bad('empty segment at the end');
  return tokens;
}

/**
 * Validates `spec.overrides` as KubeFed's GetOverrides does and returns each cluster's JSON patch, paths
 * normalised to JSON pointers and an empty op defaulted to `replace` (ApplyJSONPatch). The op itself is left to
 * the JSON-patch library, as in KubeFed: the CRD admits only add, remove and replace, and any other op fails
 * that cluster when applied. A missing or null value is null, since KubeFed serialises it with omitempty: `add`
 * and `replace` then set the field to null, which the desired object drops (the field is unset).
 * Throws the first OverridesError found.
 */
export function parseOverrides(raw: unknown): Map<string, OverrideOperation[]> {
  const result = new Map<string, OverrideOperation[]>();
  if (raw === undefined || raw === null) return result;
  if (!Array.isArray(raw)) throw new OverridesError('spec.overrides must be a list');
  raw.forEach((item: unknown, itemIndex) => {
    if (!isPlainObject(item)) throw new OverridesError(`spec.overrides[${itemIndex}] must be an object`);
    const cluster = item.clusterName;
    if (typeof cluster !== 'string')
      throw new OverridesError(`spec.overrides[${itemIndex}].clusterName must be a string`);
    if (result.has(cluster))
      throw new OverridesError(`cluster ${JSON.stringify(cluster)} appears more than once`);
    const list: unknown = item.clusterOverrides;
    if (list !== undefined && list !== null && !Array.isArray(list))
      throw new OverridesError(`spec.overrides[${itemIndex}].clusterOverrides must be a list`);
    const ops: OverrideOperation[] = [];
    const paths = new Set<string>();
    const where = (i: number): string => `override[${i}] for cluster ${JSON.stringify(cluster)}`;
    (list ?? []).forEach((entry: unknown, i: number) => {
      if (!isPlainObject(entry)) throw new OverridesError(`${where(i)} must be an object`);
      const rawOp: unknown = entry.op;
      if (rawOp !== undefined && rawOp !== null && typeof rawOp !== 'string')
        throw new OverridesError(`${where(i)} has an invalid op: ${JSON.stringify(rawOp)}`);
      const op = rawOp === undefined || rawOp === null || rawOp === '' ? 'replace' : rawOp;
      const rawPath: unknown = entry.path;
      if (typeof rawPath !== 'string') throw new OverridesError(`${where(i)} must have a string path`);
      let path: string;
      try {
        path = normalizeOverridePath(rawPath);
      } catch (err) {
        throw new OverridesError(`${where(i)} has an invalid path: ${(err as Error).message}`);
      }
      if (FORBIDDEN.has(path)) throw new OverridesError(`${where(i)} has an invalid path: ${rawPath}`);
      if (paths.has(path))
        throw new OverridesError(
          `path ${JSON.stringify(rawPath)} appears more than once for cluster ${JSON.stringify(cluster)}`,
        );
      paths.add(path);
      ops.push(op === 'remove' ? { op, path } : { op, path, value: entry.value ?? null });
    });
    result.set(cluster, ops);
  });
  return result;
}
