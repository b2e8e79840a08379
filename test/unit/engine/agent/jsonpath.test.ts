import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findJsonPath, JsonPathError, parseJsonPath } from '../../../../src/engine/agent/jsonpath.ts';

const obj = {
  status: {
    replicas: 3,
    conditions: [
      { type: 'Available', status: 'True', n: 1 },
      { type: 'Progressing', status: 'False', n: 2 },
    ],
    nested: { 'a.b': 'dotted', list: [10, 20, 30] },
  },
};
const find = (p: string) => findJsonPath(obj, parseJsonPath(p));

describe('kubectl JSONPath subset', () => {
  test('fields, braces, bare leading name', () => {
    assert.deepEqual(find('.status.replicas'), [3]);
    assert.deepEqual(find('{.status.replicas}'), [3]);
    assert.deepEqual(find('status.replicas'), [3]);
    assert.deepEqual(find(".status.nested['a.b']"), ['dotted']);
  });
  test('missing keys and out-of-range indexes give nothing (AllowMissingKeys)', () => {
    assert.deepEqual(find('.status.missing.deeper'), []);
    assert.deepEqual(find('.status.nested.list[7]'), []);
    assert.deepEqual(find('.status.replicas.x'), []);
  });
  test('indexes and wildcards', () => {
    assert.deepEqual(find('.status.nested.list[0]'), [10]);
    assert.deepEqual(find('.status.nested.list[-1]'), [30]);
    assert.deepEqual(find('.status.conditions[*].type'), ['Available', 'Progressing']);
  });
  test('filters', () => {
    assert.deepEqual(find('.status.conditions[?(@.type=="Available")].status'), ['True']);
    assert.deepEqual(find(".status.conditions[?(@.type != 'Available')].status"), ['False']);
    assert.deepEqual(find('.status.conditions[?(@.n > 1)].type'), ['Progressing']);
    assert.deepEqual(find('.status.conditions[?(@.n)].n'), [1, 2]);
    assert.deepEqual(find('.status.conditions[?(@.type=="Nope")].status'), []);
  });
  test('unsupported or malformed paths are errors', () => {
    for (const bad of ['.status..replicas', '.status[', '.status[1:2]', '.status[?(@.a==)]', '.status.]']) {
      assert.throws(() => parseJsonPath(bad), JsonPathError, bad);
    }
  });
});
