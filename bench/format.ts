// Cell formatting shared by the benchmark's markdown tables: a dash for what was not measured, never 0 or NaN.

export const DASH = '–';

/** A measured number with `digits` decimals; a string passes through (a cell already written). */
export function num(v: number | string | undefined, digits = 0): string {
  if (typeof v === 'string') return v;
  if (v === undefined || !Number.isFinite(v)) return DASH;
  return v.toFixed(digits);
}

/** a ÷ b as `1.23×`; a dash unless both are finite numbers and b is not 0. */
export function ratio(a: number | string | undefined, b: number | string | undefined): string {
  if (typeof a !== 'number' || typeof b !== 'number') return DASH;
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return DASH;
  return `${(a / b).toFixed(2)}×`;
}
