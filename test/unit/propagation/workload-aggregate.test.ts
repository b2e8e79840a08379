import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import {
  aggregateWorkloadStatus,
  isWorkloadKind,
  WORKLOAD_KINDS,
} from '../../../src/propagation/workload-aggregate.ts';

const obj = (
  spec: Record<string, unknown> | undefined,
  status: Record<string, unknown> | undefined,
  generation?: number,
): KubeObject => ({
  metadata: generation === undefined ? {} : { generation },
  ...(spec === undefined ? {} : { spec }),
  ...(status === undefined ? {} : { status }),
});

const members = (entries: Record<string, KubeObject | undefined>): Map<string, KubeObject | undefined> =>
  new Map(Object.entries(entries));

describe('workload kinds', () => {
  test('list and predicate', () => {
    assert.deepEqual(WORKLOAD_KINDS, ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']);
    assert.equal(isWorkloadKind('Deployment'), true);
    assert.equal(isWorkloadKind('ConfigMap'), false);
    assert.equal(isWorkloadKind(undefined), false);
  });

  test('non-workload kinds give undefined', () => {
    assert.equal(aggregateWorkloadStatus('ConfigMap', members({ a: obj({}, {}) })), undefined);
    assert.equal(aggregateWorkloadStatus('constructor', members({})), undefined);
    assert.equal(aggregateWorkloadStatus('deployment', members({})), undefined);
  });
});

describe('Deployment', () => {
  const healthy = obj(
    { replicas: 3 },
    { observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 },
    2,
  );

  test('sums and health', () => {
    const agg = aggregateWorkloadStatus(
      'Deployment',
      members({
        a: healthy,
        b: obj(
          { replicas: 2 },
          { observedGeneration: 1, readyReplicas: 2, availableReplicas: 1, updatedReplicas: 2 },
          1,
        ),
        c: undefined,
      }),
    );
    assert.deepEqual(agg, {
      clusters: 3,
      healthyClusters: 1,
      replicas: 5,
      readyReplicas: 5,
      availableReplicas: 4,
      updatedReplicas: 5,
    });
  });

  test('a rollout in progress is not healthy', () => {
    const stale = obj(
      { replicas: 3 },
      { observedGeneration: 1, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 },
      2,
    );
    const notUpdated = obj({ replicas: 3 }, { readyReplicas: 3, availableReplicas: 3, updatedReplicas: 1 });
    assert.equal(aggregateWorkloadStatus('Deployment', members({ stale }))?.healthyClusters, 0);
    assert.equal(aggregateWorkloadStatus('Deployment', members({ notUpdated }))?.healthyClusters, 0);
  });

  test('replicas default to 1; no status means nothing ready', () => {
    assert.deepEqual(aggregateWorkloadStatus('Deployment', members({ a: obj({}, undefined) })), {
      clusters: 1,
      healthyClusters: 0,
      replicas: 1,
      readyReplicas: 0,
      availableReplicas: 0,
      updatedReplicas: 0,
    });
  });

  test('zero replicas is healthy; generation check skipped without observedGeneration', () => {
    assert.equal(
      aggregateWorkloadStatus('Deployment', members({ a: obj({ replicas: 0 }, {}, 4) }))?.healthyClusters,
      1,
    );
  });

  test('no members', () => {
    assert.deepEqual(aggregateWorkloadStatus('Deployment', members({})), {
      clusters: 0,
      healthyClusters: 0,
      replicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      updatedReplicas: 0,
    });
  });

  test('garbage status values count as 0', () => {
    const agg = aggregateWorkloadStatus(
      'Deployment',
      members({ a: obj({ replicas: 1 }, { readyReplicas: 'x', availableReplicas: -1 }) }),
    );
    assert.equal(agg?.readyReplicas, 0);
    assert.equal(agg?.availableReplicas, 0);
    assert.equal(agg?.healthyClusters, 0);
  });
});

describe('ReplicaSet', () => {
  test('ready is enough; no updatedReplicas', () => {
    const agg = aggregateWorkloadStatus(
      'ReplicaSet',
      members({
        a: obj({ replicas: 2 }, { readyReplicas: 2, availableReplicas: 1 }),
        b: obj({ replicas: 2 }, { readyReplicas: 1, availableReplicas: 1 }),
      }),
    );
    assert.deepEqual(agg, {
      clusters: 2,
      healthyClusters: 1,
      replicas: 4,
      readyReplicas: 3,
      availableReplicas: 2,
    });
  });
});

describe('StatefulSet', () => {
  test('availableReplicas may be missing', () => {
    const agg = aggregateWorkloadStatus(
      'StatefulSet',
      members({
        a: obj({ replicas: 2 }, { observedGeneration: 1, readyReplicas: 2, updatedReplicas: 2 }, 1),
        b: obj({ replicas: 1 }, { readyReplicas: 1, availableReplicas: 1, updatedReplicas: 0 }),
      }),
    );
    assert.deepEqual(agg, {
      clusters: 2,
      healthyClusters: 2,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 1,
      updatedReplicas: 2,
    });
  });
});

describe('DaemonSet', () => {
  test('scheduled pods ready and available', () => {
    const agg = aggregateWorkloadStatus(
      'DaemonSet',
      members({
        a: obj(
          {},
          { desiredNumberScheduled: 3, numberReady: 3, numberAvailable: 3, updatedNumberScheduled: 3 },
        ),
        b: obj(
          {},
          { desiredNumberScheduled: 2, numberReady: 2, numberAvailable: 1, updatedNumberScheduled: 2 },
        ),
        c: obj(
          {},
          { observedGeneration: 1, desiredNumberScheduled: 1, numberReady: 1, numberAvailable: 1 },
          2,
        ),
        d: obj({}, {}),
      }),
    );
    assert.deepEqual(agg, {
      clusters: 4,
      healthyClusters: 2,
      replicas: 6,
      readyReplicas: 6,
      availableReplicas: 5,
      updatedReplicas: 5,
    });
  });
});

describe('Job', () => {
  const complete = { conditions: [{ type: 'Complete', status: 'True' }], succeeded: 1 };
  const failed = { conditions: [{ type: 'Failed', status: 'True' }], failed: 6 };

  test('sums and the health rule', () => {
    const agg = aggregateWorkloadStatus(
      'Job',
      members({
        complete: obj({}, complete),
        running: obj({}, { active: 2 }),
        failed: obj({}, failed),
        pending: obj({}, {}),
        missing: undefined,
      }),
    );
    assert.deepEqual(agg, { clusters: 5, healthyClusters: 2, active: 2, succeeded: 1, failed: 6 });
  });

  test('Complete wins; a Failed=False condition does not count; retries with progress are healthy', () => {
    const both = obj(
      {},
      {
        conditions: [
          { type: 'Failed', status: 'True' },
          { type: 'Complete', status: 'True' },
        ],
      },
    );
    const notFailed = obj({}, { conditions: [{ type: 'Failed', status: 'False' }], active: 1, failed: 2 });
    const failedRunning = obj({}, { conditions: [{ type: 'Failed', status: 'True' }], active: 1 });
    assert.equal(aggregateWorkloadStatus('Job', members({ both }))?.healthyClusters, 1);
    assert.equal(aggregateWorkloadStatus('Job', members({ notFailed }))?.healthyClusters, 1);
    assert.equal(aggregateWorkloadStatus('Job', members({ failedRunning }))?.healthyClusters, 0);
  });
});
