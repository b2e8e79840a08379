// The KubeFedConfig webhooks: validation (src/config's validateKubeFedConfig, scope immutable on
// update) and defaulting on create, answered as KubeFed does with one JSON patch `replace /spec`.

import type { FieldError } from '../api/field-errors.ts';
import {
  defaultKubeFedConfigSpec,
  type KubeFedConfigLike,
  type PartialKubeFedConfigSpec,
  validateKubeFedConfig,
} from '../config/index.ts';
import { isPlainObject, jsonEqual } from '../propagation/json.ts';

export interface JsonPatchOperation {
  op: 'add' | 'replace';
  path: string;
  value: unknown;
}

/** Validates a KubeFedConfig; with `old` (an UPDATE) the scope must not change. */
export function validateKubeFedConfigObject(obj: unknown, old?: unknown): FieldError[] {
  const config: KubeFedConfigLike = isPlainObject(obj) ? obj : {};
  if (old === undefined) return validateKubeFedConfig(config);
  return validateKubeFedConfig(config, isPlainObject(old) ? old : {});
}

const SUB_OBJECTS = [
  'controllerDuration',
  'leaderElect',
  'clusterHealthCheck',
  'syncController',
  'statusController',
] as const;

/** Defaulting only understands the documented shapes; anything else is left for validation to report. */
function defaultable(spec: Record<string, unknown>): boolean {
  for (const key of SUB_OBJECTS) {
    const v = spec[key];
    if (v !== undefined && v !== null && !isPlainObject(v)) return false;
  }
  const gates = spec['featureGates'];
  if (gates === undefined || gates === null) return true;
  return Array.isArray(gates) && gates.every((g) => isPlainObject(g));
}

/**
 * The JSON patch that defaults a KubeFedConfig, or an empty list when defaulting changes nothing.
 * The spec is replaced as a whole, as KubeFed does; a missing spec is added instead (replace needs
 * an existing target).
 */
export function kubeFedConfigDefaultingPatch(obj: unknown): JsonPatchOperation[] {
  if (!isPlainObject(obj)) return [];
  const raw = obj['spec'];
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) return [];
  const spec = raw ?? {};
  if (!defaultable(spec)) return [];
  const defaulted = defaultKubeFedConfigSpec(spec as PartialKubeFedConfigSpec);
  if (jsonEqual(defaulted, spec)) return [];
  return [{ op: raw === undefined ? 'add' : 'replace', path: '/spec', value: defaulted }];
}
