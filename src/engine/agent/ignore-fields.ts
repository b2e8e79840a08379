// The body the agent server-side-applies when a ServerSideApply strategy lists ignoreFields (ocm
// pkg/work/spoke/apply/server_side_apply.go Apply, removeFieldByJSONPath, removeFieldByJSONPointer):
// - OnSpokePresent paths are dropped from the body when the object exists, so the agent neither sets nor
//   claims them and whoever changes them on the member keeps the change; on create the full manifest goes;
// - OnSpokeChange paths stay in the body, but the agent skips the apply altogether while the manifest (minus
//   the OnSpokePresent fields) is unchanged: OCM stamps its hash as open-cluster-management.io/config-spec-hash
//   and compares it with the live object's, so changes made on the member survive until the work changes.

import { CONFIG_SPEC_HASH_ANNOTATION, type IgnoreField } from '../../api/ocm/work/v1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { findJsonPath, parseJsonPath } from './jsonpath.ts';
import { objectHash, withObjectHash } from './object-hash.ts';

export type SsaBody =
  | {
      body: KubeObject;
      /** True when the live object already carries this hash: OCM then only updates owner references. */
      skip?: boolean;
      /** The config-spec-hash, when ignoreFields are set. */
      hash?: string;
    }
  | { error: string };

/**
 * `lastApplied` is accepted for callers that keep one, but, like OCM, the decision uses only the hash
 * annotation on the live object. An unparsable JSONPath or JSON pointer gives `{ error }` (the shell reports
 * AppliedManifestSSAIgnoreFieldError).
 */
export function ssaBody(
  desired: KubeObject,
  live: KubeObject | undefined,
  ignoreFields: readonly IgnoreField[] | undefined,
  _lastApplied?: KubeObject,
): SsaBody {
  if (!ignoreFields || ignoreFields.length === 0) return { body: desired };
  const required = structuredClone(desired);
  for (const field of ignoreFields) {
    // OnSpokeChange fields stay in the hashed body: the hash comparison is what leaves them alone.
    if (field.condition === 'OnSpokeChange') continue;
    for (const path of field.jsonPaths ?? []) {
      const error = removeByJsonPath(required, path);
      if (error) return { error: `JSON path error in '${path}': ${error}` };
    }
    for (const pointer of jsonPointersOf(field)) {
      const error = removeByJsonPointer(required, pointer);
      if (error) return { error: `JSON Pointer error in '${pointer}': ${error}` };
    }
  }
  const hash = objectHash(required);
  if (!live) return { body: withObjectHash(desired, hash, CONFIG_SPEC_HASH_ANNOTATION), hash };
  const body = withObjectHash(required, hash, CONFIG_SPEC_HASH_ANNOTATION);
  const skip = live.metadata.annotations?.[CONFIG_SPEC_HASH_ANNOTATION] === hash;
  return { body, hash, ...(skip ? { skip } : {}) };
}

/** removeFieldByJSONPath: the last `.key` is deleted from every map the rest of the path reaches. */
function removeByJsonPath(obj: KubeObject, path: string): string | undefined {
  const keys = path.split('.');
  const last = keys[keys.length - 1] ?? '';
  const parent = path.endsWith(`.${last}`) ? path.slice(0, path.length - last.length - 1) : path;
  let targets: unknown[];
  try {
    targets = parent.trim() === '' ? [obj] : findJsonPath(obj, parseJsonPath(parent));
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  for (const t of targets) {
    if (typeof t === 'object' && t !== null && !Array.isArray(t)) delete (t as Record<string, unknown>)[last];
  }
  return undefined;
}

/** OCM's jsonPointers (RFC 6901), read when the ignore field has them; a missing path is not an error. */
function jsonPointersOf(field: IgnoreField): string[] {
  const pointers = (field as { jsonPointers?: unknown }).jsonPointers;
  return Array.isArray(pointers) ? pointers.filter((p): p is string => typeof p === 'string') : [];
}

function removeByJsonPointer(obj: KubeObject, pointer: string): string | undefined {
  if (pointer === '') return 'cannot remove the whole document';
  if (!pointer.startsWith('/')) return `JSON pointer must be empty or start with a "/"`;
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = obj;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = /^\d+$/.test(token) ? node[Number(token)] : undefined;
    else if (typeof node === 'object' && node !== null) node = (node as Record<string, unknown>)[token];
    else return undefined;
  }
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(node)) {
    if (/^\d+$/.test(last) && Number(last) < node.length) node.splice(Number(last), 1);
  } else if (typeof node === 'object' && node !== null) {
    delete (node as Record<string, unknown>)[last];
  }
  return undefined;
}
