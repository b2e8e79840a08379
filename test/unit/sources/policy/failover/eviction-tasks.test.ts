import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  GracefulEvictionTask,
  ResourceBinding,
} from '../../../../../src/api/work/v1alpha2/resourcebinding.ts';
import {
  assessEvictionTasks,
  replacementScheduled,
} from '../../../../../src/sources/policy/failover/eviction-tasks.ts';
import { at, binding, cluster, iso, noExecute } from './fixtures.ts';

const task = (extra: Partial<GracefulEvictionTask> = {}): GracefulEvictionTask => ({
  fromCluster: 'c3',
  purgeMode: 'Gracefully',
  reason: 'TaintUntolerated',
  producer: 'TaintManager',
  replicas: 2,
  creationTimestamp: iso(0),
  ...extra,
});
const down = [cluster('c1'), cluster('c2'), cluster('c3', { ready: false, taints: [noExecute('outage')] })];
const opts = { timeoutSeconds: 600, clusters: down };
const healthy = (names: string[], generation = 2): ResourceBinding['status'] => ({
  aggregatedStatus: names.map((clusterName) => ({ clusterName, applied: true, health: 'Healthy' })),
  conditions: [
    { type: 'Scheduled', status: 'True', reason: 'Success', message: 'ok', lastTransitionTime: iso(0) },
    {
      type: 'FullyApplied',
      status: 'True',
      reason: 'FullyAppliedSuccess',
      message: 'ok',
      lastTransitionTime: iso(0),
      observedGeneration: generation,
    },
  ],
});
/** c3 evicted, its 2 replicas moved to c1 and c2. */
const moved = (t: GracefulEvictionTask = task(), status: ResourceBinding['status'] = {}) =>
  binding(
    {
      clusters: [
        { name: 'c1', replicas: 3 },
        { name: 'c2', replicas: 3 },
      ],
      gracefulEvictionTasks: [t],
    },
    status,
  );
/** c3 evicted, and the others cannot take its replicas: the scheduler failed and kept its last result. */
const stuck = (t: GracefulEvictionTask = task()) =>
  binding(
    {
      clusters: [
        { name: 'c1', replicas: 2 },
        { name: 'c2', replicas: 2 },
      ],
      gracefulEvictionTasks: [t],
    },
    {
      conditions: [
        {
          type: 'Scheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/2 clusters are available: 2 cluster(s) had insufficient capacity.',
          lastTransitionTime: iso(0),
        },
      ],
    },
  );

describe('replacementScheduled', () => {
  test('Divided: Scheduled True for this generation and all replicas placed', () => {
    assert.equal(replacementScheduled(moved()), true);
    assert.equal(replacementScheduled(stuck()), false);
    const behind = moved();
    behind.status = { ...behind.status, schedulerObservedGeneration: 1 };
    assert.equal(replacementScheduled(behind), false, 'the scheduler has not seen this spec yet');
  });
  test('not divided: any cluster; none is no replacement (karmada#7455)', () => {
    const dup = binding({ placement: {}, clusters: [{ name: 'c1' }] });
    assert.equal(replacementScheduled(dup), true);
    assert.equal(replacementScheduled(binding({ placement: {}, clusters: [] })), false);
  });
});

describe('assessEvictionTasks', () => {
  test('Gracefully: kept until every scheduled copy is healthy for this spec, then ended', () => {
    const pending = assessEvictionTasks(moved(), at(10), opts);
    assert.deepEqual(pending.tasks, [task()]);
    assert.equal(pending.recheckAfterMs, 590_000);
    const stale = assessEvictionTasks(moved(task(), healthy(['c1', 'c2'], 1)), at(10), opts);
    assert.equal(stale.tasks.length, 1, 'health read for an older spec does not count');
    const done = assessEvictionTasks(moved(task(), healthy(['c1', 'c2'])), at(10), opts);
    assert.deepEqual(done.tasks, []);
    assert.deepEqual(done.ended, [{ cluster: 'c3', why: 'healthy' }]);
  });

  test("Gracefully: the grace period (the task's, else the default) ends it once a replacement is scheduled", () => {
    assert.deepEqual(assessEvictionTasks(moved(), at(600), opts).ended, [{ cluster: 'c3', why: 'timeout' }]);
    assert.equal(assessEvictionTasks(moved(task({ gracePeriodSeconds: 30 })), at(29), opts).tasks.length, 1);
    assert.deepEqual(assessEvictionTasks(moved(task({ gracePeriodSeconds: 30 })), at(30), opts).ended, [
      { cluster: 'c3', why: 'timeout' },
    ]);
  });

  test('Directly: ends as soon as the replacement is scheduled', () => {
    const a = assessEvictionTasks(moved(task({ purgeMode: 'Directly' })), at(1), opts);
    assert.deepEqual(a.ended, [{ cluster: 'c3', why: 'replaced' }]);
  });

  test('karmada#7455: no replacement, the task stays whatever the mode or the time, and says why', () => {
    for (const t of [task(), task({ purgeMode: 'Directly' }), task({ gracePeriodSeconds: 1 })]) {
      const a = assessEvictionTasks(stuck(t), at(10_000), opts);
      assert.deepEqual(a.ended, []);
      assert.equal(a.tasks.length, 1);
      assert.equal(
        a.tasks[0]?.message,
        'kept: no cluster can take its 2 replicas: 0/2 clusters are available: 2 cluster(s) had insufficient capacity.',
      );
      assert.deepEqual(a.blocked, [{ cluster: 'c3', message: a.tasks[0]?.message }]);
      assert.deepEqual(a.clusters, stuck().spec.clusters, 'nothing restored while c3 is down');
    }
    const empty = binding({
      placement: {},
      clusters: [],
      gracefulEvictionTasks: [task({ replicas: undefined })],
    });
    const e = assessEvictionTasks(empty, at(10_000), opts);
    assert.equal(e.tasks.length, 1, 'an empty spec.clusters is not "all healthy"');
    assert.match(e.tasks[0]?.message ?? '', /^kept: no cluster can take it: /);
  });

  test('a blocked task already saying why is not reported again; an unblocked one loses the message', () => {
    const first = assessEvictionTasks(stuck(), at(10), opts);
    const again = assessEvictionTasks(stuck(first.tasks[0]), at(20), opts);
    assert.deepEqual(again.blocked, []);
    const later = assessEvictionTasks(moved(first.tasks[0]), at(30), opts);
    assert.equal(later.tasks[0]?.message, undefined);
  });

  test('while the scheduler has not seen the spec, a task waits without a message', () => {
    const b = stuck();
    b.status = { ...b.status, schedulerObservedGeneration: 1 };
    const a = assessEvictionTasks(b, at(10), opts);
    assert.deepEqual(a.tasks, [task()]);
    assert.deepEqual(a.blocked, []);
  });

  const back = [cluster('c1'), cluster('c2'), cluster('c3')];
  test('karmada#5803: the cluster recovered and a replacement exists: the task ends once the replacement is available', () => {
    // The old copy in the recovered cluster may be the only one running: it stays until the new ones are.
    const pending = assessEvictionTasks(moved(), at(10), { ...opts, clusters: back });
    assert.equal(pending.tasks.length, 1);
    assert.deepEqual(pending.ended, []);
    const done = assessEvictionTasks(moved(task(), healthy(['c1', 'c2'])), at(10), {
      ...opts,
      clusters: back,
    });
    assert.deepEqual(done.tasks, []);
    assert.deepEqual(done.ended, [{ cluster: 'c3', why: 'healthy' }]);
    assert.deepEqual(done.clusters, moved().spec.clusters, 'the replicas stay where they moved');
  });

  test('unreadable task times: the grace period starts now and ends at the default, never hangs', () => {
    const garbled = assessEvictionTasks(moved(task({ creationTimestamp: 'garbage' })), at(10), opts);
    assert.equal(garbled.tasks[0]?.creationTimestamp, new Date(at(10)).toISOString().replace(/\.\d+Z$/, 'Z'));
    const badGrace = task({ gracePeriodSeconds: 'x' as unknown as number });
    const kept = assessEvictionTasks(moved(badGrace), at(10), opts);
    assert.equal(kept.tasks.length, 1);
    assert.ok(Number.isFinite(kept.recheckAfterMs), 'a recheck is scheduled');
  });

  test('karmada#5803: the cluster recovered before its replicas could move: the eviction is undone', () => {
    const a = assessEvictionTasks(stuck(), at(10), { ...opts, clusters: back });
    assert.deepEqual(a.tasks, []);
    assert.deepEqual(a.ended, [{ cluster: 'c3', why: 'cancelled' }]);
    assert.deepEqual(a.clusters, [
      { name: 'c1', replicas: 2 },
      { name: 'c2', replicas: 2 },
      { name: 'c3', replicas: 2 },
    ]);
  });

  test('an application failure is not undone by the cluster being healthy', () => {
    const t = task({
      reason: 'ApplicationFailure',
      producer: 'resource-binding-application-failover-controller',
    });
    assert.equal(assessEvictionTasks(stuck(t), at(10), { ...opts, clusters: back }).tasks.length, 1);
  });

  test('Never (suppressDeletion true) stays; suppressDeletion false (the user confirmed) ends', () => {
    assert.equal(
      assessEvictionTasks(moved(task({ suppressDeletion: true })), at(99_999), opts).tasks.length,
      1,
    );
    assert.deepEqual(assessEvictionTasks(moved(task({ suppressDeletion: false })), at(1), opts).ended, [
      { cluster: 'c3', why: 'confirmed' },
    ]);
  });

  test('a task without creationTimestamp gets one and is kept', () => {
    const a = assessEvictionTasks(moved(task({ creationTimestamp: undefined })), at(7), opts);
    assert.equal(a.tasks[0]?.creationTimestamp, iso(7));
  });
});
