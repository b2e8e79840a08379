import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compileLabelSelector,
  type LabelSelector,
  LabelSelectorError,
} from '../../../src/propagation/label-selector.ts';

const matches = (sel: LabelSelector, labels?: Record<string, string>): boolean =>
  compileLabelSelector(sel)(labels);

describe('compileLabelSelector matching', () => {
  test('the empty selector matches everything, even no labels', () => {
    assert.equal(matches({}, undefined), true);
    assert.equal(matches({}, { a: 'b' }), true);
    assert.equal(matches({ matchLabels: {} }, {}), true);
    assert.equal(matches({ matchLabels: {}, matchExpressions: [] }, { x: 'y' }), true);
  });

  test('matchLabels needs every pair', () => {
    const sel = { matchLabels: { foo: 'bar', env: 'prod' } };
    assert.equal(matches(sel, { foo: 'bar', env: 'prod', other: 'x' }), true);
    assert.equal(matches(sel, { foo: 'bar' }), false);
    assert.equal(matches(sel, { foo: 'bar', env: 'dev' }), false);
    assert.equal(matches(sel, undefined), false);
  });

  test('In', () => {
    const sel = { matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }] };
    assert.equal(matches(sel, { env: 'a' }), true);
    assert.equal(matches(sel, { env: 'b' }), true);
    assert.equal(matches(sel, { env: 'c' }), false);
    assert.equal(matches(sel, {}), false);
  });

  test('NotIn matches when the key is absent', () => {
    const sel = { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['a'] }] };
    assert.equal(matches(sel, { env: 'a' }), false);
    assert.equal(matches(sel, { env: 'b' }), true);
    assert.equal(matches(sel, {}), true);
    assert.equal(matches(sel, undefined), true);
  });

  test('Exists and DoesNotExist', () => {
    const exists = { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] };
    const absent = { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist', values: [] }] };
    assert.equal(matches(exists, { gpu: '' }), true);
    assert.equal(matches(exists, {}), false);
    assert.equal(matches(absent, { gpu: 'x' }), false);
    assert.equal(matches(absent, {}), true);
  });

  test('matchLabels and matchExpressions are ANDed', () => {
    const sel = {
      matchLabels: { region: 'eu' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['edge'] }],
    };
    assert.equal(matches(sel, { region: 'eu' }), true);
    assert.equal(matches(sel, { region: 'eu', tier: 'edge' }), false);
    assert.equal(matches(sel, { region: 'us' }), false);
  });

  test('prefixed keys and empty values are valid', () => {
    assert.equal(matches({ matchLabels: { 'example.com/zone': '' } }, { 'example.com/zone': '' }), true);
    assert.equal(matches({ matchLabels: { 'a.b-c/x_y.z': 'v-1.2_3' } }, { 'a.b-c/x_y.z': 'v-1.2_3' }), true);
  });

  test('a "constructor" key is only matched when really present', () => {
    assert.equal(matches({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, {}), false);
  });
});

describe('compileLabelSelector validation', () => {
  const invalid = (sel: unknown, message: string | RegExp): void => {
    assert.throws(
      () => compileLabelSelector(sel as LabelSelector),
      (err: unknown) => {
        assert.ok(err instanceof LabelSelectorError, String(err));
        if (typeof message === 'string') assert.equal(err.message, message);
        else assert.match(err.message, message);
        return true;
      },
    );
  };

  test('unknown operator', () => {
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'Bad' }] },
      '"Bad" is not a valid label selector operator',
    );
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] },
      '"in" is not a valid label selector operator',
    );
    invalid({ matchExpressions: [{ key: 'a' }] }, '"" is not a valid label selector operator');
  });

  test('In/NotIn need values', () => {
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
  });

  test('Exists/DoesNotExist must have no values', () => {
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x', 'y'] }] },
      'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist',
    );
  });

  test('invalid keys', () => {
    invalid(
      { matchLabels: { 'bad key': 'v' } },
      `key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    invalid(
      { matchLabels: { '': 'v' } },
      /^key: Invalid value: "": name part must be non-empty; name part must consist/,
    );
    invalid({ matchLabels: { [`${'a'.repeat(64)}`]: 'v' } }, /name part must be no more than 63 characters/);
    invalid({ matchLabels: { '/name': 'v' } }, /prefix part must be non-empty/);
    invalid(
      { matchLabels: { 'Example.com/name': 'v' } },
      /prefix part a lowercase RFC 1123 subdomain must consist/,
    );
    invalid(
      { matchLabels: { 'a/b/c': 'v' } },
      /a qualified name must consist of .* with an optional DNS subdomain prefix/,
    );
    invalid(
      { matchExpressions: [{ key: '-a', operator: 'Exists' }] },
      /^key: Invalid value: "-a": name part/,
    );
  });

  test('invalid values', () => {
    invalid(
      { matchLabels: { a: 'bad value' } },
      `values[0][a]: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'x'.repeat(64)] }] },
      /^values\[1\]\[a\]: .*must be no more than 63 characters/,
    );
  });

  test('several problems of one requirement are aggregated', () => {
    invalid(
      { matchExpressions: [{ key: 'bad key', operator: 'In' }] },
      /^\[key: Invalid value: "bad key": .*, values: Invalid value: \[\]string\(nil\)/,
    );
  });

  test('malformed shapes', () => {
    invalid(null, 'a label selector must be an object');
    invalid([], 'a label selector must be an object');
    invalid({ matchLabels: [] }, 'matchLabels must be a map of strings');
    invalid({ matchLabels: { a: 1 } }, 'matchLabels["a"] must be a string');
    invalid({ matchExpressions: {} }, 'matchExpressions must be a list');
    invalid({ matchExpressions: ['x'] }, 'matchExpressions[0] must be an object');
    invalid({ matchExpressions: [{ operator: 'Exists' }] }, 'matchExpressions[0].key must be a string');
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'In', values: 'x' }] },
      'matchExpressions[0].values must be a list of strings',
    );
    invalid(
      { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
      'matchExpressions[0].values must be a list of strings',
    );
  });

  test('null fields count as absent', () => {
    assert.equal(
      compileLabelSelector({ matchLabels: null, matchExpressions: null } as unknown as LabelSelector)({}),
      true,
    );
  });
});
