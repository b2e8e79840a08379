import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  KeyPathError,
  parseListKey,
  resolveListKeys,
} from '../../../../../src/sources/policy/overrides/key-path.ts';
import { applyPatch, PatchError } from '../../../../../src/sources/policy/overrides/patch.ts';
import {
  applyOperations,
  plaintextOperations,
} from '../../../../../src/sources/policy/overrides/plaintext.ts';

const doc = () => ({
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 1,
    paused: null,
    template: {
      spec: {
        containers: [
          {
            name: 'app',
            image: 'app:1',
            env: [
              { name: 'A', value: '1' },
              { name: 'LOG_LEVEL', value: 'info' },
            ],
          },
          { name: 'side', image: 'side:1', ports: [{ containerPort: 80 }, { containerPort: 443 }] },
        ],
      },
    },
  },
});

describe('applyPatch: RFC 6902 as json-patch/v5 applies it', () => {
  test('add, replace and remove on objects and arrays; the input is untouched', () => {
    const input = doc();
    const out = applyPatch(input, [
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/metadata/labels/tier', value: 'web' },
      { op: 'remove', path: '/metadata/labels/app' },
      { op: 'add', path: '/spec/template/spec/containers/0/env/0', value: { name: 'FIRST', value: '0' } },
      { op: 'add', path: '/spec/template/spec/containers/0/env/-', value: { name: 'LAST', value: '9' } },
      { op: 'remove', path: '/spec/template/spec/containers/1' },
    ]);
    assert.equal(out.spec.replicas, 3);
    assert.deepEqual(out.metadata.labels, { tier: 'web' });
    assert.deepEqual(
      out.spec.template.spec.containers[0]!.env!.map((e) => e.name),
      ['FIRST', 'A', 'LOG_LEVEL', 'LAST'],
    );
    assert.equal(out.spec.template.spec.containers.length, 1);
    assert.deepEqual(input, doc());
  });

  test('replace of a missing member fails (v5; KubeFed’s v4 would set it)', () => {
    assert.throws(
      () => applyPatch(doc(), [{ op: 'replace', path: '/spec/minReadySeconds', value: 5 }]),
      (e: unknown) =>
        e instanceof PatchError &&
        e.message ===
          'replace operation does not apply: doc is missing key: /spec/minReadySeconds: missing value',
    );
    // A member holding null exists.
    assert.equal(applyPatch(doc(), [{ op: 'replace', path: '/spec/paused', value: true }]).spec.paused, true);
  });

  test('missing parents, null parents, bad and out-of-range indexes fail', () => {
    assert.throws(
      () => applyPatch(doc(), [{ op: 'add', path: '/status/x', value: 1 }]),
      /add operation does not apply: doc is missing path: "\/status\/x"/,
    );
    assert.throws(
      () => applyPatch(doc(), [{ op: 'add', path: '/spec/paused/x', value: 1 }]),
      /doc is missing path/,
    );
    assert.throws(
      () => applyPatch(doc(), [{ op: 'remove', path: '/metadata/labels/nope' }]),
      /unable to remove nonexistent key: nope: missing value/,
    );
    assert.throws(
      () => applyPatch(doc(), [{ op: 'remove', path: '/spec/template/spec/containers/5' }]),
      /Unable to access invalid index: 5/,
    );
    assert.throws(
      () => applyPatch(doc(), [{ op: 'add', path: '/spec/template/spec/containers/x', value: {} }]),
      /value was not a proper array index: 'x'/,
    );
    assert.throws(() => applyPatch(doc(), [{ op: 'move', path: '/a' }]), /Unexpected kind: move/);
  });

  test('negative indexes count from the end; add at -1 appends', () => {
    const out = applyPatch(doc(), [
      { op: 'replace', path: '/spec/template/spec/containers/-1/image', value: 'side:2' },
      { op: 'add', path: '/spec/template/spec/containers/0/env/-1', value: { name: 'END' } },
    ]);
    assert.equal(out.spec.template.spec.containers[1]!.image, 'side:2');
    assert.equal(out.spec.template.spec.containers[0]!.env!.at(-1)!.name, 'END');
  });

  test('escaped tokens, an absent value as null, replace of the whole document', () => {
    const out = applyPatch(doc(), [
      { op: 'add', path: '/metadata/labels/example.com~1tier', value: 'a' },
      { op: 'add', path: '/metadata/labels/nothing' },
    ]);
    assert.equal(out.metadata.labels['example.com/tier' as 'app'], 'a');
    assert.equal((out.metadata.labels as Record<string, unknown>)['nothing'], null);
    assert.deepEqual(applyPatch(doc(), [{ op: 'replace', path: '', value: { kind: 'X' } }]), { kind: 'X' });
    assert.deepEqual(applyPatch(doc(), [{ op: 'replace', path: '', value: 5 }]), doc());
  });
});

describe('list keys (kubefed-ts extension)', () => {
  test('parseListKey', () => {
    assert.deepEqual(parseListKey('[name=app]'), { field: 'name', value: 'app' });
    assert.deepEqual(parseListKey('[name=a=b]'), { field: 'name', value: 'a=b' });
    assert.deepEqual(parseListKey('[name=a~1b]'), { field: 'name', value: 'a/b' });
    assert.deepEqual(parseListKey('[name=]'), { field: 'name', value: '' });
    assert.equal(parseListKey('[=app]'), undefined);
    assert.equal(parseListKey('name=app'), undefined);
    assert.equal(parseListKey('0'), undefined);
  });

  test('resolve to indexes, numbers matched by their text', () => {
    assert.deepEqual(
      resolveListKeys(doc(), '/spec/template/spec/containers/[name=app]/env/[name=LOG_LEVEL]/value'),
      {
        path: '/spec/template/spec/containers/0/env/1/value',
      },
    );
    assert.equal(
      resolveListKeys(doc(), '/spec/template/spec/containers/[name=side]/ports/[containerPort=443]').path,
      '/spec/template/spec/containers/1/ports/1',
    );
  });

  test('a keyed token on an object is an ordinary member name, as in Karmada', () => {
    const obj = { data: { '[name=app]': 'x' } };
    assert.deepEqual(applyOperations(obj, [{ op: 'replace', path: '/data/[name=app]', value: 'y' }]), {
      data: { '[name=app]': 'y' },
    });
  });

  test('replace and remove by key', () => {
    const out = applyOperations(
      doc(),
      plaintextOperations([
        {
          path: '/spec/template/spec/containers/[name=app]/env/[name=LOG_LEVEL]/value',
          operator: 'replace',
          value: 'debug',
        },
        { path: '/spec/template/spec/containers/[name=app]/env/[name=A]', operator: 'remove' },
        { path: '/spec/template/spec/containers/[name=side]/image', operator: 'replace', value: 'side:2' },
      ]),
    );
    assert.deepEqual(out.spec.template.spec.containers[0]!.env, [{ name: 'LOG_LEVEL', value: 'debug' }]);
    assert.equal(out.spec.template.spec.containers[1]!.image, 'side:2');
  });

  test('add of a missing keyed entry appends it with the key set; of an existing one replaces it', () => {
    const out = applyOperations(doc(), [
      { op: 'add', path: '/spec/template/spec/containers/[name=app]/env/[name=NEW]', value: { value: 'n' } },
      {
        op: 'add',
        path: '/spec/template/spec/containers/[name=app]/env/[name=A]',
        value: { name: 'A', value: '2' },
      },
    ]);
    assert.deepEqual(out.spec.template.spec.containers[0]!.env, [
      { name: 'A', value: '2' },
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'NEW', value: 'n' },
    ]);
  });

  test('each operation resolves against the document the previous ones left', () => {
    const out = applyOperations(doc(), [
      { op: 'remove', path: '/spec/template/spec/containers/[name=app]/env/[name=A]' },
      {
        op: 'replace',
        path: '/spec/template/spec/containers/[name=app]/env/[name=LOG_LEVEL]/value',
        value: 'warn',
      },
    ]);
    assert.deepEqual(out.spec.template.spec.containers[0]!.env, [{ name: 'LOG_LEVEL', value: 'warn' }]);
  });

  test('errors: missing entries on the way or at the end of remove/replace, bad values for add', () => {
    const base = '/spec/template/spec/containers';
    assert.throws(
      () => applyOperations(doc(), [{ op: 'replace', path: `${base}/[name=nope]/image`, value: 'x' }]),
      (e: unknown) =>
        e instanceof KeyPathError &&
        /no entry of \/spec\/template\/spec\/containers has name=nope/.test(e.message),
    );
    assert.throws(
      () => applyOperations(doc(), [{ op: 'remove', path: `${base}/[name=nope]` }]),
      /remove operation does not apply: doc is missing key/,
    );
    assert.throws(
      () => applyOperations(doc(), [{ op: 'replace', path: `${base}/[name=nope]`, value: {} }]),
      /replace operation does not apply/,
    );
    assert.throws(
      () => applyOperations(doc(), [{ op: 'add', path: `${base}/0/env/[name=X]`, value: 'x' }]),
      /must be an object/,
    );
    assert.throws(
      () => applyOperations(doc(), [{ op: 'add', path: `${base}/0/env/[name=X]`, value: { name: 'Y' } }]),
      /has name="Y"/,
    );
    // A plain index on a list keeps Karmada's error.
    assert.throws(
      () => applyOperations(doc(), [{ op: 'replace', path: `${base}/7/image`, value: 'x' }]),
      PatchError,
    );
  });
});
