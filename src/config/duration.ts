// Go time.Duration parsing and formatting, bit-for-bit with Go's time.ParseDuration and
// Duration.String(), because KubeFedConfig stores durations as Go duration strings.
// Internally durations are int64 nanoseconds (bigint); the number API is in milliseconds.

const NANOSECOND = 1n;
const MICROSECOND = 1000n * NANOSECOND;
const MILLISECOND = 1000n * MICROSECOND;
const SECOND = 1000n * MILLISECOND;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

const MAX_INT64 = (1n << 63n) - 1n;
const TWO_63 = 1n << 63n;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', NANOSECOND],
  ['us', MICROSECOND],
  ['\u00b5s', MICROSECOND], // U+00B5 micro sign
  ['\u03bcs', MICROSECOND], // U+03BC Greek small letter mu
  ['ms', MILLISECOND],
  ['s', SECOND],
  ['m', MINUTE],
  ['h', HOUR],
]);

/** Thrown for strings Go's time.ParseDuration rejects; the message is Go's. */
export class DurationParseError extends Error {
  readonly input: string;
  constructor(message: string, input: string) {
    super(message);
    this.name = 'DurationParseError';
    this.input = input;
  }
}

/** Go's time.quote: double quotes, with `"`/`\` escaped and non-ASCII or control bytes as \xNN. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of new TextEncoder().encode(ch)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return `${out}"`;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * Parses a Go duration string ("1500ms", "1m30s", "-1.5h", "0") to nanoseconds.
 * Negative values are accepted, as in Go; callers decide whether they make sense.
 */
export function parseDurationNanos(input: string): bigint {
  const invalid = () => new DurationParseError(`time: invalid duration ${goQuote(input)}`, input);
  let s = input;
  let total = 0n;
  let neg = false;

  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();

  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();

    // Integer part [0-9]*; overflow past 2^63 is an error.
    let i = 0;
    let v = 0n;
    while (isDigit(s[i])) {
      if (v > TWO_63 / 10n) throw invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > TWO_63) throw invalid();
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);

    // Fraction (\.[0-9]*)?; digits beyond int64 precision are ignored, as in Go.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          if (f > MAX_INT64 / 10n) {
            overflow = true;
          } else {
            const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
            if (y > TWO_63) overflow = true;
            else {
              f = y;
              scale *= 10;
            }
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();

    // Unit: everything up to the next digit or dot.
    let k = 0;
    while (k < s.length && s[k] !== '.' && !isDigit(s[k])) k++;
    if (k === 0) throw new DurationParseError(`time: missing unit in duration ${goQuote(input)}`, input);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS.get(u);
    if (unit === undefined) {
      throw new DurationParseError(`time: unknown unit ${goQuote(u)} in duration ${goQuote(input)}`, input);
    }

    if (v > TWO_63 / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // Go does this step in float64 and truncates; mirror it so results match exactly.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) throw invalid();
    }
    total += v;
    if (total > TWO_63) throw invalid();
  }

  if (neg) return -total;
  if (total > MAX_INT64) throw invalid();
  return total;
}

/** Parses a Go duration string to milliseconds (fractional below 1ms). Throws DurationParseError. */
export function parseDuration(input: string): number {
  return nanosToMillis(parseDurationNanos(input));
}

/** Like parseDuration but returns undefined instead of throwing. */
export function tryParseDuration(input: string): number | undefined {
  try {
    return parseDuration(input);
  } catch (err) {
    if (err instanceof DurationParseError) return undefined;
    throw err;
  }
}

export function nanosToMillis(ns: bigint): number {
  const whole = ns / MILLISECOND;
  return Number(whole) + Number(ns - whole * MILLISECOND) / 1e6;
}

export function millisToNanos(ms: number): bigint {
  if (!Number.isFinite(ms)) throw new RangeError(`duration must be finite, got ${ms}`);
  return BigInt(Math.round(ms * 1e6));
}

/** Writes v/10^prec as ".ddd" without trailing zeros (nothing if the fraction is 0); returns [text, v/10^prec]. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) digits = digit.toString() + digits;
    v /= 10n;
  }
  return [print ? `.${digits}` : '', v];
}

/** Go's Duration.String(): "1h2m3.5s", "1m0s", "1.5ms", "0s". */
export function formatDurationNanos(ns: bigint): string {
  if (ns < -TWO_63 || ns > MAX_INT64) throw new RangeError(`duration ${ns}ns overflows int64`);
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;

  if (u < SECOND) {
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < MICROSECOND) {
      prec = 0;
      unit = 'ns';
    } else if (u < MILLISECOND) {
      prec = 3;
      unit = '\u00b5s';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [frac, rest] = fmtFrac(u, prec);
    out = `${rest}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Formats milliseconds the way Go prints a time.Duration ("20s", "1m0s", "1.5s"). */
export function formatDuration(ms: number): string {
  return formatDurationNanos(millisToNanos(ms));
}
