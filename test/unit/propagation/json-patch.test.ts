import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyJsonPatch,
  decodePointerToken,
  escapeJsonPointerToken,
  JsonPatchError,
  type OverrideOperation,
} from '../../../src/propagation/json-patch.ts';
import { operationsFromRaw } from '../../../src/testing/json-patch-operations.ts';

const patchError = (message: string) => (err: unknown) => {
  assert.ok(err instanceof JsonPatchError, String(err));
  assert.equal(err.message, message);
  return true;
};

const apply = (doc: string, patch: string): unknown =>
  applyJsonPatch(JSON.parse(doc), operationsFromRaw(JSON.parse(patch)));

// evanphx/json-patch v4.12.0 patch_test.go, `Cases` (the first, an empty document, is a no-op there and has no
// JSON value here). The library's compareJSON decodes both sides into a map, so for its three cases on an array
// document it compares nothing; their results here are what its code produces (add at an index inserts, add on
// a member replaces it). With KubeFed's AccumulatedCopySizeLimit of 0 there is no copy limit, so the table's
// limit-exceeding BadCase is left out.
const CASES: [doc: string, patch: string, result: string][] = [
  ['{ "foo": "bar"}', '[{ "op": "add", "path": "/baz", "value": "qux" }]', '{"baz": "qux", "foo": "bar"}'],
  [
    '{ "foo": [ "bar", "baz" ] }',
    '[{ "op": "add", "path": "/foo/1", "value": "qux" }]',
    '{ "foo": [ "bar", "qux", "baz" ] }',
  ],
  [
    '{ "foo": [ "bar", "baz" ] }',
    '[{ "op": "add", "path": "/foo/-1", "value": "qux" }]',
    '{ "foo": [ "bar", "baz", "qux" ] }',
  ],
  ['{ "baz": "qux", "foo": "bar" }', '[ { "op": "remove", "path": "/baz" } ]', '{ "foo": "bar" }'],
  [
    '{ "foo": [ "bar", "qux", "baz" ] }',
    '[ { "op": "remove", "path": "/foo/1" } ]',
    '{ "foo": [ "bar", "baz" ] }',
  ],
  [
    '{ "baz": "qux", "foo": "bar" }',
    '[ { "op": "replace", "path": "/baz", "value": "boo" } ]',
    '{ "baz": "boo", "foo": "bar" }',
  ],
  [
    '{"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}',
    '[ { "op": "move", "from": "/foo/waldo", "path": "/qux/thud" } ]',
    '{"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}',
  ],
  [
    '{ "foo": [ "all", "grass", "cows", "eat" ] }',
    '[ { "op": "move", "from": "/foo/1", "path": "/foo/3" } ]',
    '{ "foo": [ "all", "cows", "eat", "grass" ] }',
  ],
  [
    '{ "foo": [ "all", "grass", "cows", "eat" ] }',
    '[ { "op": "move", "from": "/foo/1", "path": "/foo/2" } ]',
    '{ "foo": [ "all", "cows", "grass", "eat" ] }',
  ],
  [
    '{ "foo": "bar" }',
    '[ { "op": "add", "path": "/child", "value": { "grandchild": { } } } ]',
    '{ "foo": "bar", "child": { "grandchild": { } } }',
  ],
  [
    '{ "foo": ["bar"] }',
    '[ { "op": "add", "path": "/foo/-", "value": ["abc", "def"] } ]',
    '{ "foo": ["bar", ["abc", "def"]] }',
  ],
  [
    '{ "foo": "bar", "qux": { "baz": 1, "bar": null } }',
    '[ { "op": "remove", "path": "/qux/bar" } ]',
    '{ "foo": "bar", "qux": { "baz": 1 } }',
  ],
  ['{ "foo": "bar" }', '[ { "op": "add", "path": "/baz", "value": null } ]', '{ "baz": null, "foo": "bar" }'],
  ['{ "foo": ["bar"]}', '[ { "op": "replace", "path": "/foo/0", "value": "baz"}]', '{ "foo": ["baz"]}'],
  [
    '{ "foo": ["bar","baz"]}',
    '[ { "op": "replace", "path": "/foo/0", "value": "bum"}]',
    '{ "foo": ["bum","baz"]}',
  ],
  [
    '{ "foo": ["bar","qux","baz"]}',
    '[ { "op": "replace", "path": "/foo/1", "value": "bum"}]',
    '{ "foo": ["bar", "bum","baz"]}',
  ],
  [
    '[ {"foo": ["bar","qux","baz"]}]',
    '[ { "op": "replace", "path": "/0/foo/0", "value": "bum"}]',
    '[ {"foo": ["bum","qux","baz"]}]',
  ],
  [
    '[ {"foo": ["bar","qux","baz"], "bar": ["qux","baz"]}]',
    '[ { "op": "copy", "from": "/0/foo/0", "path": "/0/bar/0"}]',
    '[ {"foo": ["bar","qux","baz"], "bar": ["bar", "qux", "baz"]}]',
  ],
  [
    '[ {"foo": ["bar","qux","baz"], "bar": ["qux","baz"]}]',
    '[ { "op": "copy", "from": "/0/foo/0", "path": "/0/bar"}]',
    '[ {"foo": ["bar","qux","baz"], "bar": "bar"}]',
  ],
  [
    '[ { "foo": {"bar": ["qux","baz"]}, "baz": {"qux": "bum"}}]',
    '[ { "op": "copy", "from": "/0/foo/bar", "path": "/0/baz/bar"}]',
    '[ { "baz": {"bar": ["qux","baz"], "qux":"bum"}, "foo": {"bar": ["qux","baz"]}}]',
  ],
  ['{ "foo": ["bar"]}', '[{"op": "copy", "path": "/foo/0", "from": "/foo"}]', '{ "foo": [["bar"], "bar"]}'],
  ['{ "foo": ["bar","qux","baz"]}', '[ { "op": "remove", "path": "/foo/-2"}]', '{ "foo": ["bar", "baz"]}'],
  ['{ "foo": []}', '[ { "op": "add", "path": "/foo/-1", "value": "qux"}]', '{ "foo": ["qux"]}'],
  [
    '{ "bar": [{"baz": null}]}',
    '[ { "op": "replace", "path": "/bar/0/baz", "value": 1 } ]',
    '{ "bar": [{"baz": 1}]}',
  ],
  [
    '{ "bar": [{"baz": 1}]}',
    '[ { "op": "replace", "path": "/bar/0/baz", "value": null } ]',
    '{ "bar": [{"baz": null}]}',
  ],
  ['{ "bar": [null]}', '[ { "op": "replace", "path": "/bar/0", "value": 1 } ]', '{ "bar": [1]}'],
  ['{ "bar": [1]}', '[ { "op": "replace", "path": "/bar/0", "value": null } ]', '{ "bar": [null]}'],
  [
    `{ "foo": ["A", "${'A'.repeat(48)}"] }`,
    '[ { "op": "copy", "path": "/foo/-", "from": "/foo/1" }, { "op": "copy", "path": "/foo/-", "from": "/foo/1" }]',
    `{ "foo": ["A", "${'A'.repeat(48)}", "${'A'.repeat(48)}", "${'A'.repeat(48)}"] }`,
  ],
  [
    '{"id": "00000000-0000-0000-0000-000000000000", "parentID": "00000000-0000-0000-0000-000000000000"}',
    `[{"op": "test", "path": "", "value": {"id": "00000000-0000-0000-0000-000000000000", "parentID": "00000000-0000-0000-0000-000000000000"}},
      {"op": "replace", "path": "", "value": {"id": "759981e8-ec68-4639-a83e-513225914ecb", "originalID": "bar", "parentID": "00000000-0000-0000-0000-000000000000"}}]`,
    '{"id": "759981e8-ec68-4639-a83e-513225914ecb", "originalID": "bar", "parentID": "00000000-0000-0000-0000-000000000000"}',
  ],
];

// patch_test.go `BadCases`, each with the library's error message.
const BAD_CASES: [doc: string, patch: string, message: string][] = [
  [
    '{ "foo": "bar" }',
    '[ { "op": "add", "path": "/baz/bat", "value": "qux" } ]',
    'add operation does not apply: doc is missing path: "/baz/bat": missing value',
  ],
  [
    '{ "a": { "b": { "d": 1 } } }',
    '[ { "op": "remove", "path": "/a/b/c" } ]',
    "error in remove for path: '/a/b/c': Unable to remove nonexistent key: c: missing value",
  ],
  [
    '{ "a": { "b": { "d": 1 } } }',
    '[ { "op": "move", "from": "/a/b/c", "path": "/a/b/e" } ]',
    "error in move for path: 'c': Unable to remove nonexistent key: c: missing value",
  ],
  [
    '{ "a": { "b": [1] } }',
    '[ { "op": "remove", "path": "/a/b/1" } ]',
    "error in remove for path: '/a/b/1': Unable to access invalid index: 1: invalid index referenced",
  ],
  [
    '{ "a": { "b": [1] } }',
    '[ { "op": "move", "from": "/a/b/1", "path": "/a/b/2" } ]',
    "error in move for path: '1': Unable to access invalid index: 1: invalid index referenced",
  ],
  [
    '{ "foo": "bar" }',
    '[ { "op": "add", "pathz": "/baz", "value": "qux" } ]',
    'add operation failed to decode path: missing value',
  ],
  [
    '{ "foo": "bar" }',
    '[ { "op": "add", "path": "", "value": "qux" } ]',
    'add operation does not apply: doc is missing path: "": missing value',
  ],
  [
    '{ "foo": ["bar","baz"]}',
    '[ { "op": "replace", "path": "/foo/2", "value": "bum"}]',
    'replace operation does not apply: doc is missing key: /foo/2: missing value',
  ],
  [
    '{ "foo": ["bar","baz"]}',
    '[ { "op": "add", "path": "/foo/-4", "value": "bum"}]',
    "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced",
  ],
  [
    '{ "name":{ "foo": "bat", "qux": "bum"}}',
    '[ { "op": "replace", "path": "/foo/bar", "value":"baz"}]',
    'replace operation does not apply: doc is missing path: /foo/bar: missing value',
  ],
  [
    '{ "foo": ["bar"]}',
    '[ {"op": "add", "path": "/foo/2", "value": "bum"}]',
    "error in add for path: '/foo/2': Unable to access invalid index: 2: invalid index referenced",
  ],
  [
    '{ "foo": []}',
    '[ {"op": "remove", "path": "/foo/-"}]',
    `error in remove for path: '/foo/-': strconv.Atoi: parsing "-": invalid syntax`,
  ],
  [
    '{ "foo": []}',
    '[ {"op": "remove", "path": "/foo/-1"}]',
    "error in remove for path: '/foo/-1': Unable to access invalid index: -1: invalid index referenced",
  ],
  [
    '{ "foo": ["bar"]}',
    '[ {"op": "remove", "path": "/foo/-2"}]',
    "error in remove for path: '/foo/-2': Unable to access invalid index: -2: invalid index referenced",
  ],
  ['{}', '[ {"op":null,"path":""} ]', 'Unexpected kind: unknown'],
  ['{}', '[ {"op":"add","path":null} ]', 'add operation failed to decode path: missing value'],
  [
    '{}',
    '[ { "op": "copy", "from": null }]',
    'copy operation failed to decode from: operation, missing from field: missing value',
  ],
  [
    '{ "foo": ["bar"]}',
    '[{"op": "copy", "path": "/foo/6666666666", "from": "/"}]',
    'error while adding value during copy: Unable to access invalid index: 6666666666: invalid index referenced',
  ],
  [
    '{ "foo": ["bar"]}',
    '[{"op": "copy", "path": "/foo/2", "from": "/foo/0"}]',
    'error while adding value during copy: Unable to access invalid index: 2: invalid index referenced',
  ],
  [
    '{ "foo": [ "all", "grass", "cows", "eat" ] }',
    '[ { "op": "move", "from": "/foo/1", "path": "/foo/4" } ]',
    "error in move for path: '/foo/4': Unable to access invalid index: 4: invalid index referenced",
  ],
];

// patch_test.go `TestCases`: the test op; a failure names the path.
const TEST_CASES: [doc: string, patch: string, failedPath: string | undefined][] = [
  [
    '{"baz": "qux", "foo": [ "a", 2, "c" ]}',
    '[{ "op": "test", "path": "/baz", "value": "qux" }, { "op": "test", "path": "/foo/1", "value": 2 }]',
    undefined,
  ],
  ['{ "baz": "qux" }', '[ { "op": "test", "path": "/baz", "value": "bar" } ]', '/baz'],
  [
    '{"baz": "qux", "foo": ["a", 2, "c"]}',
    '[{ "op": "test", "path": "/baz", "value": "qux" }, { "op": "test", "path": "/foo/1", "value": "c" }]',
    '/foo/1',
  ],
  ['{ "baz": "qux" }', '[ { "op": "test", "path": "/foo", "value": 42 } ]', '/foo'],
  ['{ "baz": "qux" }', '[ { "op": "test", "path": "/foo", "value": null } ]', undefined],
  ['{ "foo": null }', '[ { "op": "test", "path": "/foo", "value": null } ]', undefined],
  ['{ "foo": {} }', '[ { "op": "test", "path": "/foo", "value": null } ]', '/foo'],
  ['{ "foo": [] }', '[ { "op": "test", "path": "/foo", "value": null } ]', '/foo'],
  ['{ "baz/foo": "qux" }', '[ { "op": "test", "path": "/baz~1foo", "value": "qux"} ]', undefined],
  ['{ "foo": [] }', '[ { "op": "test", "path": "/foo"} ]', '/foo'],
];

// patch_test.go `EqualityCases` (lazyNode.equal), checked both ways with a test op.
const EQUALITY_CASES: [a: string, b: string, equal: boolean][] = [
  ['{"foo": "bar"}', '{"foo": "bar", "baz": "qux"}', false],
  ['{"foo": "bar", "baz": "qux"}', '{"baz": "qux", "foo": "bar"}', true],
  ['{"foo": null}', '{"foo": "bar"}', false],
  ['{"foo": null}', '{"foo": null}', true],
  ['["foo", "bar", "baz"]', '["bar", "baz", "foo"]', false],
  ['["foo", "bar", "baz"]', '["foo", "bar", "baz"]', true],
  [
    '{"int": 6, "bool": true, "float": 7.0, "string": "the_string", "null": null}',
    '{"int": 6, "bool": true, "float": 7.0, "string": "the_string", "null": null}',
    true,
  ],
  ['{"foo": ["an", "array"], "bar": {"an": "object"}}', '{"foo": null, "bar": null}', false],
  ['"foo"', 'null', false],
  ['6', 'null', false],
  ['6.01', 'null', false],
  ['false', 'null', false],
];

describe('evanphx/json-patch v4.12.0 test tables', () => {
  test('Cases apply and give the expected document', () => {
    for (const [doc, patch, result] of CASES) assert.deepEqual(apply(doc, patch), JSON.parse(result), patch);
  });

  test('MutationTestCases change the document (a null member is a member)', () => {
    const doc = '{ "foo": "bar", "qux": { "baz": 1, "bar": null } }';
    assert.deepEqual(apply(doc, '[ { "op": "remove", "path": "/qux/bar" } ]'), {
      foo: 'bar',
      qux: { baz: 1 },
    });
    assert.deepEqual(apply(doc, '[ { "op": "replace", "path": "/qux/baz", "value": null } ]'), {
      foo: 'bar',
      qux: { baz: null, bar: null },
    });
  });

  test('BadCases fail with the library message', () => {
    for (const [doc, patch, message] of BAD_CASES)
      assert.throws(() => apply(doc, patch), patchError(message), patch);
  });

  test('TestCases: the test op passes or names the failed path', () => {
    for (const [doc, patch, failedPath] of TEST_CASES) {
      if (failedPath === undefined) assert.doesNotThrow(() => apply(doc, patch), patch);
      else
        assert.throws(
          () => apply(doc, patch),
          patchError(`testing value ${failedPath} failed: test failed`),
          patch,
        );
    }
  });

  test('EqualityCases, both ways', () => {
    for (const [a, b, equal] of EQUALITY_CASES) {
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        const run = () => apply(`{"v": ${x}}`, `[{"op": "test", "path": "/v", "value": ${y}}]`);
        if (equal) assert.doesNotThrow(run, `${x} == ${y}`);
        else assert.throws(run, JsonPatchError, `${x} != ${y}`);
      }
    }
  });

  test('TestAdd: partialArray.add bounds on an empty array', () => {
    assert.deepEqual(applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/0', value: 1 }]).a, [1]);
    assert.deepEqual(applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/-1', value: 1 }]).a, [1]);
    assert.throws(
      () => applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/1', value: 1 }]),
      patchError(
        "error in add for path: '/a/1': Unable to access invalid index: 1: invalid index referenced",
      ),
    );
    assert.throws(
      () => applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/-2', value: 1 }]),
      patchError(
        "error in add for path: '/a/-2': Unable to access invalid index: -2: invalid index referenced",
      ),
    );
  });
});

describe('what KubeFed users meet (v4 departures from RFC 6902)', () => {
  const template = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns' },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'c', image: 'a', args: ['x', 'y'] }] } } },
  };

  test('replace of a missing member of an existing object sets it (labels on a template without labels)', () => {
    const out = applyJsonPatch(template, [
      { op: 'replace', path: '/metadata/labels', value: { tier: 'web' } },
    ]);
    assert.deepEqual(out.metadata, { name: 'web', namespace: 'ns', labels: { tier: 'web' } });
    const deep = applyJsonPatch(template, [{ op: 'replace', path: '/spec/paused', value: true }]);
    assert.equal((deep.spec as Record<string, unknown>).paused, true);
  });

  test('a missing parent still fails, for replace, add and remove', () => {
    assert.throws(
      () => applyJsonPatch({ metadata: {} }, [{ op: 'replace', path: '/spec/replicas', value: 5 }]),
      patchError('replace operation does not apply: doc is missing path: /spec/replicas: missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ metadata: {} }, [{ op: 'add', path: '/spec/replicas', value: 5 }]),
      patchError('add operation does not apply: doc is missing path: "/spec/replicas": missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ metadata: {} }, [{ op: 'remove', path: '/spec/replicas' }]),
      patchError('remove operation does not apply: doc is missing path: "/spec/replicas": missing value'),
    );
  });

  test('remove of a missing key fails', () => {
    assert.throws(
      () => applyJsonPatch(template, [{ op: 'remove', path: '/metadata/labels' }]),
      patchError(
        "error in remove for path: '/metadata/labels': Unable to remove nonexistent key: labels: missing value",
      ),
    );
  });

  test('replace of a missing array element fails; a missing member of an element is set', () => {
    assert.throws(
      () =>
        applyJsonPatch(template, [{ op: 'replace', path: '/spec/template/spec/containers/1', value: {} }]),
      patchError(
        'replace operation does not apply: doc is missing key: /spec/template/spec/containers/1: missing value',
      ),
    );
    assert.throws(
      () =>
        applyJsonPatch(template, [{ op: 'replace', path: '/spec/template/spec/containers/-', value: {} }]),
      patchError(
        'replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value',
      ),
    );
    const out = applyJsonPatch(template, [
      { op: 'replace', path: '/spec/template/spec/containers/0/imagePullPolicy', value: 'Always' },
    ]);
    assert.equal(out.spec.template.spec.containers[0]?.image, 'a');
    assert.equal((out.spec.template.spec.containers[0] as Record<string, unknown>).imagePullPolicy, 'Always');
  });

  test('indexes are strconv.Atoi: sign and leading zeros accepted, -1 is the last element', () => {
    const args = (op: OverrideOperation): unknown => applyJsonPatch({ a: ['x', 'y', 'z'] }, [op]).a;
    assert.deepEqual(args({ op: 'replace', path: '/a/01', value: 'q' }), ['x', 'q', 'z']);
    assert.deepEqual(args({ op: 'replace', path: '/a/+2', value: 'q' }), ['x', 'y', 'q']);
    assert.deepEqual(args({ op: 'replace', path: '/a/-0', value: 'q' }), ['q', 'y', 'z']);
    assert.deepEqual(args({ op: 'replace', path: '/a/-1', value: 'q' }), ['x', 'y', 'q']);
    assert.deepEqual(args({ op: 'remove', path: '/a/-3' }), ['y', 'z']);
    assert.deepEqual(args({ op: 'add', path: '/a/-2', value: 'q' }), ['x', 'y', 'q', 'z']);
    assert.deepEqual(args({ op: 'add', path: '/a/3', value: 'q' }), ['x', 'y', 'z', 'q']);
    assert.deepEqual(args({ op: 'add', path: '/a/-', value: 'q' }), ['x', 'y', 'z', 'q']);
    assert.throws(
      () => args({ op: 'add', path: '/a/1.0', value: 'q' }),
      patchError(
        `error in add for path: '/a/1.0': value was not a proper array index: '1.0': strconv.Atoi: parsing "1.0": invalid syntax`,
      ),
    );
    assert.throws(
      () => args({ op: 'add', path: '/a/99999999999999999999', value: 'q' }),
      patchError(
        `error in add for path: '/a/99999999999999999999': value was not a proper array index: '99999999999999999999': strconv.Atoi: parsing "99999999999999999999": value out of range`,
      ),
    );
    assert.throws(
      () => args({ op: 'replace', path: '/a/-4', value: 'q' }),
      patchError('replace operation does not apply: doc is missing key: /a/-4: missing value'),
    );
  });

  test('traversal: negative indexes, null and scalars are missing', () => {
    const out = applyJsonPatch(template, [
      { op: 'replace', path: '/spec/template/spec/containers/-1/image', value: 'b' },
    ]);
    assert.equal(out.spec.template.spec.containers[0]?.image, 'b');
    assert.throws(
      () => applyJsonPatch({ a: null }, [{ op: 'add', path: '/a/b', value: 1 }]),
      patchError('add operation does not apply: doc is missing path: "/a/b": missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ a: 'str' }, [{ op: 'replace', path: '/a/b', value: 1 }]),
      patchError('replace operation does not apply: doc is missing path: /a/b: missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ a: [1] }, [{ op: 'replace', path: '/a/x/b', value: 1 }]),
      patchError('replace operation does not apply: doc is missing path: /a/x/b: missing value'),
    );
  });

  test('escaping: ~1 then ~0 in one pass, any other ~ kept', () => {
    assert.equal(decodePointerToken('app.kubernetes.io~1name'), 'app.kubernetes.io/name');
    assert.equal(decodePointerToken('a~01b'), 'a~1b');
    assert.equal(decodePointerToken('a~2b~'), 'a~2b~');
    assert.equal(escapeJsonPointerToken('a/b~c'), 'a~1b~0c');
    const out = applyJsonPatch({ metadata: { labels: {} } }, [
      { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      { op: 'add', path: '/metadata/labels/a~0b', value: 'tilde' },
      { op: 'add', path: '/metadata/labels/c~2', value: 'kept' },
    ]);
    assert.deepEqual(out.metadata.labels, { 'app.kubernetes.io/name': 'web', 'a~b': 'tilde', 'c~2': 'kept' });
  });

  test('a path without a leading slash drops its first token', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: 'x/a', value: 2 }]), { a: 2 });
    assert.throws(
      () => applyJsonPatch({ a: 1 }, [{ op: 'replace', path: 'a', value: 2 }]),
      patchError('replace operation does not apply: doc is missing path: a: missing value'),
    );
  });

  test('the whole document: replace with an object or array, otherwise nothing happens', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }]), { b: 2 });
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: 'scalar' }]), { a: 1 });
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: null }]), { a: 1 });
    assert.throws(
      () => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '' }]),
      patchError('remove operation does not apply: doc is missing path: "": missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '', value: { a: 2 } }]),
      patchError('testing value  failed: test failed'),
    );
  });

  test('no value is null: add and replace set null', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/a' }]), { a: null });
    assert.deepEqual(applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/0' }]), { a: [null, 1] });
    assert.deepEqual(applyJsonPatch({}, [{ op: 'add', path: '/b', value: null }]), { b: null });
  });

  test('add on an existing member replaces it, whole arrays included (KubeFed #1224)', () => {
    const out = applyJsonPatch(template, [
      { op: 'add', path: '/spec/template/spec/containers/0/args', value: ['z'] },
    ]);
    assert.deepEqual(out.spec.template.spec.containers[0]?.args, ['z']);
  });

  test('move and copy', () => {
    assert.deepEqual(applyJsonPatch({ a: { b: 1 }, c: {} }, [{ op: 'move', from: '/a/b', path: '/c/d' }]), {
      a: {},
      c: { d: 1 },
    });
    // partialDoc.get of a missing key is nil, which copy adds as null.
    assert.deepEqual(applyJsonPatch({ a: {} }, [{ op: 'copy', from: '/a/x', path: '/a/y' }]), {
      a: { y: null },
    });
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'move', path: '/a' }]),
      patchError('move operation failed to decode from: operation, missing from field: missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/a', path: '/x/y' }]),
      patchError('move operation does not apply: doc is missing destination path: /x/y: missing value'),
    );
    assert.throws(
      () => applyJsonPatch({ a: 1 }, [{ op: 'copy', from: '/x/a', path: '/b' }]),
      patchError('copy operation does not apply: doc is missing from path: /x/a: missing value'),
    );
    const source = { a: { b: [1] } };
    const copied = applyJsonPatch(source, [{ op: 'copy', from: '/a', path: '/c' }]) as Record<
      string,
      unknown
    >;
    assert.notEqual(copied.a, copied.c);
    assert.deepEqual(copied.c, { b: [1] });
  });

  test('unknown and empty ops fail with the library message', () => {
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'merge', path: '/a' }]),
      patchError('Unexpected kind: merge'),
    );
    assert.throws(() => applyJsonPatch({}, [{ op: '', path: '/a' }]), patchError('Unexpected kind: '));
  });
});

describe('applyJsonPatch as a pure function', () => {
  const doc = { spec: { replicas: 3, data: { A: '1', B: '2' } }, metadata: { name: 'x' } };

  test('never mutates the input document nor aliases the values', () => {
    const before = structuredClone(doc);
    const value = { nested: ['v'] };
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/spec/extra', value },
      { op: 'remove', path: '/spec/data/A' },
    ]);
    assert.deepEqual(doc, before);
    (out.spec as Record<string, unknown>).replicas = 9;
    assert.equal(doc.spec.replicas, 3);
    value.nested.push('w');
    assert.deepEqual((out.spec as Record<string, unknown>).extra, { nested: ['v'] });
  });

  test('a failing op leaves the input untouched', () => {
    const before = structuredClone(doc);
    assert.throws(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/spec/replicas', value: 1 },
        { op: 'remove', path: '/missing' },
      ]),
    );
    assert.deepEqual(doc, before);
  });

  test('inherited properties are not members', () => {
    assert.deepEqual(applyJsonPatch({}, [{ op: 'replace', path: '/toString', value: 1 }]), { toString: 1 });
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'add', path: '/constructor/x', value: 1 }]),
      patchError('add operation does not apply: doc is missing path: "/constructor/x": missing value'),
    );
    assert.throws(() => applyJsonPatch({}, [{ op: 'remove', path: '/toString' }]), JsonPatchError);
  });

  test('__proto__ is plain data and never reaches a prototype', () => {
    const out = applyJsonPatch({ a: {} } as Record<string, unknown>, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
      { op: 'add', path: '/a/__proto__', value: { polluted: true } },
      { op: 'replace', path: '/a/__proto__/polluted', value: false },
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: 1 }]),
      JsonPatchError,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
