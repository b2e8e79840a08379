import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  gracefulEvictCluster,
  normalizedPurgeMode,
} from '../../../../../src/sources/policy/failover/evict.ts';
import { binding, iso } from './fixtures.ts';

const opts = { reason: 'TaintUntolerated', producer: 'TaintManager', purgeMode: 'Gracefully', now: iso(0) };

describe('gracefulEvictCluster (GracefulEvictCluster)', () => {
  test('the cluster leaves spec.clusters and a task keeps its replicas and the clusters before', () => {
    const spec = gracefulEvictCluster(binding().spec, 'c2', opts);
    assert.deepEqual(spec.clusters, [
      { name: 'c1', replicas: 2 },
      { name: 'c3', replicas: 2 },
    ]);
    assert.deepEqual(spec.gracefulEvictionTasks, [
      {
        fromCluster: 'c2',
        purgeMode: 'Gracefully',
        reason: 'TaintUntolerated',
        producer: 'TaintManager',
        creationTimestamp: iso(0),
        clustersBeforeFailover: ['c1', 'c2', 'c3'],
        replicas: 2,
      },
    ]);
  });
  test('a cluster not scheduled changes nothing; an existing task is not duplicated', () => {
    const b = binding();
    assert.equal(gracefulEvictCluster(b.spec, 'c9', opts), b.spec);
    const once = gracefulEvictCluster(b.spec, 'c2', opts);
    const again = gracefulEvictCluster(
      { ...once, clusters: [...(once.clusters ?? []), { name: 'c2', replicas: 1 }] },
      'c2',
      opts,
    );
    assert.equal(again.gracefulEvictionTasks?.length, 1);
    assert.ok(!again.clusters?.some((c) => c.name === 'c2'));
  });
  test('grace period and suppressDeletion are carried; no replicas for a non-workload', () => {
    const spec = gracefulEvictCluster({ ...binding().spec, clusters: [{ name: 'c1' }] }, 'c1', {
      ...opts,
      gracePeriodSeconds: 30,
      suppressDeletion: true,
    });
    const [task] = spec.gracefulEvictionTasks ?? [];
    assert.equal(task?.gracePeriodSeconds, 30);
    assert.equal(task?.suppressDeletion, true);
    assert.equal(task?.replicas, undefined);
  });
  test('deprecated purge modes map to the current ones', () => {
    assert.equal(normalizedPurgeMode('Immediately'), 'Directly');
    assert.equal(normalizedPurgeMode('Graciously'), 'Gracefully');
    assert.equal(normalizedPurgeMode(undefined), 'Gracefully');
    assert.equal(normalizedPurgeMode('Never'), 'Never');
  });
});
