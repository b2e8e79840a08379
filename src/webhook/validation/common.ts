// Helpers shared by the validators. Admission requests carry untrusted JSON: every field may be missing
// or of the wrong type, and each problem becomes a field error rather than an exception.

import { type FieldError, type FieldValue, invalid, notSupported, required } from '../../api/field-errors.ts';
import { isPlainObject, type JsonObject } from '../../propagation/json.ts';

export { isPlainObject, type JsonObject };

/** Go decodes JSON null as the zero value, so null and absent mean the same. */
export const isMissing = (v: unknown): v is undefined | null => v === undefined || v === null;

/** A value as it may be printed in a field error. */
export function asFieldValue(v: unknown): FieldValue {
  if (v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function' || typeof v === 'symbol') return String(v);
  return v as FieldValue;
}

/** KubeFed's validateEnumStrings: empty is Required, anything outside the list NotSupported. */
export function enumErrors(path: string, value: unknown, accepted: readonly string[]): FieldError[] {
  if (isMissing(value) || value === '') return [required(path)];
  if (typeof value === 'string' && accepted.includes(value)) return [];
  return [notSupported(path, asFieldValue(value), accepted)];
}

/**
 * The object at `value`: `{}` when absent (Go's zero value), undefined (with an error pushed) when
 * it is not an object.
 */
export function objectAt(errs: FieldError[], path: string, value: unknown): JsonObject | undefined {
  if (isMissing(value)) return {};
  if (isPlainObject(value)) return value;
  errs.push(invalid(path, asFieldValue(value), 'must be an object'));
  return undefined;
}

/** A string field: '' when absent, undefined (with an error pushed) when it is not a string. */
export function stringAt(errs: FieldError[], path: string, value: unknown): string | undefined {
  if (isMissing(value)) return '';
  if (typeof value === 'string') return value;
  errs.push(invalid(path, asFieldValue(value), 'must be a string'));
  return undefined;
}
