import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ImportStatusInput, importStatus } from '../../../src/mcs/import-status.ts';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';
const READY = { status: 'True', reason: 'Ready', message: 'derived Service and slices written' } as const;
const PENDING = { status: 'Unknown', reason: 'Pending', message: 'waiting for the derived Service' } as const;
const NO_FAMILY = { status: 'False', reason: 'IPFamilyNotSupported', message: 'IPv6 only' } as const;

function input(o: Partial<ImportStatusInput>): ImportStatusInput {
  return {
    previous: undefined,
    clusterIds: ['c1'],
    ready: READY,
    slicesPresent: true,
    generation: 3,
    now: T0,
    ...o,
  };
}

describe('importStatus', () => {
  test('clusters sorted and unique, slices Present, Ready True', () => {
    assert.deepEqual(importStatus(input({ clusterIds: ['zeta', 'alpha', 'zeta'] })), {
      clusters: [{ cluster: 'alpha' }, { cluster: 'zeta' }],
      endpointSliceObjects: 'Present',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 3,
          reason: 'Ready',
          message: 'derived Service and slices written',
          lastTransitionTime: T0,
        },
      ],
    });
  });

  test('no slices: Absent; Ready False IPFamilyNotSupported and Unknown Pending pass through', () => {
    const s = importStatus(input({ slicesPresent: false, ready: NO_FAMILY }));
    assert.equal(s.endpointSliceObjects, 'Absent');
    assert.deepEqual(
      [s.conditions?.[0]?.status, s.conditions?.[0]?.reason],
      ['False', 'IPFamilyNotSupported'],
    );
    const p = importStatus(input({ ready: PENDING }));
    assert.deepEqual([p.conditions?.[0]?.status, p.conditions?.[0]?.reason], ['Unknown', 'Pending']);
  });

  test('lastTransitionTime kept while Ready keeps its status, moved when it changes', () => {
    const first = importStatus(input({ ready: PENDING }));
    const same = importStatus(
      input({ previous: first, ready: { ...PENDING, message: 'still waiting' }, now: T1 }),
    );
    assert.equal(same.conditions?.[0]?.lastTransitionTime, T0);
    assert.equal(same.conditions?.[0]?.message, 'still waiting');
    const changed = importStatus(input({ previous: same, ready: READY, now: T1 }));
    assert.equal(changed.conditions?.[0]?.lastTransitionTime, T1);
  });

  test('no generation: no observedGeneration; other condition types kept after Ready', () => {
    const foreign = { type: 'Synced', status: 'True', reason: 'X', message: '', lastTransitionTime: T0 };
    const s = importStatus(input({ generation: undefined, previous: { conditions: [foreign] } }));
    assert.equal('observedGeneration' in (s.conditions?.[0] ?? {}), false);
    assert.deepEqual(
      s.conditions?.map((c) => c.type),
      ['Ready', 'Synced'],
    );
  });

  test('no exporting cluster: an empty list', () => {
    assert.deepEqual(importStatus(input({ clusterIds: [] })).clusters, []);
  });
});
