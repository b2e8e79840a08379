import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import {
  analysePods,
  clusterState,
  needsPodAnalysis,
  podLabelSelector,
  replicaCounts,
  UNSCHEDULABLE_THRESHOLD_MS,
} from '../../../src/scheduling/pod-analysis.ts';

const now = new Date('2024-05-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

function pod(name: string, status: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, status };
}

const running = (readyStatus = 'True') =>
  pod('run', { phase: 'Running', conditions: [{ type: 'Ready', status: readyStatus }] });
const unschedulable = (since: string | undefined) =>
  pod('pending', {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        ...(since === undefined ? {} : { lastTransitionTime: since }),
      },
    ],
  });

describe('analysePods (KubeFed podanalyzer)', () => {
  test('pod_helper_test.go: 3 running+ready, 2 unschedulable for 10 min, 1 just now', () => {
    const pods = [
      running(),
      running(),
      running(),
      unschedulable(ago(10 * 60_000)),
      unschedulable(ago(10 * 60_000)),
      unschedulable(now.toISOString()),
    ];
    assert.deepEqual(analysePods(pods, now), {
      total: 6,
      runningAndReady: 3,
      unschedulable: 2,
      recentUnschedulable: 1,
    });
  });

  test('pod_helper_test.go: one pending pod without conditions', () => {
    assert.deepEqual(analysePods([pod('p', { phase: 'Pending', conditions: [] })], now), {
      total: 1,
      runningAndReady: 0,
      unschedulable: 0,
      recentUnschedulable: 0,
    });
  });

  test('KubeFed quirk: a running pod with Ready=False still counts as running and ready', () => {
    assert.equal(analysePods([running('False'), running('Unknown')], now).runningAndReady, 2);
  });

  test('a pod that is not Running does not count, even with Ready', () => {
    const p = pod('p', { phase: 'Pending', conditions: [{ type: 'Ready', status: 'True' }] });
    assert.equal(analysePods([p], now).runningAndReady, 0);
  });

  test('the threshold is strict: exactly 60 s is still recent, just over is unschedulable', () => {
    assert.equal(UNSCHEDULABLE_THRESHOLD_MS, 60_000);
    const atThreshold = analysePods([unschedulable(ago(60_000))], now);
    assert.deepEqual([atThreshold.unschedulable, atThreshold.recentUnschedulable], [0, 1]);
    const over = analysePods([unschedulable(ago(61_000))], now);
    assert.deepEqual([over.unschedulable, over.recentUnschedulable], [1, 0]);
  });

  test("a missing lastTransitionTime is Go's zero time: long ago", () => {
    assert.equal(analysePods([unschedulable(undefined)], now).unschedulable, 1);
  });

  test('only PodScheduled=False with reason Unschedulable counts', () => {
    const other = [
      pod('a', {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: ago(1e6) }],
      }),
      pod('b', {
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'False', reason: 'SchedulerError', lastTransitionTime: ago(1e6) },
        ],
      }),
      pod('c', {
        phase: 'Running',
        conditions: [
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: ago(1e6) },
        ],
      }),
    ];
    const a = analysePods(other, now);
    assert.deepEqual([a.total, a.unschedulable, a.recentUnschedulable], [3, 0, 0]);
  });

  test('pods without status are counted in total only', () => {
    assert.deepEqual(analysePods([{ metadata: { name: 'x' } }], now), {
      total: 1,
      runningAndReady: 0,
      unschedulable: 0,
      recentUnschedulable: 0,
    });
  });
});

describe('clusterState (KubeFed clustersReplicaState)', () => {
  test('replicas == readyReplicas: current is readyReplicas, no pods needed', () => {
    assert.deepEqual(clusterState({ replicas: 4, readyReplicas: 4, now }), {
      current: 4,
      needsRecheck: false,
    });
    assert.deepEqual(clusterState({ replicas: 0, readyReplicas: 0, now }), {
      current: 0,
      needsRecheck: false,
    });
    assert.equal(needsPodAnalysis(4, 4), false);
    assert.equal(needsPodAnalysis(5, 4), true);
  });

  test('otherwise current is the running pods and capacity is replicas minus long-unschedulable pods', () => {
    const pods = [running(), running(), unschedulable(ago(120_000)), unschedulable(ago(120_000))];
    assert.deepEqual(clusterState({ replicas: 5, readyReplicas: 2, pods, now }), {
      current: 2,
      capacity: 3,
      needsRecheck: false,
    });
  });

  test('recently unschedulable pods give no capacity yet but ask for a recheck', () => {
    const pods = [running(), unschedulable(ago(5_000))];
    assert.deepEqual(clusterState({ replicas: 2, readyReplicas: 1, pods, now }), {
      current: 1,
      needsRecheck: true,
    });
  });

  test('pods are required when the workload is not settled', () => {
    assert.throws(() => clusterState({ replicas: 3, readyReplicas: 1, now }), /pods are needed/);
  });
});

describe('member workload helpers', () => {
  test('replicaCounts reads spec.replicas and status.readyReplicas, 0 when absent', () => {
    assert.deepEqual(
      replicaCounts({ metadata: { name: 'd' }, spec: { replicas: 3 }, status: { readyReplicas: 2 } }),
      { replicas: 3, readyReplicas: 2 },
    );
    assert.deepEqual(replicaCounts({ metadata: { name: 'd' } }), { replicas: 0, readyReplicas: 0 });
  });

  test('podLabelSelector uses matchLabels, keys sorted; a missing selector is an error', () => {
    const obj = (selector: unknown): KubeObject => ({ metadata: { name: 'd' }, spec: { selector } });
    assert.equal(podLabelSelector(obj({ matchLabels: { tier: 'web', app: 'nginx' } })), 'app=nginx,tier=web');
    assert.equal(podLabelSelector(obj({ matchLabels: {} })), '');
    assert.throws(() => podLabelSelector(obj(undefined)), /missing selector on object/);
    assert.throws(() => podLabelSelector(obj({ matchExpressions: [] })), /missing selector on object/);
  });
});
