// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource Quantity) parsed exactly, as
// integers of nano-units, so that "100m" CPU and "1Gi" memory compare and divide without float error.
// Values finer than a nano-unit are rounded up and magnitudes above 2^63-1 units are capped there, as
// ParseQuantity does (its "cap at min/max bounds"), so no input makes us compute a huge power. Pure.

const DECIMAL: Record<string, bigint> = {
  n: 1n,
  u: 1_000n,
  m: 1_000_000n,
  '': 1_000_000_000n,
  k: 1_000_000_000_000n,
  M: 10n ** 15n,
  G: 10n ** 18n,
  T: 10n ** 21n,
  P: 10n ** 24n,
  E: 10n ** 27n,
};
const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const NANO = 1_000_000_000n;
/** Quantity's maxAllowed: 2^63-1 units, in nano-units. */
const MAX_NANOS = ((1n << 63n) - 1n) * NANO;
/** Beyond this exponent (the digits' own length aside) a nonzero value is certainly capped or tiny. */
const EXPONENT_BOUND = 64n;
const PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE])([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The quantity in nano-units (1 = 1n, 1e9 = 1), or undefined when it is not a valid quantity. */
export function parseQuantity(value: string | number): bigint | undefined {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, sign, whole = '', fraction = '', e, exponent, suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return 0n;
  // digits / 10^fraction.length × multiplier, as a fraction num/den, then rounded up to a nano-unit.
  let num = BigInt(digits);
  let den = 10n ** BigInt(fraction.length);
  if (e) {
    const exp = BigInt(exponent ?? '0');
    // The value is digits × 10^(exp - fraction.length): far out of range either way, settle it unpowered.
    const magnitude = exp - BigInt(fraction.length);
    if (magnitude > EXPONENT_BOUND) return signed(sign, MAX_NANOS);
    if (magnitude < -(EXPONENT_BOUND + BigInt(digits.length))) return signed(sign, 1n);
    if (exp >= 0n) num *= 10n ** exp * NANO;
    else {
      num *= NANO;
      den *= 10n ** -exp;
    }
  } else if (suffix in BINARY) num *= (BINARY[suffix] ?? 1n) * NANO;
  else num *= DECIMAL[suffix] ?? NANO;
  const nanos = (num + den - 1n) / den;
  return signed(sign, nanos > MAX_NANOS ? MAX_NANOS : nanos);
}

function signed(sign: string | undefined, nanos: bigint): bigint {
  return sign === '-' ? -nanos : nanos;
}

/** Nano-units of a quantity that must be valid: an invalid one counts as zero. */
export function quantityOrZero(value: unknown): bigint {
  return typeof value === 'string' || typeof value === 'number' ? (parseQuantity(value) ?? 0n) : 0n;
}
