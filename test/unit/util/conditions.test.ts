import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setCondition } from '../../../src/util/conditions.ts';

const T0 = new Date('2026-11-30T10:00:00.123Z');
const T1 = new Date('2026-11-30T10:05:00.456Z');

describe('setCondition', () => {
  test('adds a missing condition with the current time, at seconds precision', () => {
    const out = setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Published' }, T0);
    assert.deepEqual(out, [
      { type: 'Ready', status: 'True', reason: 'Published', lastTransitionTime: '2026-11-30T10:00:00Z' },
    ]);
  });

  test('a new message alone keeps the transition time', () => {
    const prev = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'X', message: 'a' }, T0);
    const out = setCondition(prev, { type: 'Ready', status: 'False', reason: 'X', message: 'b' }, T1);
    assert.equal(out[0]?.message, 'b');
    assert.equal(out[0]?.lastTransitionTime, '2026-11-30T10:00:00Z');
  });

  test('a status or reason change moves the transition time', () => {
    const prev = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'X' }, T0);
    const byStatus = setCondition(prev, { type: 'Ready', status: 'True', reason: 'X' }, T1);
    const byReason = setCondition(prev, { type: 'Ready', status: 'False', reason: 'Y' }, T1);
    assert.equal(byStatus[0]?.lastTransitionTime, '2026-11-30T10:05:00Z');
    assert.equal(byReason[0]?.lastTransitionTime, '2026-11-30T10:05:00Z');
  });

  test('other condition types are kept in place; an empty message is dropped', () => {
    const prev = [
      { type: 'Other', status: 'True', lastTransitionTime: 'x' },
      { type: 'Ready', status: 'False', reason: 'X', message: 'old', lastTransitionTime: 'y' },
    ];
    const out = setCondition(prev, { type: 'Ready', status: 'True', reason: 'Ok', message: '' }, T1);
    assert.deepEqual(out, [
      { type: 'Other', status: 'True', lastTransitionTime: 'x' },
      { type: 'Ready', status: 'True', reason: 'Ok', lastTransitionTime: '2026-11-30T10:05:00Z' },
    ]);
  });
});
