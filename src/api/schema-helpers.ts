import { type TUnsafe, Type } from 'typebox';

/**
 * A closed set of strings, emitted as `{type: string, enum: [...]}` — the form a structural
 * CRD schema needs (TypeBox's own Union-of-Literals becomes an `anyOf` of `const`s).
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * A string typed as `T` in TypeScript but left open in the CRD: for values written by
 * controllers (condition types, reasons) where KubeFed's CRD does not constrain them either.
 */
export function TypedString<T extends string>(options: { description?: string } = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ ...options, type: 'string' });
}

/** A Go `metav1.Duration`: serialised as a Go duration string such as "1m30s". */
export function GoDuration(description: string) {
  return Type.String({ description });
}

/** A `metav1.Time`: RFC 3339, second precision. */
export function DateTime(description: string) {
  return Type.String({ format: 'date-time', description });
}

/** A Go int64: JSON numbers, safe in JavaScript up to 2^53. */
export function Int64(description: string) {
  return Type.Integer({ format: 'int64', description });
}
