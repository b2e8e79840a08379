import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BindingObject } from '../../../../src/sources/policy/binding-spec.ts';
import type { PolicyCluster } from '../../../../src/sources/policy/cluster-affinity.ts';
import { createdScheduled, withFirstSchedule } from '../../../../src/sources/policy/first-schedule.ts';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  placementString,
  scheduleBinding,
} from '../../../../src/sources/policy/scheduling.ts';

const cluster = (name: string): PolicyCluster => ({ name, labels: {}, zones: [], ready: true });
const clusters = [cluster('c1'), cluster('c2'), cluster('c3')];

function created(spec: Partial<BindingObject['spec']>): BindingObject {
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-deployment', namespace: 'apps' },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'web' },
      ...spec,
    },
  } as BindingObject;
}

test('a binding that needs no tie-break is created with the clusters the scheduler would write', () => {
  const placement = { clusterAffinity: { clusterNames: ['c1', 'c3'] } };
  const b = created({ placement, replicas: 3 });
  const out = withFirstSchedule(b, clusters);
  const expected = scheduleBinding({ placement, clusters, replicas: 3, bindingUid: 'the-uid-to-come' });
  assert.ok(expected.ok);
  assert.deepEqual(out.spec.clusters, expected.clusters);
  assert.deepEqual(
    out.spec.clusters?.map((c) => c.name),
    ['c1', 'c3'],
  );
  assert.equal(out.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION], placementString(placement));
  assert.equal(b.spec.clusters, undefined, 'the input is not changed');
});

test('a division whose remainder the uid breaks waits for the scheduler', () => {
  const placement = {
    replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
  } as const;
  const b = created({ placement, replicas: 4 });
  assert.equal(withFirstSchedule(b, clusters), b);
});

test('no cluster fits, scheduling suspended, or clusters already there: created as it is', () => {
  const none = created({ placement: { clusterAffinity: { clusterNames: ['c9'] } } });
  assert.equal(withFirstSchedule(none, clusters), none);
  const suspended = created({ placement: {}, suspension: { scheduling: true } });
  assert.equal(withFirstSchedule(suspended, clusters), suspended);
  const placed = created({ placement: {}, clusters: [{ name: 'c2' }] });
  assert.equal(withFirstSchedule(placed, clusters), placed);
});

test('a binding created with its schedule leaves its Scheduled status to the first report', () => {
  const placement = { clusterAffinity: { clusterNames: ['c1'] } };
  const b = withFirstSchedule(created({ placement }), clusters);
  assert.equal(createdScheduled(b), true);
  // Not before it was created with its schedule, nor once a schedule was written.
  assert.equal(createdScheduled(created({ placement })), false);
  const scheduled = {
    ...b,
    status: {
      conditions: [
        { type: 'Scheduled', status: 'True', reason: 'Success', message: '', lastTransitionTime: '' },
      ],
    },
  };
  assert.equal(createdScheduled(scheduled), false);
  assert.equal(createdScheduled({ ...b, status: { schedulerObservedGeneration: 1 } }), false);
});

test('a first schedule with more to report than success is the scheduler’s to write', () => {
  const placement = { clusterAffinity: { clusterNames: ['c1'] } };
  const b = withFirstSchedule(created({ placement }), clusters);
  // The placement changed since the schedule was made.
  assert.equal(
    createdScheduled({ ...b, spec: { ...b.spec, placement: { clusterAffinity: { clusterNames: ['c2'] } } } }),
    false,
  );
  // An affinity term to record, a reschedule trigger to consume, scheduling suspended.
  const terms = { clusterAffinities: [{ affinityName: 'first', clusterNames: ['c1'] }] };
  const withTerms = withFirstSchedule(created({ placement: terms }), clusters);
  assert.ok((withTerms.spec.clusters ?? []).length > 0);
  assert.equal(createdScheduled(withTerms), false);
  assert.equal(
    createdScheduled({ ...b, spec: { ...b.spec, rescheduleTriggeredAt: '2026-01-01T00:00:00Z' } }),
    false,
  );
  assert.equal(createdScheduled({ ...b, spec: { ...b.spec, suspension: { scheduling: true } } }), false);
});
