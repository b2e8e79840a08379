// plaintextOverrider: RFC 6902 operations on the whole object (karmada pkg/util/overridemanager/
// overridemanager.go, parseJSONPatchesByPlaintext + applyJSONPatch), with list entries addressable by key.

import type { PlaintextOverrider } from '../../../api/policy/v1alpha1/index.ts';
import { resolveOperation } from './key-path.ts';
import { applyPatch, type PatchOperation } from './patch.ts';

/**
 * Applies add/remove/replace operations in order; each list key is resolved against the document as the
 * previous operations left it. Returns a new document.
 */
export function applyOperations<T>(doc: T, ops: readonly PatchOperation[]): T {
  let out = doc;
  for (const op of ops) out = applyPatch(out, [resolveOperation(out, op)]);
  return out;
}

export function plaintextOperations(overriders: readonly PlaintextOverrider[]): PatchOperation[] {
  return overriders.map((o) => ({ op: o.operator, path: o.path, value: o.value ?? null }));
}
