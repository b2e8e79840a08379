import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyJsonPatch,
  escapeJsonPointerToken,
  JsonPatchError,
  type OverrideOperation,
  parseJsonPointer,
} from '../../../src/propagation/json-patch.ts';

const patchError = (message: string) => (err: unknown) => {
  assert.ok(err instanceof JsonPatchError, String(err));
  assert.equal(err.message, message);
  return true;
};

describe('JSON pointers', () => {
  test('parse and unescape', () => {
    assert.deepEqual(parseJsonPointer(''), []);
    assert.deepEqual(parseJsonPointer('/'), ['']);
    assert.deepEqual(parseJsonPointer('/a/b'), ['a', 'b']);
    assert.deepEqual(parseJsonPointer('/metadata/labels/app.kubernetes.io~1name'), [
      'metadata',
      'labels',
      'app.kubernetes.io/name',
    ]);
    // RFC 6901 unescapes ~1 before ~0, so ~01 is the literal "~1".
    assert.deepEqual(parseJsonPointer('/a~01b/~0'), ['a~1b', '~']);
  });

  test('invalid pointers', () => {
    assert.throws(() => parseJsonPointer('a/b'), JsonPatchError);
    assert.throws(() => parseJsonPointer('/a~2'), JsonPatchError);
    assert.throws(() => parseJsonPointer('/a~'), JsonPatchError);
  });

  test('escape', () => {
    assert.equal(escapeJsonPointerToken('a/b~c'), 'a~1b~0c');
    assert.deepEqual(parseJsonPointer(`/${escapeJsonPointerToken('a/b~c')}`), ['a/b~c']);
  });
});

describe('applyJsonPatch objects', () => {
  const doc = { spec: { replicas: 3, data: { A: '1', B: '2' } }, metadata: { name: 'x' } };

  test('replace, add, remove in order', () => {
    const out = applyJsonPatch(doc, [
      { op: 'replace', path: '/spec/replicas', value: 5 },
      { op: 'add', path: '/metadata/annotations', value: { foo: 'bar' } },
      { op: 'add', path: '/metadata/annotations/baz', value: 'qux' },
      { op: 'remove', path: '/metadata/annotations/foo' },
    ]);
    assert.deepEqual(out, {
      spec: { replicas: 5, data: { A: '1', B: '2' } },
      metadata: { name: 'x', annotations: { baz: 'qux' } },
    });
  });

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

  test('no ops returns an equal copy', () => {
    const out = applyJsonPatch(doc, []);
    assert.deepEqual(out, doc);
    assert.notEqual(out, doc);
  });

  test('replacing a map replaces it whole, null members included', () => {
    const out = applyJsonPatch(doc, [{ op: 'replace', path: '/spec/data', value: { A: null } }]);
    assert.deepEqual(out.spec.data, { A: null });
  });

  test('add on an existing member replaces it', () => {
    assert.equal(applyJsonPatch(doc, [{ op: 'add', path: '/spec/replicas', value: 7 }]).spec.replicas, 7);
  });

  test('escaped keys', () => {
    const out = applyJsonPatch({ metadata: { labels: {} } }, [
      { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      { op: 'add', path: '/metadata/labels/a~0b', value: 'tilde' },
    ]);
    assert.deepEqual(out.metadata.labels, { 'app.kubernetes.io/name': 'web', 'a~b': 'tilde' });
  });

  test('the empty key', () => {
    assert.deepEqual(applyJsonPatch({}, [{ op: 'add', path: '/', value: 1 }]), { '': 1 });
  });

  test('null and falsy values are values', () => {
    const out = applyJsonPatch({ a: 1 }, [
      { op: 'replace', path: '/a', value: null },
      { op: 'add', path: '/b', value: 0 },
      { op: 'add', path: '/c', value: '' },
      { op: 'add', path: '/d', value: false },
    ]);
    assert.deepEqual(out, { a: null, b: 0, c: '', d: false });
  });

  test('root replace and add replace the document', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }]), { b: 2 });
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: [1] }]), [1]);
  });

  test('errors', () => {
    const cases: [OverrideOperation, string][] = [
      [
        { op: 'replace', path: '/spec/x', value: 1 },
        'replace operation does not apply: doc is missing path: /spec/x',
      ],
      [{ op: 'remove', path: '/spec/x' }, 'remove operation does not apply: doc is missing path: /spec/x'],
      [
        { op: 'add', path: '/nope/x', value: 1 },
        'add operation does not apply: doc is missing path: /nope/x',
      ],
      [
        { op: 'add', path: '/spec/replicas/x', value: 1 },
        'add operation does not apply: doc is missing path: /spec/replicas/x',
      ],
      [
        { op: 'replace', path: '/metadata/name/x', value: 1 },
        'replace operation does not apply: doc is missing path: /metadata/name/x',
      ],
      [{ op: 'remove', path: '' }, 'remove operation does not apply: cannot remove the whole document'],
      [
        { op: 'replace', path: 'spec', value: 1 },
        'replace operation does not apply: invalid JSON pointer "spec"',
      ],
      [{ op: 'add', path: '/spec/y' }, 'add operation does not apply: missing value for path: /spec/y'],
      [
        { op: 'move', path: '/spec/y' } as unknown as OverrideOperation,
        'unsupported operation "move" for path: /spec/y',
      ],
    ];
    for (const [op, message] of cases)
      assert.throws(() => applyJsonPatch(doc, [op]), patchError(message), message);
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
    assert.throws(() => applyJsonPatch({}, [{ op: 'replace', path: '/toString', value: 1 }]), JsonPatchError);
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'add', path: '/constructor/x', value: 1 }]),
      JsonPatchError,
    );
  });

  test('__proto__ is plain data and never reaches a prototype', () => {
    const out = applyJsonPatch({ a: {} } as Record<string, unknown>, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
      { op: 'add', path: '/a/__proto__', value: { polluted: true } },
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

describe('applyJsonPatch arrays', () => {
  const doc = { args: ['a', 'b', 'c'] };
  const args = (ops: OverrideOperation[]): unknown => applyJsonPatch(doc, ops).args;

  test('add inserts at an index, shifting the rest', () => {
    assert.deepEqual(args([{ op: 'add', path: '/args/0', value: 'x' }]), ['x', 'a', 'b', 'c']);
    assert.deepEqual(args([{ op: 'add', path: '/args/1', value: 'x' }]), ['a', 'x', 'b', 'c']);
  });

  test('add at the length appends; "-" appends', () => {
    assert.deepEqual(args([{ op: 'add', path: '/args/3', value: 'x' }]), ['a', 'b', 'c', 'x']);
    assert.deepEqual(args([{ op: 'add', path: '/args/-', value: 'x' }]), ['a', 'b', 'c', 'x']);
  });

  test('add with a negative index counts from one past the end: -1 appends', () => {
    assert.deepEqual(args([{ op: 'add', path: '/args/-1', value: 'x' }]), ['a', 'b', 'c', 'x']);
    assert.deepEqual(args([{ op: 'add', path: '/args/-2', value: 'x' }]), ['a', 'b', 'x', 'c']);
    assert.deepEqual(args([{ op: 'add', path: '/args/-4', value: 'x' }]), ['x', 'a', 'b', 'c']);
  });

  test('replace and remove with negative indexes: -1 is the last element', () => {
    assert.deepEqual(args([{ op: 'replace', path: '/args/-1', value: 'x' }]), ['a', 'b', 'x']);
    assert.deepEqual(args([{ op: 'replace', path: '/args/-3', value: 'x' }]), ['x', 'b', 'c']);
    assert.deepEqual(args([{ op: 'remove', path: '/args/-1' }]), ['a', 'b']);
    assert.deepEqual(args([{ op: 'remove', path: '/args/0' }]), ['b', 'c']);
  });

  test('add on the array member replaces the whole array (KubeFed #1224)', () => {
    assert.deepEqual(args([{ op: 'add', path: '/args', value: ['z'] }]), ['z']);
  });

  test('negative indexes while traversing', () => {
    const out = applyJsonPatch({ c: [{ image: 'a' }, { image: 'b' }] }, [
      { op: 'replace', path: '/c/-1/image', value: 'x' },
    ]);
    assert.deepEqual(out.c, [{ image: 'a' }, { image: 'x' }]);
  });

  test('out of range and malformed indexes', () => {
    const cases: [OverrideOperation, string][] = [
      [
        { op: 'add', path: '/args/4', value: 'x' },
        'add operation does not apply: array index 4 out of range in path: /args/4',
      ],
      [
        { op: 'add', path: '/args/-5', value: 'x' },
        'add operation does not apply: array index -5 out of range in path: /args/-5',
      ],
      [
        { op: 'replace', path: '/args/3', value: 'x' },
        'replace operation does not apply: array index 3 out of range in path: /args/3',
      ],
      [
        { op: 'replace', path: '/args/-4', value: 'x' },
        'replace operation does not apply: array index -4 out of range in path: /args/-4',
      ],
      [
        { op: 'remove', path: '/args/3' },
        'remove operation does not apply: array index 3 out of range in path: /args/3',
      ],
      [
        { op: 'remove', path: '/args/-' },
        'remove operation does not apply: invalid array index "-" in path: /args/-',
      ],
      [
        { op: 'replace', path: '/args/01', value: 'x' },
        'replace operation does not apply: invalid array index "01" in path: /args/01',
      ],
      [
        { op: 'add', path: '/args/x', value: 'x' },
        'add operation does not apply: invalid array index "x" in path: /args/x',
      ],
      [
        { op: 'add', path: '/args/1.0', value: 'x' },
        'add operation does not apply: invalid array index "1.0" in path: /args/1.0',
      ],
      [
        { op: 'add', path: '/args/-0', value: 'x' },
        'add operation does not apply: invalid array index "-0" in path: /args/-0',
      ],
      [
        { op: 'add', path: '/args/+1', value: 'x' },
        'add operation does not apply: invalid array index "+1" in path: /args/+1',
      ],
      [
        { op: 'add', path: '/args/5/x', value: 'x' },
        'add operation does not apply: array index 5 out of range in path: /args/5/x',
      ],
    ];
    for (const [op, message] of cases)
      assert.throws(() => applyJsonPatch(doc, [op]), patchError(message), message);
  });

  test('an empty array', () => {
    assert.deepEqual(applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/0', value: 1 }]).a, [1]);
    assert.deepEqual(applyJsonPatch({ a: [] }, [{ op: 'add', path: '/a/-1', value: 1 }]).a, [1]);
    assert.throws(() => applyJsonPatch({ a: [] }, [{ op: 'remove', path: '/a/-1' }]), JsonPatchError);
  });
});
