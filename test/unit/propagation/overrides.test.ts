import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyJsonPatch,
  FORBIDDEN_OVERRIDE_PATHS,
  normalizeOverridePath,
  OverridesError,
  parseOverrides,
} from '../../../src/propagation/overrides.ts';

const overridesError = (message: string) => (err: unknown) => {
  assert.ok(err instanceof OverridesError, String(err));
  assert.equal(err.message, message);
  return true;
};

describe('normalizeOverridePath', () => {
  test('JSON pointers are returned unchanged', () => {
    for (const p of ['/spec/replicas', '/metadata/labels/a~1b', '/', '/spec/containers/-1', '/a.b'])
      assert.equal(normalizeOverridePath(p), p);
  });

  test('dotted shorthand', () => {
    const cases: [string, string][] = [
      ['spec.replicas', '/spec/replicas'],
      ['spec.template.spec.containers.0.image', '/spec/template/spec/containers/0/image'],
      ['spec.template.spec.containers[0].image', '/spec/template/spec/containers/0/image'],
      ['containers[0].image', '/containers/0/image'],
      ['spec.args[-1]', '/spec/args/-1'],
      ['spec.args[-]', '/spec/args/-'],
      ['a[0][1]', '/a/0/1'],
      ['[0].x', '/0/x'],
      ['replicas', '/replicas'],
      ['metadata.labels["app.kubernetes.io/name"]', '/metadata/labels/app.kubernetes.io~1name'],
      ["metadata.annotations['a~b']", '/metadata/annotations/a~0b'],
      ['metadata.labels[example.com/x]', '/metadata/labels/example.com~1x'],
      ['data.with/slash', '/data/with~1slash'],
      ['data.a~b', '/data/a~0b'],
      ['x[""]', '/x/'],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeOverridePath(input), expected, input);
  });

  test('malformed paths', () => {
    const cases: [string, string][] = [
      ['a..b', 'invalid override path "a..b": empty segment at offset 2'],
      ['.a', 'invalid override path ".a": empty segment at offset 0'],
      ['a.', 'invalid override path "a.": empty segment at the end'],
      ['a.[0]', 'invalid override path "a.[0]": empty segment at offset 2'],
      ['a[]', 'invalid override path "a[]": empty index at offset 1'],
      ['a[0', 'invalid override path "a[0": missing "]" after offset 1'],
      ['a["x]', 'invalid override path "a[\\"x]": unterminated quoted key at offset 1'],
      ['a["x"y]', 'invalid override path "a[\\"x\\"y]": unterminated quoted key at offset 1'],
      ['a[0]b', 'invalid override path "a[0]b": expected "." or "[" at offset 4'],
    ];
    for (const [input, message] of cases)
      assert.throws(() => normalizeOverridePath(input), overridesError(message), input);
  });
});

describe('parseOverrides', () => {
  test('undefined and null give an empty map', () => {
    assert.equal(parseOverrides(undefined).size, 0);
    assert.equal(parseOverrides(null).size, 0);
    assert.equal(parseOverrides([]).size, 0);
  });

  test('ops default to replace, paths are normalised, remove drops its value', () => {
    const map = parseOverrides([
      {
        clusterName: 'c1',
        clusterOverrides: [
          { path: '/spec/replicas', value: 5 },
          { op: '', path: 'spec.paused', value: false },
          { op: 'add', path: 'metadata.annotations', value: { a: 'b' } },
          { op: 'remove', path: '/metadata/annotations/a', value: 'ignored' },
        ],
      },
      { clusterName: 'c2' },
      { clusterName: 'c3', clusterOverrides: null },
    ]);
    assert.deepEqual(map.get('c1'), [
      { op: 'replace', path: '/spec/replicas', value: 5 },
      { op: 'replace', path: '/spec/paused', value: false },
      { op: 'add', path: '/metadata/annotations', value: { a: 'b' } },
      { op: 'remove', path: '/metadata/annotations/a' },
    ]);
    assert.deepEqual(map.get('c2'), []);
    assert.deepEqual(map.get('c3'), []);
    assert.deepEqual([...map.keys()], ['c1', 'c2', 'c3']);
  });

  test('falsy values other than null are values', () => {
    const map = parseOverrides([
      {
        clusterName: 'c',
        clusterOverrides: [
          { path: '/a', value: 0 },
          { path: '/b', value: '' },
          { path: '/c', value: false },
          { path: '/d', value: [] },
          { path: '/e', value: {} },
        ],
      },
    ]);
    assert.equal(map.get('c')?.length, 5);
  });

  test('/apiVersion and paths below forbidden ones are allowed', () => {
    const map = parseOverrides([
      {
        clusterName: 'c',
        clusterOverrides: [
          { path: '/apiVersion', value: 'apps/v1beta2' },
          { path: '/metadata/name/x', value: 'y' },
          { path: '/metadata/labels', value: {} },
        ],
      },
    ]);
    assert.equal(map.get('c')?.length, 3);
  });

  test('the forbidden list', () => {
    assert.deepEqual(FORBIDDEN_OVERRIDE_PATHS, [
      '/metadata/namespace',
      '/metadata/name',
      '/metadata/generateName',
      '/kind',
    ]);
  });

  const invalid = (raw: unknown, message: string): void => {
    assert.throws(() => parseOverrides(raw), overridesError(message), message);
  };

  test('an op that is not a string is refused; any string is left to the JSON-patch library, as in KubeFed', () => {
    invalid(
      [{ clusterName: 'c', clusterOverrides: [{ op: 7, path: '/a' }] }],
      'override[0] for cluster "c" has an invalid op: 7',
    );
    const ops = parseOverrides([
      {
        clusterName: 'c',
        clusterOverrides: [
          { op: 'Add', path: '/b', value: 1 },
          { op: 'move', path: '/a' },
        ],
      },
    ]).get('c');
    assert.deepEqual(ops, [
      { op: 'Add', path: '/b', value: 1 },
      { op: 'move', path: '/a', value: null },
    ]);
    // The CRD admits only add, remove and replace; anything else fails where it is applied, for that cluster.
    assert.throws(() => applyJsonPatch({ a: 1 }, ops!.slice(0, 1)), /^JsonPatchError: Unexpected kind: Add$/);
    assert.throws(
      () => applyJsonPatch({ a: 1 }, ops!.slice(1)),
      /move operation failed to decode from: operation, missing from field: missing value/,
    );
  });

  test('duplicate cluster', () => {
    invalid(
      [
        { clusterName: 'c', clusterOverrides: [] },
        { clusterName: 'd', clusterOverrides: [] },
        { clusterName: 'c', clusterOverrides: [] },
      ],
      'cluster "c" appears more than once',
    );
  });

  test('duplicate path, compared after normalisation', () => {
    invalid(
      [
        {
          clusterName: 'c',
          clusterOverrides: [
            { path: '/a', value: 1 },
            { op: 'remove', path: '/a' },
          ],
        },
      ],
      'path "/a" appears more than once for cluster "c"',
    );
    invalid(
      [
        {
          clusterName: 'c',
          clusterOverrides: [
            { path: '/spec/replicas', value: 1 },
            { path: 'spec.replicas', value: 2 },
          ],
        },
      ],
      'path "spec.replicas" appears more than once for cluster "c"',
    );
  });

  test('the same path in two clusters is fine', () => {
    const map = parseOverrides([
      { clusterName: 'a', clusterOverrides: [{ path: '/x', value: 1 }] },
      { clusterName: 'b', clusterOverrides: [{ path: '/x', value: 2 }] },
    ]);
    assert.equal(map.size, 2);
  });

  test('forbidden paths, exact match after normalisation', () => {
    for (const path of FORBIDDEN_OVERRIDE_PATHS)
      invalid(
        [
          {
            clusterName: 'c',
            clusterOverrides: [
              { path: '/ok', value: 1 },
              { path, value: 'x' },
            ],
          },
        ],
        `override[1] for cluster "c" has an invalid path: ${path}`,
      );
    invalid(
      [{ clusterName: 'c', clusterOverrides: [{ path: 'metadata.name', value: 'x' }] }],
      'override[0] for cluster "c" has an invalid path: metadata.name',
    );
    invalid(
      [{ clusterName: 'c', clusterOverrides: [{ op: 'remove', path: 'kind' }] }],
      'override[0] for cluster "c" has an invalid path: kind',
    );
  });

  test('malformed path', () => {
    invalid(
      [{ clusterName: 'c', clusterOverrides: [{ path: 'a..b', value: 1 }] }],
      'override[0] for cluster "c" has an invalid path: invalid override path "a..b": empty segment at offset 2',
    );
  });

  test('"" is the whole object, passed on as KubeFed does', () => {
    assert.deepEqual(
      parseOverrides([{ clusterName: 'c', clusterOverrides: [{ path: '', value: { a: 1 } }] }]).get('c'),
      [{ op: 'replace', path: '', value: { a: 1 } }],
    );
  });

  test('a missing or null value is null (KubeFed serialises value with omitempty)', () => {
    const ops = parseOverrides([
      {
        clusterName: 'c',
        clusterOverrides: [
          { path: '/a' },
          { op: 'add', path: '/b', value: null },
          { op: 'replace', path: 'spec.x', value: null },
        ],
      },
    ]).get('c');
    assert.deepEqual(ops, [
      { op: 'replace', path: '/a', value: null },
      { op: 'add', path: '/b', value: null },
      { op: 'replace', path: '/spec/x', value: null },
    ]);
    assert.deepEqual(applyJsonPatch({ a: 1, spec: { x: 2 } }, ops!), { a: null, b: null, spec: { x: null } });
  });

  test('structural problems name the offending index', () => {
    invalid('x', 'spec.overrides must be a list');
    invalid({}, 'spec.overrides must be a list');
    invalid([{ clusterName: 'a' }, 'x'], 'spec.overrides[1] must be an object');
    invalid([null], 'spec.overrides[0] must be an object');
    invalid([{ clusterOverrides: [] }], 'spec.overrides[0].clusterName must be a string');
    invalid([{ clusterName: 3 }], 'spec.overrides[0].clusterName must be a string');
    invalid(
      [{ clusterName: 'c', clusterOverrides: {} }],
      'spec.overrides[0].clusterOverrides must be a list',
    );
    invalid([{ clusterName: 'c', clusterOverrides: ['x'] }], 'override[0] for cluster "c" must be an object');
    invalid(
      [{ clusterName: 'c', clusterOverrides: [{ value: 1 }] }],
      'override[0] for cluster "c" must have a string path',
    );
    invalid(
      [{ clusterName: 'c', clusterOverrides: [{ path: 5, value: 1 }] }],
      'override[0] for cluster "c" must have a string path',
    );
  });

  test('the first error wins', () => {
    invalid(
      [
        {
          clusterName: 'c',
          clusterOverrides: [
            { path: '/kind', value: 1 },
            { op: 'bad', path: '/a' },
          ],
        },
        { clusterName: 'c' },
      ],
      'override[0] for cluster "c" has an invalid path: /kind',
    );
  });

  test('parsed ops apply as a JSON patch', () => {
    const ops = parseOverrides([
      {
        clusterName: 'c',
        clusterOverrides: [{ path: 'spec.template.spec.containers[0].image', value: 'nginx:2' }],
      },
    ]).get('c')!;
    const doc = { spec: { template: { spec: { containers: [{ name: 'n', image: 'nginx:1' }] } } } };
    assert.equal(applyJsonPatch(doc, ops).spec.template.spec.containers[0]?.image, 'nginx:2');
  });
});
