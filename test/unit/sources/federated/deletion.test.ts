import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DeletionOutcome } from '../../../../src/engine/dispatcher.ts';
import {
  type AfterMembers,
  type AfterVerify,
  afterMembers,
  afterVerify,
  DELETION_RECHECK_MS,
  type DeletionTiming,
  deletionTiming,
  type ReleaseEvent,
  releaseEvents,
} from '../../../../src/sources/federated/deletion.ts';

const DELETED_AT = '2026-01-01T00:00:00Z';
const t0 = Date.parse(DELETED_AT);
const BOUND = 60_000;

describe('deletionTiming: how long a deletion has waited, and when to look again', () => {
  const rows: Array<{
    name: string;
    at: string | undefined;
    now: number;
    bound: number;
    want: DeletionTiming;
  }> = [
    {
      name: 'no deletion timestamp: not waited at all',
      at: undefined,
      now: t0 + 30_000,
      bound: BOUND,
      want: { waitedMs: 0, abandon: false, recheckMs: DELETION_RECHECK_MS },
    },
    {
      name: 'an unparseable timestamp: not waited at all',
      at: 'yesterday',
      now: t0 + 30_000,
      bound: BOUND,
      want: { waitedMs: 0, abandon: false, recheckMs: DELETION_RECHECK_MS },
    },
    {
      name: 'well before the bound: recheck every 10 s',
      at: DELETED_AT,
      now: t0 + 30_000,
      bound: BOUND,
      want: { waitedMs: 30_000, abandon: false, recheckMs: 10_000 },
    },
    {
      name: 'less than 10 s before the bound: recheck at the bound',
      at: DELETED_AT,
      now: t0 + 55_000,
      bound: BOUND,
      want: { waitedMs: 55_000, abandon: false, recheckMs: 5_000 },
    },
    {
      name: 'less than 1 s before the bound: recheck in 1 s',
      at: DELETED_AT,
      now: t0 + 59_500,
      bound: BOUND,
      want: { waitedMs: 59_500, abandon: false, recheckMs: 1_000 },
    },
    {
      name: 'at the bound: abandon',
      at: DELETED_AT,
      now: t0 + 60_000,
      bound: BOUND,
      want: { waitedMs: 60_000, abandon: true, recheckMs: 1_000 },
    },
    {
      name: 'after the bound: abandon, recheck in 1 s',
      at: DELETED_AT,
      now: t0 + 90_000,
      bound: BOUND,
      want: { waitedMs: 90_000, abandon: true, recheckMs: 1_000 },
    },
    {
      name: 'a zero bound: abandon at once',
      at: undefined,
      now: t0,
      bound: 0,
      want: { waitedMs: 0, abandon: true, recheckMs: 1_000 },
    },
  ];
  for (const row of rows)
    test(row.name, () => assert.deepEqual(deletionTiming(row.at, row.now, row.bound), row.want));
});

function outcome(o: Partial<DeletionOutcome> = {}): DeletionOutcome {
  return { remaining: [], waiting: [], errors: [], abandoned: [], deferred: [], ...o };
}
const timing: DeletionTiming = { waitedMs: 55_000, abandon: false, recheckMs: 5_000 };

describe('afterMembers: after deleting from (or releasing in) the members', () => {
  const rows: Array<{ name: string; outcome: DeletionOutcome; orphan: boolean; want: AfterMembers }> = [
    {
      name: 'a ready member refused: retry, before anything else',
      outcome: outcome({
        errors: ['cluster "a": DeletionFailed', 'cluster "b": LabelRemovalFailed'],
        waiting: ['cluster "c" is not ready'],
        remaining: ['a'],
      }),
      orphan: false,
      want: {
        kind: 'retry',
        message: 'deleting from members failed: cluster "a": DeletionFailed; cluster "b": LabelRemovalFailed',
      },
    },
    {
      name: 'members that cannot be read yet: wait, no later than the bound',
      outcome: outcome({ waiting: ['cluster "c" is not ready'], remaining: ['a'] }),
      orphan: false,
      want: { kind: 'wait', ms: 5_000, waiting: ['cluster "c" is not ready'] },
    },
    {
      name: 'orphaning, members that cannot be read yet: wait',
      outcome: outcome({ waiting: ['cluster "c": list timed out'] }),
      orphan: true,
      want: { kind: 'wait', ms: 5_000, waiting: ['cluster "c": list timed out'] },
    },
    {
      name: 'copies still there: wait for their removal, saying where (KubeFed words)',
      outcome: outcome({ remaining: ['a', 'b'] }),
      orphan: false,
      want: {
        kind: 'waitForRemoval',
        ms: DELETION_RECHECK_MS,
        message: 'Waiting for managed resources to be removed from the following clusters: a, b',
      },
    },
    {
      name: 'nothing left in the caches, deleting: verify with live reads',
      outcome: outcome(),
      orphan: false,
      want: { kind: 'verify' },
    },
    {
      name: 'nothing left but deferred and abandoned members, deleting: verify',
      outcome: outcome({ deferred: ['d'], abandoned: ['e'] }),
      orphan: false,
      want: { kind: 'verify' },
    },
    {
      name: 'nothing left, orphaning: release',
      outcome: outcome(),
      orphan: true,
      want: { kind: 'release' },
    },
    {
      name: 'nothing left but abandoned members, orphaning: release',
      outcome: outcome({ abandoned: ['e'] }),
      orphan: true,
      want: { kind: 'release' },
    },
  ];
  for (const row of rows)
    test(row.name, () => assert.deepEqual(afterMembers(row.outcome, timing, row.orphan), row.want));
});

describe('afterVerify: after the live check', () => {
  const ready = new Set(['a', 'b']);
  const isReady = (c: string) => ready.has(c);
  const rows: Array<{
    name: string;
    left: string[];
    outcome: Pick<DeletionOutcome, 'deferred' | 'abandoned'>;
    want: AfterVerify;
  }> = [
    {
      name: 'nothing left, nothing owed: record nothing (release)',
      left: [],
      outcome: { deferred: [], abandoned: [] },
      want: { kind: 'record', owed: [] },
    },
    {
      name: 'a ready member still holds a copy: wait',
      left: ['a'],
      outcome: { deferred: [], abandoned: [] },
      want: { kind: 'wait', ms: 5_000 },
    },
    {
      name: 'a ready and a not-ready member left: wait for the ready one',
      left: ['a', 'x'],
      outcome: { deferred: ['d'], abandoned: [] },
      want: { kind: 'wait', ms: 5_000 },
    },
    {
      name: 'a member left that is no longer ready: it owes a deletion too',
      left: ['x'],
      outcome: { deferred: [], abandoned: [] },
      want: { kind: 'record', owed: ['x'] },
    },
    {
      name: 'not-ready members left join the deferred ones, without duplicates',
      left: ['d', 'x'],
      outcome: { deferred: ['d'], abandoned: [] },
      want: { kind: 'record', owed: ['d', 'x'] },
    },
    {
      name: 'owed: deferred, then abandoned',
      left: [],
      outcome: { deferred: ['d'], abandoned: ['e'] },
      want: { kind: 'record', owed: ['d', 'e'] },
    },
    {
      name: 'owed: a member both deferred and abandoned is owed once',
      left: ['x'],
      outcome: { deferred: ['d'], abandoned: ['d', 'e', 'x'] },
      want: { kind: 'record', owed: ['d', 'x', 'e'] },
    },
  ];
  for (const row of rows)
    test(row.name, () => assert.deepEqual(afterVerify(row.left, isReady, row.outcome, timing), row.want));
});

describe('releaseEvents: what the release says about members that still owe a deletion', () => {
  const pending = (cluster: string, record: string): ReleaseEvent => ({
    type: 'Warning',
    reason: 'DeletionPending',
    message:
      `Cluster "${cluster}" is not ready: deleting its copy is pending (ConfigMap kube-federation-system/` +
      `${record}) and is carried out when it is ready again`,
  });
  const abandoned = (ending: string): ReleaseEvent => ({
    type: 'Warning',
    reason: 'DeletionAbandoned',
    message: `Released after waiting 90s for clusters that cannot be read: y, z; ${ending}`,
  });
  const RECORDED = 'deleting their copies is pending and is carried out once they can be read';
  const UNRECORDED = 'they may still hold a copy of the object';
  const base = { kubefedNamespace: 'kube-federation-system', waitedMs: 89_600 };
  const rows: Array<{
    name: string;
    deferred: Array<[string, string]>;
    abandoned: string[];
    records: Array<[string, string]>;
    want: ReleaseEvent[];
  }> = [
    { name: 'nothing owed: nothing said', deferred: [], abandoned: [], records: [], want: [] },
    {
      name: 'a DeletionPending per deferred member, naming its record, sorted by cluster',
      deferred: [
        ['b', 'rec-b'],
        ['a', 'rec-a'],
      ],
      abandoned: [],
      records: [
        ['b', 'rec-b'],
        ['a', 'rec-a'],
      ],
      want: [pending('a', 'rec-a'), pending('b', 'rec-b')],
    },
    {
      name: 'abandoned members, all recorded: their deletion is pending',
      deferred: [],
      abandoned: ['z', 'y'],
      records: [
        ['y', 'rec-y'],
        ['z', 'rec-z'],
      ],
      want: [abandoned(RECORDED)],
    },
    {
      name: 'abandoned members, one not recorded: they may still hold a copy',
      deferred: [],
      abandoned: ['z', 'y'],
      records: [['y', 'rec-y']],
      want: [abandoned(UNRECORDED)],
    },
    {
      name: 'abandoned members without any record (orphaning): they may still hold a copy',
      deferred: [],
      abandoned: ['y', 'z'],
      records: [],
      want: [abandoned(UNRECORDED)],
    },
    {
      name: 'deferred and abandoned: the pending ones first, then one DeletionAbandoned',
      deferred: [['a', 'rec-a']],
      abandoned: ['z', 'y'],
      records: [
        ['a', 'rec-a'],
        ['y', 'rec-y'],
        ['z', 'rec-z'],
      ],
      want: [pending('a', 'rec-a'), abandoned(RECORDED)],
    },
  ];
  for (const row of rows)
    test(row.name, () =>
      assert.deepEqual(
        releaseEvents({
          ...base,
          deferred: new Map(row.deferred),
          abandoned: row.abandoned,
          records: new Map(row.records),
        }),
        row.want,
      ),
    );

  test('the abandoned input is not reordered in place', () => {
    const list = ['z', 'y'];
    releaseEvents({ ...base, deferred: new Map(), abandoned: list, records: new Map() });
    assert.deepEqual(list, ['z', 'y']);
  });
});
