// fieldOverrider (karmada pkg/util/overridemanager/overridemanager.go, applyFieldOverriders): the field at
// fieldPath must hold a string; it is parsed as YAML (when `yaml` has operations) or JSON (when `json` has),
// patched with RFC 6902 and written back. JSON comes back compact (json-patch/v5 marshals it), YAML in
// sigs.k8s.io/yaml's style (JSONToYAML: go-yaml v2, keys sorted, sequences not indented). With neither list
// set Karmada writes back an empty string, and so does this.

import { parse as parseYaml } from 'yaml';
import type { FieldOverrider, YamlJsonPatch } from '../../../api/policy/v1alpha1/index.ts';
import { goQuote, isPlainObject, type JsonObject, setOwn } from '../../../propagation/json.ts';
import { decodePointerToken } from '../../../propagation/json-patch.ts';
import { resolveListKeys } from './key-path.ts';
import type { PatchOperation } from './patch.ts';
import { applyOperations } from './plaintext.ts';
import { stringifyYamlV2 } from './yaml-v2.ts';

export class FieldOverrideError extends Error {
  override name = 'FieldOverrideError';
}

/** go-openapi/jsonpointer New + Get: the parent container and token of a pointer, when the value is there. */
function locate(obj: JsonObject, pointer: string): { parent: JsonObject | unknown[]; token: string } {
  if (pointer !== '' && !pointer.startsWith('/'))
    throw new FieldOverrideError('JSON pointer must be empty or start with a "/"');
  if (pointer === '') throw new FieldOverrideError(`Get object's value by overrider's path() is not string`);
  const tokens = pointer.split('/').slice(1).map(decodePointerToken);
  let cur: unknown = obj;
  let parent: JsonObject | unknown[] = obj;
  for (const token of tokens) {
    if (isPlainObject(cur)) {
      if (!Object.hasOwn(cur, token))
        throw new FieldOverrideError(`object has no key ${JSON.stringify(token)}`);
      parent = cur;
      cur = cur[token];
    } else if (Array.isArray(cur)) {
      const idx = /^[+-]?[0-9]+$/.test(token) ? Number(token) : Number.NaN;
      if (!Number.isInteger(idx))
        throw new FieldOverrideError(`strconv.Atoi: parsing ${JSON.stringify(token)}: invalid syntax`);
      if (idx < 0 || idx >= cur.length)
        throw new FieldOverrideError(`index out of bounds array[0,${cur.length}] index '${idx}'`);
      parent = cur;
      cur = cur[idx];
    } else throw new FieldOverrideError(`invalid token reference ${JSON.stringify(token)}`);
  }
  return { parent, token: tokens[tokens.length - 1]! };
}

function operations(patches: readonly YamlJsonPatch[]): PatchOperation[] {
  return patches.map((p) => ({ op: p.operator, path: p.subPath, value: p.value ?? null }));
}

/** JSON as json-patch/v5 writes it back: compact, members in document order, HTML characters escaped. */
export function compactJson(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(compactJson).join(',')}]`;
  if (isPlainObject(value))
    return `{${Object.keys(value)
      .map((k) => `${goQuote(k)}:${compactJson(value[k])}`)
      .join(',')}}`;
  return 'null';
}

function patchJson(text: string, patches: readonly YamlJsonPatch[]): string {
  // Patch.Apply returns an empty document unchanged.
  if (text === '') return text;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new FieldOverrideError(`invalid JSON: ${(err as Error).message}`);
  }
  // json-patch/v5 takes a document for an array only when its first byte is `[`.
  if (!isPlainObject(doc) && !(Array.isArray(doc) && text.startsWith('[')))
    throw new FieldOverrideError(
      `json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into a JSON patch document`,
    );
  return compactJson(applyOperations(doc, operations(patches)));
}

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';

/** YAML 1.1 as go-yaml v2 reads it, keys stringified as YAMLToJSON does. */
function patchYaml(text: string, patches: readonly YamlJsonPatch[]): string {
  let doc: unknown;
  try {
    doc =
      parseYaml(text, {
        version: '1.1',
        merge: true,
        uniqueKeys: false,
        // Timestamps stay strings, as they do in JSON.
        customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== TIMESTAMP_TAG),
      }) ?? null;
  } catch (err) {
    throw new FieldOverrideError(`error converting YAML to JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(doc) && !Array.isArray(doc))
    throw new FieldOverrideError('the YAML field must hold a mapping or a sequence to be patched');
  const patched = applyOperations(doc, operations(patches));
  return stringifyYamlV2(patched);
}

/** Rewrites the string field a fieldOverrider points at. Changes `obj` in place: pass a copy. */
export function applyFieldOverrider(obj: JsonObject, o: FieldOverrider): void {
  const pointer = resolveListKeys(obj, o.fieldPath).path;
  const { parent, token } = locate(obj, pointer);
  const current = Array.isArray(parent) ? parent[Number(token)] : parent[token];
  if (typeof current !== 'string')
    throw new FieldOverrideError(`Get object's value by overrider's path(${o.fieldPath}) is not string`);
  let next = '';
  try {
    if (o.yaml && o.yaml.length > 0) next = patchYaml(current, o.yaml);
    else if (o.json && o.json.length > 0) next = patchJson(current, o.json);
  } catch (err) {
    if (err instanceof FieldOverrideError) throw err;
    throw new FieldOverrideError(`${o.fieldPath}: ${(err as Error).message}`);
  }
  if (Array.isArray(parent)) parent[Number(token)] = next;
  else setOwn(parent, token, next);
}
