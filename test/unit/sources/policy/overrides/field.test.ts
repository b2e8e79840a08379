import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  applyFieldOverrider,
  FieldOverrideError,
} from '../../../../../src/sources/policy/overrides/field.ts';

const configMap = (data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg' },
  data,
});

describe('fieldOverrider', () => {
  test('YAML: patched and re-serialised with sorted keys and unindented sequences (sigs.k8s.io/yaml)', () => {
    const obj = configMap({
      'db.yaml': 'database:\n  port: 5432\n  host: localhost\n  replicas:\n    - a\n',
    });
    applyFieldOverrider(obj, {
      fieldPath: '/data/db.yaml',
      yaml: [
        { subPath: '/database/host', operator: 'replace', value: 'db.example.com' },
        { subPath: '/database/replicas/-', operator: 'add', value: 'b' },
        { subPath: '/database/tls', operator: 'add', value: { enabled: true } },
      ],
    });
    assert.equal(
      obj.data['db.yaml'],
      'database:\n  host: db.example.com\n  port: 5432\n  replicas:\n  - a\n  - b\n  tls:\n    enabled: true\n',
    );
  });

  test('YAML 1.1 scalars as go-yaml v2 reads them', () => {
    const obj = configMap({ 'c.yaml': 'enabled: yes\nmode: "yes"\n' });
    applyFieldOverrider(obj, {
      fieldPath: '/data/c.yaml',
      yaml: [{ subPath: '/extra', operator: 'add', value: 1 }],
    });
    assert.equal(obj.data['c.yaml'], 'enabled: true\nextra: 1\nmode: "yes"\n');
  });

  test('JSON: patched and written back compact, members in document order, HTML characters escaped', () => {
    const obj = configMap({ 'app.json': '{\n  "b": 1,\n  "a": {"x": "<y>"}\n}' });
    applyFieldOverrider(obj, {
      fieldPath: '/data/app.json',
      json: [
        { subPath: '/a/x', operator: 'replace', value: '<z>' },
        { subPath: '/c', operator: 'add', value: [1, 2] },
        { subPath: '/b', operator: 'remove' },
      ],
    });
    assert.equal(obj.data['app.json'], '{"a":{"x":"\\u003cz\\u003e"},"c":[1,2]}');
  });

  test('an empty JSON field stays empty; neither json nor yaml writes an empty string (as Karmada)', () => {
    const obj = configMap({ a: '', b: '{"x":1}' });
    applyFieldOverrider(obj, { fieldPath: '/data/a', json: [{ subPath: '/x', operator: 'add', value: 1 }] });
    applyFieldOverrider(obj, { fieldPath: '/data/b' });
    assert.deepEqual(obj.data, { a: '', b: '' });
  });

  test('a JSON array is patched only when the field starts with "[" (json-patch/v5); multi-document YAML fails', () => {
    const obj = configMap({ a: '[1,2]', b: ' [1,2]', y: 'a: 1\n---\nb: 2\n' });
    applyFieldOverrider(obj, { fieldPath: '/data/a', json: [{ subPath: '/0', operator: 'remove' }] });
    assert.equal(obj.data['a'], '[2]');
    assert.throws(
      () => applyFieldOverrider(obj, { fieldPath: '/data/b', json: [{ subPath: '/0', operator: 'remove' }] }),
      /cannot unmarshal array/,
    );
    assert.throws(
      () => applyFieldOverrider(obj, { fieldPath: '/data/y', yaml: [{ subPath: '/a', operator: 'remove' }] }),
      /multiple documents/,
    );
  });

  test('a keyed fieldPath (kubefed-ts)', () => {
    const obj = {
      kind: 'Deployment',
      spec: {
        template: {
          spec: { containers: [{ name: 'app', env: [{ name: 'CFG', value: '{"level":"info"}' }] }] },
        },
      },
    };
    applyFieldOverrider(obj, {
      fieldPath: '/spec/template/spec/containers/[name=app]/env/[name=CFG]/value',
      json: [{ subPath: '/level', operator: 'replace', value: 'debug' }],
    });
    assert.equal(obj.spec.template.spec.containers[0]!.env[0]!.value, '{"level":"debug"}');
  });

  test('errors: missing path, not a string, not JSON, not YAML, a failing operation', () => {
    const obj = () => configMap({ j: '{"a":1}', bad: '{nope', y: 'a: [', n: '5' });
    const fails = (fo: Parameters<typeof applyFieldOverrider>[1], re: RegExp) =>
      assert.throws(
        () => applyFieldOverrider(obj(), fo),
        (e: unknown) => e instanceof Error && re.test(e.message),
      );
    fails(
      { fieldPath: '/data/missing', json: [{ subPath: '/a', operator: 'remove' }] },
      /object has no key "missing"/,
    );
    fails({ fieldPath: '/data', json: [{ subPath: '/a', operator: 'remove' }] }, /is not string/);
    fails(
      { fieldPath: 'data/j', json: [{ subPath: '/a', operator: 'remove' }] },
      /JSON pointer must be empty or start with a "\/"/,
    );
    fails({ fieldPath: '/data/bad', json: [{ subPath: '/a', operator: 'remove' }] }, /invalid JSON/);
    fails({ fieldPath: '/data/n', json: [{ subPath: '/a', operator: 'remove' }] }, /cannot unmarshal number/);
    fails(
      { fieldPath: '/data/y', yaml: [{ subPath: '/a', operator: 'remove' }] },
      /error converting YAML to JSON/,
    );
    fails(
      { fieldPath: '/data/j', json: [{ subPath: '/b', operator: 'replace', value: 2 }] },
      /doc is missing key: \/b/,
    );
    assert.throws(
      () =>
        applyFieldOverrider(obj(), {
          fieldPath: '/data/j',
          json: [{ subPath: '/b', operator: 'replace', value: 2 }],
        }),
      FieldOverrideError,
    );
  });
});
