import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ClusterGroup,
  type ClusterRolloutStatus,
  goDurationMs,
  parseDurationMs,
  type RolloutResult,
  rolloutClusters,
  rolloutSize,
} from '../../../../src/sources/manifestwork/replicaset/rollout.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const MIN = 60_000;

const one = (...clusters: string[]): ClusterGroup[] => [{ key: { groupName: '', groupIndex: 0 }, clusters }];
const st = (
  clusterName: string,
  status: ClusterRolloutStatus['status'],
  agoMs?: number,
): ClusterRolloutStatus =>
  agoMs === undefined ? { clusterName, status } : { clusterName, status, lastTransitionTime: NOW - agoMs };
const names = (r: RolloutResult) => r.clustersToRollout.map((c) => `${c.clusterName}:${c.status}`);

test('rolloutSize and durations parse as OCM does', () => {
  assert.equal(rolloutSize(undefined, 5, 5), 5);
  assert.equal(rolloutSize(2, 5, 5), 2);
  assert.equal(rolloutSize('50%', 5, 5), 3);
  assert.equal(rolloutSize(0, 5, 5), 5);
  assert.equal(rolloutSize(9, 5, 5), 5);
  assert.throws(() => rolloutSize('2', 5, 5), /not a percentage/);
  assert.equal(parseDurationMs('None', 'timeout'), Number.POSITIVE_INFINITY);
  assert.equal(parseDurationMs(undefined, 'timeout'), Number.POSITIVE_INFINITY);
  assert.equal(parseDurationMs('90s', 'timeout'), 90_000);
  assert.throws(() => parseDurationMs('soon', 'timeout'), /invalid timeout format/);
  assert.equal(goDurationMs('1h30m', 'x'), 90 * MIN);
  assert.equal(goDurationMs('0', 'x'), 0);
});

describe('All', () => {
  test('no works yet: every decided cluster to apply, by name', () => {
    const r = rolloutClusters(undefined, one('c3', 'c1', 'c2'), [], NOW);
    assert.deepEqual(names(r), ['c1:ToApply', 'c2:ToApply', 'c3:ToApply']);
  });

  test('succeeded clusters drop out, progressing ones stay, removed ones are reported', () => {
    const r = rolloutClusters(
      { type: 'All' },
      one('c1', 'c2', 'c3'),
      [st('c1', 'Succeeded', MIN), st('c2', 'Progressing', MIN), st('gone', 'Succeeded', MIN)],
      NOW,
    );
    assert.deepEqual(names(r), ['c2:Progressing', 'c3:ToApply']);
    assert.deepEqual(
      r.clustersRemoved.map((c) => c.clusterName),
      ['gone'],
    );
  });

  test('progressDeadline passed: the cluster times out; pending: recheck when it will', () => {
    const late = rolloutClusters(
      { type: 'All', all: { progressDeadline: '30s' } },
      one('c1'),
      [st('c1', 'Progressing', MIN)],
      NOW,
    );
    assert.deepEqual(names(late), []);
    assert.deepEqual(
      late.clustersTimeOut.map((c) => `${c.clusterName}:${c.status}`),
      ['c1:TimeOut'],
    );
    const pending = rolloutClusters(
      { type: 'All', all: { progressDeadline: '90s' } },
      one('c1'),
      [st('c1', 'Progressing', MIN)],
      NOW,
    );
    assert.deepEqual(names(pending), ['c1:Progressing']);
    assert.equal(pending.recheckAfterMs, 30_000);
  });
});

describe('Progressive', () => {
  const five = one('c1', 'c2', 'c3', 'c4', 'c5');

  test('maxConcurrency 2: two at a time, the next once one succeeds', () => {
    const s = { type: 'Progressive' as const, progressive: { maxConcurrency: 2 } };
    assert.deepEqual(names(rolloutClusters(s, five, [], NOW)), ['c1:ToApply', 'c2:ToApply']);
    const busy = [st('c1', 'Progressing', MIN), st('c2', 'Progressing', MIN)];
    assert.deepEqual(names(rolloutClusters(s, five, busy, NOW)), ['c1:Progressing', 'c2:Progressing']);
    const oneDone = [st('c1', 'Succeeded', MIN), st('c2', 'Progressing', MIN)];
    assert.deepEqual(names(rolloutClusters(s, five, oneDone, NOW)), ['c2:Progressing', 'c3:ToApply']);
  });

  test('maxConcurrency as a percentage of the clusters', () => {
    const s = { type: 'Progressive' as const, progressive: { maxConcurrency: '40%' } };
    assert.deepEqual(names(rolloutClusters(s, five, [], NOW)), ['c1:ToApply', 'c2:ToApply']);
  });

  test('failures beyond maxFailures stop the rollout', () => {
    const s = { type: 'Progressive' as const, progressive: { maxConcurrency: 2 } };
    const failed = [st('c1', 'Failed', MIN), st('c2', 'Succeeded', MIN)];
    const r = rolloutClusters(s, five, failed, NOW);
    assert.equal(r.maxFailureBreach, true);
    assert.deepEqual(names(r), ['c1:Failed']);
    const tolerated = rolloutClusters(
      { type: 'Progressive', progressive: { maxConcurrency: 2, maxFailures: 1 } },
      five,
      failed,
      NOW,
    );
    assert.equal(tolerated.maxFailureBreach, false);
    assert.deepEqual(names(tolerated), ['c1:Failed', 'c3:ToApply']);
  });

  test('a timed-out cluster counts as a failure', () => {
    const s = { type: 'Progressive' as const, progressive: { maxConcurrency: 2, progressDeadline: '10s' } };
    const r = rolloutClusters(s, five, [st('c1', 'Progressing', MIN)], NOW);
    assert.equal(r.maxFailureBreach, true);
    assert.deepEqual(names(r), []);
    assert.deepEqual(
      r.clustersTimeOut.map((c) => c.clusterName),
      ['c1'],
    );
  });

  test('minSuccessTime: a fresh success keeps its slot until the soak time is over', () => {
    const s = { type: 'Progressive' as const, progressive: { maxConcurrency: 1, minSuccessTime: '5m' } };
    const soaking = rolloutClusters(s, five, [st('c1', 'Succeeded', MIN)], NOW);
    assert.deepEqual(names(soaking), ['c1:Succeeded']);
    assert.equal(soaking.recheckAfterMs, 4 * MIN);
    const soaked = rolloutClusters(s, five, [st('c1', 'Succeeded', 6 * MIN)], NOW);
    assert.deepEqual(names(soaked), ['c2:ToApply']);
  });

  test('mandatory decision groups first, then the rest', () => {
    const groups: ClusterGroup[] = [
      { key: { groupName: 'canary', groupIndex: 0 }, clusters: ['c9'] },
      { key: { groupName: '', groupIndex: 1 }, clusters: ['c1', 'c2'] },
    ];
    const s = {
      type: 'Progressive' as const,
      progressive: { mandatoryDecisionGroups: [{ groupName: 'canary' }], maxConcurrency: 1 },
    };
    assert.deepEqual(names(rolloutClusters(s, groups, [], NOW)), ['c9:ToApply']);
    assert.deepEqual(names(rolloutClusters(s, groups, [st('c9', 'Succeeded', MIN)], NOW)), ['c1:ToApply']);
  });
});

describe('ProgressivePerGroup', () => {
  const groups: ClusterGroup[] = [
    { key: { groupName: 'a', groupIndex: 0 }, clusters: ['c2', 'c1'] },
    { key: { groupName: 'b', groupIndex: 1 }, clusters: ['c3'] },
  ];
  test('one group at a time, in index order', () => {
    const s = { type: 'ProgressivePerGroup' as const };
    assert.deepEqual(names(rolloutClusters(s, groups, [], NOW)), ['c1:ToApply', 'c2:ToApply']);
    const groupA = [st('c1', 'Succeeded', MIN), st('c2', 'Progressing', MIN)];
    assert.deepEqual(names(rolloutClusters(s, groups, groupA, NOW)), ['c2:Progressing']);
    const doneA = [st('c1', 'Succeeded', MIN), st('c2', 'Succeeded', MIN)];
    assert.deepEqual(names(rolloutClusters(s, groups, doneA, NOW)), ['c3:ToApply']);
  });

  test('a failed group stops the rollout unless maxFailures tolerates it', () => {
    const failedA = [st('c1', 'Failed', MIN), st('c2', 'Succeeded', MIN)];
    const stopped = rolloutClusters({ type: 'ProgressivePerGroup' }, groups, failedA, NOW);
    assert.equal(stopped.maxFailureBreach, true);
    assert.deepEqual(names(stopped), ['c1:Failed']);
    const tolerated = rolloutClusters(
      { type: 'ProgressivePerGroup', progressivePerGroup: { maxFailures: '50%' } },
      groups,
      failedA,
      NOW,
    );
    assert.deepEqual(names(tolerated), ['c1:Failed', 'c3:ToApply']);
  });
});
