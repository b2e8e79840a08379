import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_PREFERENCES, preferencesOf, validateRsp } from '../../../src/scheduling/preferences.ts';

const valid = { targetKind: 'FederatedDeployment', totalReplicas: 15 };

describe('validateRsp', () => {
  test('a minimal spec and a full one are valid', () => {
    assert.deepEqual(validateRsp(valid), []);
    assert.deepEqual(
      validateRsp({
        targetKind: 'FederatedReplicaSet',
        totalReplicas: 0,
        rebalance: true,
        intersectWithClusterSelector: false,
        clusters: {
          '*': { weight: 2, maxReplicas: 12 },
          a: { minReplicas: 1, maxReplicas: 3, weight: 1 },
          b: null,
        },
      }),
      [],
    );
  });

  test('min == max is fine', () => {
    assert.deepEqual(validateRsp({ ...valid, clusters: { a: { minReplicas: 3, maxReplicas: 3 } } }), []);
  });

  test('unknown targetKind, including the docs typo FederatedReplicaset', () => {
    for (const kind of ['X', 'FederatedReplicaset', 'Deployment']) {
      assert.deepEqual(validateRsp({ ...valid, targetKind: kind }), [
        `spec.targetKind: Unsupported value: "${kind}": supported values: "FederatedDeployment", "FederatedReplicaSet"`,
      ]);
    }
  });

  test('missing fields', () => {
    assert.deepEqual(validateRsp(undefined), ['spec: Required value']);
    assert.deepEqual(validateRsp({}), [
      'spec.targetKind: Required value',
      'spec.totalReplicas: Required value',
    ]);
  });

  test('totalReplicas negative, fractional, not a number or beyond int32', () => {
    assert.deepEqual(validateRsp({ ...valid, totalReplicas: -1 }), [
      'spec.totalReplicas: Invalid value: -1: must be greater than or equal to 0',
    ]);
    assert.deepEqual(validateRsp({ ...valid, totalReplicas: 1.5 }), [
      'spec.totalReplicas: Invalid value: 1.5: must be an integer',
    ]);
    assert.deepEqual(validateRsp({ ...valid, totalReplicas: '3' }), [
      'spec.totalReplicas: Invalid value: "3": must be an integer',
    ]);
    assert.deepEqual(validateRsp({ ...valid, totalReplicas: 2147483648 }), [
      'spec.totalReplicas: Invalid value: 2147483648: must be less than or equal to 2147483647',
    ]);
  });

  test('per-cluster counts must be non-negative integers', () => {
    assert.deepEqual(
      validateRsp({ ...valid, clusters: { a: { minReplicas: -1, maxReplicas: 2.5, weight: -3 } } }),
      [
        'spec.clusters[a].minReplicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.clusters[a].maxReplicas: Invalid value: 2.5: must be an integer',
        'spec.clusters[a].weight: Invalid value: -3: must be greater than or equal to 0',
      ],
    );
  });

  test('minReplicas > maxReplicas', () => {
    assert.deepEqual(validateRsp({ ...valid, clusters: { c: { minReplicas: 5, maxReplicas: 3 } } }), [
      'spec.clusters[c]: Invalid value: minReplicas 5 > maxReplicas 3',
    ]);
  });

  test('wrong shapes', () => {
    assert.deepEqual(validateRsp({ ...valid, rebalance: 'yes' }), [
      'spec.rebalance: Invalid value: "yes": must be a boolean',
    ]);
    assert.deepEqual(validateRsp({ ...valid, clusters: ['a'] }), [
      'spec.clusters: Invalid value: ["a"]: must be a map of cluster name to preferences',
    ]);
    assert.deepEqual(validateRsp({ ...valid, clusters: { a: 3 } }), [
      'spec.clusters[a]: Invalid value: 3: must be an object',
    ]);
  });

  test('every error is reported, in field order', () => {
    assert.deepEqual(
      validateRsp({
        targetKind: 'Foo',
        totalReplicas: -2,
        clusters: { a: { minReplicas: 5, maxReplicas: 1 } },
      }),
      [
        'spec.targetKind: Unsupported value: "Foo": supported values: "FederatedDeployment", "FederatedReplicaSet"',
        'spec.totalReplicas: Invalid value: -2: must be greater than or equal to 0',
        'spec.clusters[a]: Invalid value: minReplicas 5 > maxReplicas 1',
      ],
    );
  });
});

describe('preferencesOf', () => {
  test('empty or absent clusters mean {"*": {weight: 1}}', () => {
    const expected = { '*': { minReplicas: 0, weight: 1 } };
    assert.deepEqual(preferencesOf(undefined), expected);
    assert.deepEqual(preferencesOf({}), expected);
    assert.deepEqual(preferencesOf({ clusters: {} }), expected);
    assert.deepEqual(preferencesOf({ clusters: null }), expected);
    assert.deepEqual({ ...DEFAULT_PREFERENCES }, expected);
  });

  test('min and weight default to 0, max stays unbounded', () => {
    assert.deepEqual(
      preferencesOf({
        clusters: {
          '*': { weight: 2, maxReplicas: 12 },
          a: { minReplicas: 1, maxReplicas: 3, weight: 1 },
          b: {},
          c: null,
        },
      }),
      {
        '*': { minReplicas: 0, weight: 2, maxReplicas: 12 },
        a: { minReplicas: 1, weight: 1, maxReplicas: 3 },
        b: { minReplicas: 0, weight: 0 },
        c: { minReplicas: 0, weight: 0 },
      },
    );
  });

  test('maxReplicas 0 is kept (a cap of zero, not unbounded)', () => {
    assert.deepEqual(preferencesOf({ clusters: { a: { weight: 1, maxReplicas: 0 } } }), {
      a: { minReplicas: 0, weight: 1, maxReplicas: 0 },
    });
  });
});
