import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WorkloadRebalancer } from '../../../../../src/api/apps/v1alpha1/workloadrebalancer.ts';
import { planRebalance, workloadBindingKey } from '../../../../../src/sources/policy/rebalance.ts';
import { at, iso } from './fixtures.ts';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'web' };
const gone = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'gone' };
const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:reader' };
const wr = (
  extra: Partial<WorkloadRebalancer['spec']> = {},
  status?: WorkloadRebalancer['status'],
): WorkloadRebalancer => ({
  metadata: { name: 'r', creationTimestamp: iso(0), generation: 1 },
  spec: { workloads: [web, gone, role], ...extra },
  ...(status ? { status } : {}),
});
const bindings = new Map<string, { rescheduleTriggeredAt?: string }>([
  ['apps/web-deployment', {}],
  ['system.reader-clusterrole', { rescheduleTriggeredAt: iso(5) }],
]);

describe('planRebalance', () => {
  test('binding keys follow GenerateBindingName', () => {
    assert.equal(workloadBindingKey(web), 'apps/web-deployment');
    assert.equal(workloadBindingKey(role), 'system.reader-clusterrole');
  });

  test("bindings get the rebalancer's creationTimestamp once; a missing one fails; all done: finished", () => {
    const p = planRebalance(wr(), (k) => bindings.get(k), at(10));
    assert.deepEqual(p.trigger, ['apps/web-deployment'], 'a later trigger is left alone');
    assert.equal(p.triggeredAt, iso(0));
    assert.deepEqual(p.status.observedWorkloads, [
      { workload: gone, result: 'Failed', reason: 'ReferencedBindingNotFound' },
      { workload: web, result: 'Successful' },
      { workload: role, result: 'Successful' },
    ]);
    assert.equal(p.status.finishTime, iso(10));
    assert.equal(p.status.observedGeneration, 1);
    assert.equal(p.deleteAfterMs, undefined);
  });

  test('ttlSecondsAfterFinished counts from the kept finishTime', () => {
    const done = wr({ ttlSecondsAfterFinished: 60 }, { finishTime: iso(10), observedGeneration: 1 });
    assert.equal(planRebalance(done, (k) => bindings.get(k), at(30)).deleteAfterMs, 40_000);
    assert.equal(planRebalance(done, (k) => bindings.get(k), at(90)).deleteAfterMs, 0);
    const edited = wr({ ttlSecondsAfterFinished: 60 }, { finishTime: iso(10), observedGeneration: 0 });
    assert.equal(planRebalance(edited, (k) => bindings.get(k), at(90)).status.finishTime, iso(90));
  });
});
