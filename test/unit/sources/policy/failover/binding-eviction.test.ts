import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fullyApplied, placedClusters } from '../../../../../src/sources/policy/binding-controller.ts';
import { binding } from './fixtures.ts';

const evicting = binding({
  clusters: [
    { name: 'c1', replicas: 3 },
    { name: 'c2', replicas: 3 },
  ],
  gracefulEvictionTasks: [
    { fromCluster: 'c3', replicas: 2, reason: 'TaintUntolerated', producer: 'TaintManager' },
    { fromCluster: 'c1', reason: 'ApplicationFailure', producer: 'x' },
  ],
});

describe('the binding controller during an eviction', () => {
  test('copies stay in the scheduled clusters and in those being evicted, once each', () => {
    assert.deepEqual(placedClusters(evicting), [
      { name: 'c1', replicas: 3 },
      { name: 'c2', replicas: 3 },
      { name: 'c3', replicas: 2 },
    ]);
  });
  test("an evicted cluster's status entry does not count as a scheduled cluster", () => {
    const items = [
      { clusterName: 'c1', applied: true },
      { clusterName: 'c3', applied: true },
    ];
    assert.equal(fullyApplied(evicting.spec.clusters ?? [], items), false, 'c2 has no entry');
    assert.equal(
      fullyApplied(evicting.spec.clusters ?? [], [...items, { clusterName: 'c2', applied: true }]),
      true,
    );
    assert.equal(fullyApplied([], items), false);
  });
});
