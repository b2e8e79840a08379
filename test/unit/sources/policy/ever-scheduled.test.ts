import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reported } from '../../../../src/sources/policy/binding-controller.ts';
import { everScheduled } from '../../../../src/sources/policy/scheduled-status.ts';

const scheduled = {
  type: 'Scheduled',
  status: 'True',
  reason: 'Success',
  message: '',
  lastTransitionTime: '',
};

test('a binding the scheduler has not written to yet is not scheduled', () => {
  assert.equal(everScheduled({}), false);
  assert.equal(everScheduled({ status: {} }), false);
  const other = { ...scheduled, type: 'FullyApplied' };
  assert.equal(everScheduled({ status: { conditions: [other] } }), false);
});

test('a Scheduled condition of either status, or an observed generation, is a schedule written', () => {
  assert.equal(everScheduled({ status: { conditions: [scheduled] } }), true);
  assert.equal(everScheduled({ status: { conditions: [{ ...scheduled, status: 'False' }] } }), true);
  assert.equal(everScheduled({ status: { schedulerObservedGeneration: 1 } }), true);
});

test('a binding is reported on once the binding controller wrote FullyApplied, whatever its status', () => {
  assert.equal(reported({}), false);
  assert.equal(reported({ status: { conditions: [scheduled] } }), false);
  const applied = { ...scheduled, type: 'FullyApplied', status: 'False' };
  assert.equal(reported({ status: { conditions: [scheduled, applied] } }), true);
});
