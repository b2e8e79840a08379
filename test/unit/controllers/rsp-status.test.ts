import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ReplicaSchedulingPreference } from '../../../src/api/scheduling/v1alpha1/index.ts';
import { buildRspStatus, rspStatusChanged } from '../../../src/controllers/scheduling/status.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';

type Rsp = ReplicaSchedulingPreference & KubeObject;
const rsp = (status?: Rsp['status']): Rsp => ({
  metadata: { name: 'web', namespace: 'ns', generation: 2 },
  spec: { targetKind: 'FederatedDeployment', totalReplicas: 15 },
  ...(status ? { status } : {}),
});
const t1 = new Date('2026-11-29T10:00:00Z');
const t2 = new Date('2026-11-29T10:05:00Z');
const scheduled = {
  ready: true as const,
  reason: 'Scheduled' as const,
  result: { 'us-west': 6, 'ap-northeast': 3, 'us-east': 6 },
  overflow: {},
  candidates: ['us-west', 'us-east', 'ap-northeast'],
};

describe('RSP status (kubefed-ts: KubeFed left it empty)', () => {
  test('records the plan, when, for which clusters, sorted', () => {
    const s = buildRspStatus(rsp(), scheduled, t1);
    assert.deepEqual(s, {
      observedGeneration: 2,
      conditions: [
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Scheduled',
          lastTransitionTime: '2026-11-29T10:00:00Z',
        },
      ],
      clusters: ['ap-northeast', 'us-east', 'us-west'],
      replicas: { 'ap-northeast': 3, 'us-east': 6, 'us-west': 6 },
      totalScheduled: 15,
      scheduledAt: '2026-11-29T10:00:00Z',
    });
  });

  test('the same plan later changes nothing, so nothing is written', () => {
    const first = buildRspStatus(rsp(), scheduled, t1);
    const again = buildRspStatus(rsp(first), scheduled, t2);
    assert.equal(rspStatusChanged(first, again), false);
  });

  test('a new plan is stamped; a failure keeps the last plan and says why', () => {
    const first = buildRspStatus(rsp(), scheduled, t1);
    const moved = buildRspStatus(
      rsp(first),
      { ...scheduled, result: { 'ap-northeast': 3, 'us-east': 12 }, candidates: ['ap-northeast', 'us-east'] },
      t2,
    );
    assert.equal(moved.scheduledAt, '2026-11-29T10:05:00Z');
    assert.equal(moved.totalScheduled, 15);
    const failed = buildRspStatus(
      rsp(moved),
      { ready: false, reason: 'InvalidSpec', message: 'spec.totalReplicas: Invalid value: -1' },
      t2,
    );
    assert.deepEqual(failed.replicas, moved.replicas);
    assert.deepEqual(failed.conditions, [
      {
        type: 'Scheduled',
        status: 'False',
        reason: 'InvalidSpec',
        message: 'spec.totalReplicas: Invalid value: -1',
        lastTransitionTime: '2026-11-29T10:05:00Z',
      },
    ]);
    assert.equal(rspStatusChanged(moved, failed), true);
  });

  test('overflow is recorded only when there is some', () => {
    const s = buildRspStatus(rsp(), { ...scheduled, overflow: { 'us-east': 2 } }, t1);
    assert.deepEqual(s.overflow, { 'us-east': 2 });
  });
});
