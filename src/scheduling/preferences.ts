// Reading an RSP spec: the checks KubeFed never made (its CRD accepted anything and the controller
// logged a bad targetKind), so the controller can report bad input and `kubefedctl plan` can refuse it,
// and the planner's preferences with KubeFed's defaults applied.

import {
  type FieldError,
  type FieldValue,
  formatFieldError,
  invalid,
  notSupported,
  required,
} from '../api/field-errors.ts';
import { RSP_TARGET_KINDS } from '../api/scheduling/v1alpha1/index.ts';
import { isPlainObject, setOwn } from '../propagation/json.ts';
import type { ClusterPreferences } from './planner.ts';

const INT32_MAX = 2147483647;

/** What KubeFed's controller uses when `spec.clusters` is empty or absent. */
export const DEFAULT_PREFERENCES: Readonly<Record<string, ClusterPreferences>> = Object.freeze({
  '*': Object.freeze({ minReplicas: 0, weight: 1 }),
});

function asFieldValue(v: unknown): FieldValue {
  if (v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  if (Array.isArray(v)) return v;
  if (isPlainObject(v)) return v;
  return String(v);
}

/** A non-negative integer (below `max` if given), or the field error saying why not. */
function countError(field: string, value: unknown, max?: number): FieldError | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value))
    return invalid(field, asFieldValue(value), 'must be an integer');
  if (value < 0) return invalid(field, value, 'must be greater than or equal to 0');
  if (max !== undefined && value > max) return invalid(field, value, `must be less than or equal to ${max}`);
  return undefined;
}

/**
 * Every problem with an RSP spec, one line each in the API server's field-error format; empty when
 * the spec can be planned. Accepts raw JSON (a spec straight from the API server or a YAML file).
 */
export function validateRsp(spec: unknown): string[] {
  if (!isPlainObject(spec)) return [formatFieldError(required('spec'))];
  const lines: string[] = [];
  const add = (e: FieldError) => lines.push(formatFieldError(e));

  const kind = spec['targetKind'];
  if (kind === undefined || kind === null) add(required('spec.targetKind'));
  else if (typeof kind !== 'string' || !(RSP_TARGET_KINDS as readonly string[]).includes(kind))
    add(notSupported('spec.targetKind', asFieldValue(kind), RSP_TARGET_KINDS));

  const total = spec['totalReplicas'];
  if (total === undefined || total === null) add(required('spec.totalReplicas'));
  else {
    const e = countError('spec.totalReplicas', total, INT32_MAX);
    if (e) add(e);
  }

  for (const flag of ['rebalance', 'intersectWithClusterSelector']) {
    const v = spec[flag];
    if (v !== undefined && v !== null && typeof v !== 'boolean')
      add(invalid(`spec.${flag}`, asFieldValue(v), 'must be a boolean'));
  }

  const clusters = spec['clusters'];
  if (clusters !== undefined && clusters !== null) {
    if (!isPlainObject(clusters)) {
      add(invalid('spec.clusters', asFieldValue(clusters), 'must be a map of cluster name to preferences'));
    } else {
      for (const [name, pref] of Object.entries(clusters)) {
        const path = `spec.clusters[${name}]`;
        // null is what Go decodes as a zero ClusterPreferences: all defaults.
        if (pref === null) continue;
        if (!isPlainObject(pref)) {
          add(invalid(path, asFieldValue(pref), 'must be an object'));
          continue;
        }
        let countsOk = true;
        for (const field of ['minReplicas', 'maxReplicas', 'weight']) {
          const v = pref[field];
          if (v === undefined || v === null) continue;
          const e = countError(`${path}.${field}`, v);
          if (e) {
            add(e);
            countsOk = false;
          }
        }
        const min = pref['minReplicas'];
        const max = pref['maxReplicas'];
        if (countsOk && typeof min === 'number' && typeof max === 'number' && min > max) {
          lines.push(`${path}: Invalid value: minReplicas ${min} > maxReplicas ${max}`);
        }
      }
    }
  }
  return lines;
}

/**
 * The planner's preferences of a spec (assumed valid, see validateRsp): min 0, weight 0 and no
 * max where a field is absent; `{"*": {weight: 1}}` when `clusters` is empty or absent.
 */
export function preferencesOf(spec: { clusters?: unknown } | undefined): Record<string, ClusterPreferences> {
  const clusters = spec?.clusters;
  const out: Record<string, ClusterPreferences> = {};
  if (!isPlainObject(clusters) || Object.keys(clusters).length === 0) {
    setOwn(out, '*', { minReplicas: 0, weight: 1 });
    return out;
  }
  for (const [name, raw] of Object.entries(clusters)) {
    const pref = isPlainObject(raw) ? raw : {};
    const min = pref['minReplicas'];
    const max = pref['maxReplicas'];
    const weight = pref['weight'];
    const p: ClusterPreferences = {
      minReplicas: typeof min === 'number' ? min : 0,
      weight: typeof weight === 'number' ? weight : 0,
    };
    if (typeof max === 'number') p.maxReplicas = max;
    setOwn(out, name, p);
  }
  return out;
}
