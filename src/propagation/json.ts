// Small helpers for the raw JSON values the propagation core works on (templates, overrides,
// member objects). Property access goes through own-property checks so that keys such as
// `__proto__` coming from user data are plain data and can never reach a prototype.

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.hasOwn(obj, key);
}

export function getOwn(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Sets an own data property, even for `__proto__`, without invoking setters. `__proto__` is the only key
 * with a setter on a plain object's prototype chain, so every other key is a plain assignment, which keeps
 * V8's fast object shapes (defining every key was most of the copy's cost).
 */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** Deep copy of a JSON-like value. Non-JSON leaves (functions, class instances) are kept by reference. */
export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => deepCopy(v)) as T;
  if (isPlainObject(value) && isPlainPrototype(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(out, key, deepCopy(value[key]));
    return out as T;
  }
  return value;
}

function isPlainPrototype(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Orders strings by Unicode code point, which is the byte order of their UTF-8 form (Go's string order). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800–DFFF) encodes a code point above U+FFFF, so it sorts after U+E000–FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

const HEX = '0123456789abcdef';

/** A JSON string literal escaped like Go's encoding/json with HTML escaping on (the Encoder default). */
export function goQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) {
      out += `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    } else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else out += '\\ufffd'; // Go replaces invalid UTF-8 with U+FFFD
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\\ufffd';
    else out += s[i]!;
  }
  return `${out}"`;
}

/**
 * JSON as Go's encoding/json writes a map[string]interface{}: keys sorted by byte order, no
 * whitespace, HTML-sensitive characters escaped. Numbers are printed the JavaScript way (Go's
 * float formatting agrees for every integer and for the usual fractions). Like JSON.stringify,
 * undefined members are skipped, undefined array items and non-finite numbers become null.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return goQuote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return canonicalJson(toJSON.call(value));
  const obj = value as JsonObject;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined && typeof obj[k] !== 'function' && typeof obj[k] !== 'symbol')
    .sort(compareCodePoints);
  return `{${keys.map((k) => `${goQuote(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/**
 * Structural equality of two JSON values (key order ignored, undefined members ignored): exactly
 * `canonicalJson(a) === canonicalJson(b)`, without building either string. It runs for every status and
 * version comparison of every reconcile, and stops at the first difference.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const x = asJsonValue(a);
  const y = asJsonValue(b);
  if (x === y) return true;
  switch (typeof x) {
    case 'string':
      // Distinct strings differ once quoted, except lone surrogates, which Go writes as U+FFFD.
      return typeof y === 'string' && hasSurrogate(x) && goQuote(x) === goQuote(y);
    case 'number':
    case 'bigint':
      return (typeof y === 'number' || typeof y === 'bigint') && String(x) === String(y);
    case 'boolean':
      return false;
  }
  if (x === null || y === null || typeof y !== 'object') return false;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false;
    return true;
  }
  const xo = x as JsonObject;
  const yo = y as JsonObject;
  const xKeys = Object.keys(xo).filter((k) => isMember(xo[k]));
  let yCount = 0;
  for (const k of Object.keys(yo)) if (isMember(yo[k])) yCount++;
  if (xKeys.length !== yCount) return false;
  for (const k of xKeys) {
    // A key of one that the other lacks: unequal, unless surrogates make two keys quote alike.
    if (!Object.hasOwn(yo, k) || !isMember(yo[k]))
      return hasSurrogate(k) && canonicalJson(xo) === canonicalJson(yo);
    if (!jsonEqual(xo[k], yo[k])) return false;
  }
  return true;
}

/** What canonicalJson writes a value as: null for what JSON cannot hold, an object's toJSON() for it. */
function asJsonValue(v: unknown): unknown {
  switch (typeof v) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return null;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'object': {
      if (v === null || Array.isArray(v)) return v;
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      return typeof toJSON === 'function' ? asJsonValue(toJSON.call(v)) : v;
    }
  }
  return v;
}

/** Whether canonicalJson writes an object member with this value (it skips the others). */
function isMember(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

function hasSurrogate(s: string): boolean {
  return /[\ud800-\udfff]/.test(s);
}
