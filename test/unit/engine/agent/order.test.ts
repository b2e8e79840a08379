import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyOrder, kindRank, UNKNOWN_KIND_RANK } from '../../../../src/engine/agent/order.ts';

describe('kindRank (ocm#1500)', () => {
  test('ranks the groups of kinds', () => {
    assert.equal(kindRank('', 'Namespace'), 0);
    assert.equal(kindRank('apiextensions.k8s.io', 'CustomResourceDefinition'), 0);
    assert.equal(kindRank('rbac.authorization.k8s.io', 'RoleBinding'), 1);
    assert.equal(kindRank('', 'ServiceAccount'), 2);
    assert.equal(kindRank('', 'ConfigMap'), 3);
    assert.equal(kindRank('', 'Service'), 4);
    assert.equal(kindRank('apps', 'Deployment'), 5);
    assert.equal(kindRank('admissionregistration.k8s.io', 'ValidatingWebhookConfiguration'), 6);
    assert.equal(kindRank('example.com', 'Widget'), UNKNOWN_KIND_RANK);
    assert.equal(kindRank('', 'toString'), UNKNOWN_KIND_RANK);
  });
});

describe('applyOrder', () => {
  test('sorts by rank, keeping the spec order within a rank', () => {
    const items = [
      { ordinal: 0, group: 'apps', kind: 'Deployment' },
      { ordinal: 1, group: 'example.com', kind: 'Widget' },
      { ordinal: 2, group: '', kind: 'ConfigMap' },
      { ordinal: 3, group: '', kind: 'Namespace' },
      { ordinal: 4, group: '', kind: 'Secret' },
      { ordinal: 5, group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
    ];
    assert.deepEqual(
      applyOrder(items).map((i) => i.ordinal),
      [3, 5, 2, 4, 0, 1],
    );
    assert.deepEqual(
      items.map((i) => i.ordinal),
      [0, 1, 2, 3, 4, 5],
      'the input is not reordered',
    );
  });
});
