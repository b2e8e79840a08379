import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  canonicalJson,
  compareCodePoints,
  deepCopy,
  isPlainObject,
  jsonEqual,
  setOwn,
} from '../../../src/propagation/json.ts';

describe('json helpers', () => {
  test('isPlainObject', () => {
    assert.equal(isPlainObject({}), true);
    assert.equal(isPlainObject([]), false);
    assert.equal(isPlainObject(null), false);
    assert.equal(isPlainObject('x'), false);
  });

  test('deepCopy copies nested data', () => {
    const src = { a: [{ b: 1 }], c: { d: null } };
    const copy = deepCopy(src);
    assert.deepEqual(copy, src);
    copy.a[0]!.b = 2;
    assert.equal(src.a[0]!.b, 1);
  });

  test('deepCopy keeps an own __proto__ key as data', () => {
    const src = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = deepCopy(src);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.ok(Object.hasOwn(copy, '__proto__'));
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
  });

  test('compareCodePoints is UTF-8 byte order', () => {
    const keys = ['\u{1f600}', '\uffff', 'b', 'B', 'a', 'ab', ''];
    assert.deepEqual([...keys].sort(compareCodePoints), ['', 'B', 'a', 'ab', 'b', '\uffff', '\u{1f600}']);
    const bytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    assert.deepEqual([...keys].sort(compareCodePoints), bytes);
  });

  test('jsonEqual ignores key order and undefined members', () => {
    assert.equal(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1, c: undefined }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: '1' }), false);
    assert.equal(jsonEqual([1, 2], [2, 1]), false);
  });

  test('jsonEqual is exactly equality of canonicalJson, on 20,000 generated pairs of tricky values', () => {
    // A seeded generator (mulberry32), so a failure names a reproducible case.
    let seed = 18;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    // Leaves that print alike though they differ (NaN and null, -0 and 0, 1 and 1n, two lone surrogates)
    // and members canonicalJson skips (undefined, functions, symbols).
    const leaves: readonly (() => unknown)[] = [
      () => undefined,
      () => null,
      () => Number.NaN,
      () => Number.POSITIVE_INFINITY,
      () => -0,
      () => 0,
      () => 1,
      () => 1n,
      () => 1.5,
      () => '1',
      () => '',
      () => 'null',
      () => '\ud800',
      () => '\ud801',
      () => '\ufffd',
      () => '\u{1f600}',
      () => '<',
      () => true,
      () => false,
      () => () => 1,
      () => Symbol('s'),
      () => new Date(0),
      () => ({ toJSON: () => 1 }),
      () => ({ toJSON: () => undefined }),
    ];
    const keys = ['a', 'b', '__proto__', '\ud800', '\ud801', '\ufffd'];
    const value = (depth: number): unknown => {
      const r = random();
      if (depth === 0 || r < 0.5) return pick(leaves)();
      if (r < 0.7) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth - 1));
      const obj: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 4); i > 0; i--) setOwn(obj, pick(keys), value(depth - 1));
      return obj;
    };
    // A copy with at most one change deep inside: equal pairs and near misses, not only strangers.
    const mutate = (v: unknown, depth: number): unknown => {
      if (random() < 0.3 || depth === 0) return random() < 0.5 ? v : value(1);
      if (Array.isArray(v)) return v.map((x) => (random() < 0.5 ? mutate(x, depth - 1) : x));
      if (isPlainObject(v) && Object.getPrototypeOf(v) === Object.prototype) {
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v).reverse())
          setOwn(out, k, random() < 0.5 ? mutate(v[k], depth - 1) : v[k]);
        if (random() < 0.2) setOwn(out, pick(keys), value(1));
        return out;
      }
      return random() < 0.5 ? v : value(1);
    };
    let equalPairs = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = value(3);
      const b = random() < 0.7 ? mutate(a, 3) : value(3);
      const expected = canonicalJson(a) === canonicalJson(b);
      if (expected) equalPairs++;
      assert.equal(jsonEqual(a, b), expected, `pair ${i}: ${canonicalJson(a)} vs ${canonicalJson(b)}`);
      assert.equal(jsonEqual(b, a), expected, `pair ${i} reversed`);
    }
    // Both outcomes well represented, so the comparison above means something.
    assert.ok(equalPairs > 4000 && equalPairs < 16_000, `equal pairs: ${equalPairs}`);
  });
});
