import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResourceBindingStatus } from '../../../../src/api/work/v1alpha2/index.ts';
import {
  firstSuccess,
  SCHEDULED_MESSAGE,
  scheduledStatus,
} from '../../../../src/sources/policy/scheduled-status.ts';

const applied = {
  type: 'FullyApplied',
  status: 'True',
  reason: 'FullyAppliedSuccess',
  message: 'All works have been successfully applied',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

test('a success sets Scheduled, the generation and the time, and keeps the binding controller’s fields', () => {
  const old: ResourceBindingStatus = { conditions: [applied], aggregatedStatus: [{ clusterName: 'c1' }] };
  const status = scheduledStatus(old, {
    outcome: { ok: true },
    generation: 3,
    now: '2026-02-02T00:00:00Z',
    lastScheduledTime: '2026-02-02T00:00:00Z',
  });
  assert.deepEqual(status, {
    aggregatedStatus: [{ clusterName: 'c1' }],
    schedulerObservedGeneration: 3,
    lastScheduledTime: '2026-02-02T00:00:00Z',
    conditions: [
      applied,
      {
        type: 'Scheduled',
        status: 'True',
        reason: 'Success',
        message: SCHEDULED_MESSAGE,
        lastTransitionTime: '2026-02-02T00:00:00Z',
      },
    ],
  });
  assert.equal(firstSuccess(old, { ok: true }), true);
  assert.equal(firstSuccess(status, { ok: true }), false);
});

test('a failure keeps its place in the list, moves the transition time, and leaves the time alone', () => {
  const scheduled = scheduledStatus(
    {},
    { outcome: { ok: true, affinityName: 'a' }, generation: 1, now: 't1', lastScheduledTime: 't1' },
  );
  assert.equal(scheduled.schedulerObservingAffinityName, 'a');
  const failed = scheduledStatus(
    { ...scheduled, conditions: [...(scheduled.conditions ?? []), applied] },
    { outcome: { ok: false, reason: 'NoClusterFit', message: 'none fit' }, generation: 2, now: 't2' },
  );
  assert.equal(failed.lastScheduledTime, 't1');
  assert.equal(failed.schedulerObservedGeneration, 2);
  assert.deepEqual(failed.conditions?.[0], {
    type: 'Scheduled',
    status: 'False',
    reason: 'NoClusterFit',
    message: 'none fit',
    lastTransitionTime: 't2',
  });
  assert.deepEqual(failed.conditions?.[1], applied);
  assert.equal(firstSuccess(failed, { ok: false, reason: 'x', message: 'y' }), false);
});
