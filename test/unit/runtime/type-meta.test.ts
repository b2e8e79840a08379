import assert from 'node:assert/strict';
import { test } from 'node:test';
import { typeMetaOf, withTypeMeta } from '../../../src/runtime/type-meta.ts';

test('the core group has a bare version; other groups group/version', () => {
  assert.deepEqual(
    typeMetaOf({ group: '', version: 'v1', plural: 'namespaces', namespaced: false, kind: 'Namespace' }),
    {
      apiVersion: 'v1',
      kind: 'Namespace',
    },
  );
  assert.deepEqual(
    typeMetaOf({ group: 'types.kubefed.io', version: 'v1beta1', plural: 'x', namespaced: true }, 'X'),
    {
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'X',
    },
  );
});

test('withTypeMeta stamps a copy and leaves the cached object alone', () => {
  const cached = { metadata: { name: 'a' }, spec: { n: 1 } };
  const typed = withTypeMeta(cached, { apiVersion: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(typed, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, spec: { n: 1 } });
  assert.equal('kind' in cached, false);
});
