import assert from 'node:assert/strict';
import { test } from 'node:test';
import { putCondition } from '../../../../src/sources/policy/conditions.ts';

const c = (type: string, status = 'True') => ({ type, status });

test('a condition of a type already there is replaced where it stands', () => {
  const list = [c('Scheduled'), c('FullyApplied'), c('Dispatching')];
  assert.deepEqual(putCondition(list, c('Scheduled', 'False')), [
    c('Scheduled', 'False'),
    c('FullyApplied'),
    c('Dispatching'),
  ]);
  assert.deepEqual(list[0], c('Scheduled'), 'the input is not changed');
});

test('a new type is appended; no list is a list of one', () => {
  assert.deepEqual(putCondition([c('FullyApplied')], c('Scheduled')), [c('FullyApplied'), c('Scheduled')]);
  assert.deepEqual(putCondition(undefined, c('Scheduled')), [c('Scheduled')]);
});

test('the same condition again leaves the list equal, whatever the order the other writer left', () => {
  const list = [c('Scheduled'), c('FullyApplied')];
  assert.deepEqual(putCondition(list, c('Scheduled')), list);
});
