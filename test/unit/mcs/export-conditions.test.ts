import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MetaCondition } from '../../../src/api/policy/v1alpha1/propagationpolicy.ts';
import { conditionsEqual, exportConditions } from '../../../src/mcs/export-conditions.ts';
import type { ExportConditionsInput, Validity } from '../../../src/mcs/model.ts';

const VALID: Validity = { valid: true, reason: 'Valid', message: 'ok' };
const NO_SERVICE: Validity = { valid: false, reason: 'NoService', message: 'no Service' };
const EXPORTED = { status: 'True', reason: 'Exported', message: 'imported everywhere' } as const;
const PENDING = { status: 'Unknown', reason: 'Pending', message: 'not yet' } as const;
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';

function input(o: Partial<ExportConditionsInput>): ExportConditionsInput {
  return {
    previous: undefined,
    validity: VALID,
    conflict: { reasons: [], message: '' },
    ready: EXPORTED,
    generation: 1,
    now: T0,
    ...o,
  };
}

const brief = (cs: readonly MetaCondition[]) => cs.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe('exportConditions', () => {
  test('a valid export without conflicts: Valid True, Conflict False NoConflicts, Ready as given', () => {
    const cs = exportConditions(input({}));
    assert.deepEqual(cs, [
      {
        type: 'Valid',
        status: 'True',
        observedGeneration: 1,
        reason: 'Valid',
        message: 'ok',
        lastTransitionTime: T0,
      },
      {
        type: 'Conflict',
        status: 'False',
        observedGeneration: 1,
        reason: 'NoConflicts',
        message: 'No conflicts with the other exports of this service',
        lastTransitionTime: T0,
      },
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 1,
        reason: 'Exported',
        message: 'imported everywhere',
        lastTransitionTime: T0,
      },
    ]);
  });

  test('conflicts: Conflict True, the reasons comma-joined, the message as resolved', () => {
    const cs = exportConditions(
      input({
        conflict: {
          reasons: ['PortConflict', 'TypeConflict'],
          message: 'Conflicting ports. …; Conflicting type. …',
        },
      }),
    );
    const conflict = cs.find((c) => c.type === 'Conflict');
    assert.equal(conflict?.status, 'True');
    assert.equal(conflict?.reason, 'PortConflict,TypeConflict');
    assert.equal(conflict?.message, 'Conflicting ports. …; Conflicting type. …');
  });

  test('an invalid export: Valid False, no Conflict (a stale one dropped), Ready as given', () => {
    const previous = exportConditions(input({ conflict: { reasons: ['TypeConflict'], message: 'm' } }));
    const cs = exportConditions(
      input({ previous, validity: NO_SERVICE, conflict: undefined, ready: PENDING, now: T1 }),
    );
    assert.deepEqual(brief(cs), ['Valid=False/NoService', 'Ready=Unknown/Pending']);
    assert.equal(cs[0]?.message, 'no Service');
    // An invalid export's conflict, if the caller passed one, is ignored all the same.
    const again = exportConditions(
      input({ validity: NO_SERVICE, conflict: { reasons: ['PortConflict'], message: 'm' } }),
    );
    assert.deepEqual(brief(again), ['Valid=False/NoService', 'Ready=True/Exported']);
  });

  test('a valid export given no conflict: no Conflict condition', () => {
    assert.deepEqual(brief(exportConditions(input({ conflict: undefined }))), [
      'Valid=True/Valid',
      'Ready=True/Exported',
    ]);
  });

  test('lastTransitionTime is kept while a status stays, even when reason or message change', () => {
    const first = exportConditions(input({ conflict: { reasons: ['PortConflict'], message: 'one' } }));
    const second = exportConditions(
      input({
        previous: first,
        conflict: { reasons: ['TypeConflict'], message: 'two' },
        generation: 2,
        now: T1,
      }),
    );
    for (const c of second) assert.equal(c.lastTransitionTime, T0, c.type);
    assert.equal(second[1]?.reason, 'TypeConflict');
    assert.equal(second[1]?.message, 'two');
    for (const c of second) assert.equal(c.observedGeneration, 2, c.type);
  });

  test('lastTransitionTime moves for the condition whose status changed, only that one', () => {
    const first = exportConditions(input({ ready: PENDING }));
    const second = exportConditions(
      input({ previous: first, conflict: { reasons: ['LabelsConflict'], message: 'm' }, now: T1 }),
    );
    assert.deepEqual(
      second.map((c) => [c.type, c.lastTransitionTime]),
      [
        ['Valid', T0],
        ['Conflict', T1],
        ['Ready', T1],
      ],
    );
  });

  test('a Conflict that comes back after the export was invalid is new: now', () => {
    const invalid = exportConditions(input({ validity: NO_SERVICE, conflict: undefined }));
    const valid = exportConditions(input({ previous: invalid, now: T1 }));
    assert.deepEqual(
      valid.map((c) => [c.type, c.lastTransitionTime]),
      [
        ['Valid', T1],
        ['Conflict', T1],
        ['Ready', T0],
      ],
    );
  });

  test('no generation: no observedGeneration', () => {
    for (const c of exportConditions(input({ generation: undefined })))
      assert.equal('observedGeneration' in c, false);
  });

  test('conditions of other types are kept after ours, unchanged; ours come in our order', () => {
    const foreign: MetaCondition = {
      type: 'Synced',
      status: 'True',
      reason: 'X',
      message: '',
      lastTransitionTime: T0,
    };
    const previous = [foreign, ...exportConditions(input({}))].reverse();
    const cs = exportConditions(input({ previous, now: T1 }));
    assert.deepEqual(brief(cs), [
      'Valid=True/Valid',
      'Conflict=False/NoConflicts',
      'Ready=True/Exported',
      'Synced=True/X',
    ]);
    assert.equal(cs[3], foreign);
  });
});

describe('conditionsEqual', () => {
  const cs = exportConditions(input({}));

  test('the same conditions again are equal; undefined equals none', () => {
    assert.equal(conditionsEqual(cs, exportConditions(input({ previous: cs, now: T1 }))), true);
    assert.equal(conditionsEqual(undefined, []), true);
    assert.equal(conditionsEqual(undefined, cs), false);
  });

  test('any field that differs, or the order, makes them unequal', () => {
    const changes: Array<Partial<MetaCondition>> = [
      { status: 'Unknown' },
      { reason: 'Other' },
      { message: 'other' },
      { lastTransitionTime: T1 },
      { observedGeneration: 2 },
      { type: 'Other' },
    ];
    for (const change of changes) {
      const b = cs.map((c, i) => (i === 1 ? { ...c, ...change } : c));
      assert.equal(conditionsEqual(cs, b), false, JSON.stringify(change));
    }
    assert.equal(conditionsEqual(cs, [...cs].reverse()), false);
    assert.equal(conditionsEqual(cs, cs.slice(1)), false);
  });
});
