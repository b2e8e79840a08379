import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareCodePoints, deepCopy, isPlainObject, jsonEqual } from '../../../src/propagation/json.ts';

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
});
