import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { type Transform, withoutManagedFields } from '../../../src/runtime/informer/index.ts';
import { informerSpecKey } from '../../../src/runtime/informer/shared-informers.ts';

const managed = [
  { manager: 'kubefed-ts', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
];

test('withoutManagedFields leaves out metadata.managedFields and keeps everything else', () => {
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'a',
      namespace: 'ns',
      resourceVersion: '7',
      labels: { x: 'y' },
      managedFields: managed,
    },
    data: { k: 'v' },
  };
  assert.deepEqual(withoutManagedFields(obj), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', labels: { x: 'y' } },
    data: { k: 'v' },
  });
});

test('withoutManagedFields does not change its input, which a writer may still hold', () => {
  const obj: KubeObject = { metadata: { name: 'a', managedFields: managed } };
  const out = withoutManagedFields(obj);
  assert.notEqual(out, obj);
  assert.deepEqual(obj.metadata.managedFields, managed);
  assert.equal('managedFields' in out.metadata, false);
});

test('withoutManagedFields returns an object that has none as it is', () => {
  const obj: KubeObject = { metadata: { name: 'a' }, data: {} };
  assert.equal(withoutManagedFields(obj), obj);
  // A watch ERROR event carries a Status, whose metadata may be missing on the wire.
  const status = { kind: 'Status', code: 410 } as unknown as KubeObject;
  assert.equal(withoutManagedFields(status), status);
});

test('readers of one type share an informer only if they keep the same of each object', () => {
  const type = {
    group: 'work.karmada.io',
    version: 'v1alpha2',
    plural: 'resourcebindings',
    namespaced: true,
  };
  const plain = informerSpecKey({ type, namespace: 'ns' });
  const stripped = informerSpecKey({ type, namespace: 'ns', transform: withoutManagedFields });
  assert.notEqual(plain, stripped);
  assert.equal(stripped, informerSpecKey({ type, namespace: 'ns', transform: withoutManagedFields }));
  // Two different transforms with the same name (here both anonymous) never share an informer.
  const keep: Transform[] = [
    <T extends KubeObject>(o: T): T => o,
    <T extends KubeObject>(o: T): T => ({ ...o }),
  ];
  assert.equal(keep[0]?.name, keep[1]?.name);
  const [a, b] = keep.map((transform) => informerSpecKey({ type, namespace: 'ns', transform }));
  assert.notEqual(a, b);
  assert.notEqual(a, stripped);
});
