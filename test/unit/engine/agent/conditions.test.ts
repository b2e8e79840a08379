import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ManifestCondition } from '../../../../src/api/ocm/work/v1/index.ts';
import type { MetaCondition } from '../../../../src/api/policy/v1alpha1/propagationpolicy.ts';
import {
  isManifestComplete,
  manifestConditions,
  workConditions,
} from '../../../../src/engine/agent/conditions.ts';
import type { ApplyResult, FeedbackResult } from '../../../../src/engine/agent/types.ts';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00Z');
const ok: ApplyResult = {
  applied: true,
  reason: 'AppliedManifestComplete',
  message: 'Apply manifest complete',
  live: { metadata: { name: 'x' } },
  written: true,
};
const failed: ApplyResult = {
  applied: false,
  reason: 'AppliedManifestFailed',
  message: 'Failed to apply manifest: boom',
  written: false,
};
const synced: FeedbackResult = {
  values: [],
  condition: { type: 'StatusFeedbackSynced', status: 'True', reason: 'NoStatusFeedbackSynced', message: '' },
};
const types = (cs: readonly MetaCondition[]) => cs.map((c) => `${c.type}=${c.status}`);

describe('manifestConditions', () => {
  test('Applied with observedGeneration, Available, StatusFeedbackSynced, then rule conditions', () => {
    const got = manifestConditions(undefined, {
      generation: 2,
      apply: ok,
      feedback: synced,
      rules: [
        {
          type: 'Complete',
          status: 'False',
          reason: 'ConditionRuleEvaluated',
          message: 'no',
          observedGeneration: 2,
        },
      ],
      now: t0,
    });
    assert.deepEqual(got, [
      {
        type: 'Applied',
        status: 'True',
        reason: 'AppliedManifestComplete',
        message: 'Apply manifest complete',
        observedGeneration: 2,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Available',
        status: 'True',
        reason: 'ResourceAvailable',
        message: 'Resource is available',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'StatusFeedbackSynced',
        status: 'True',
        reason: 'NoStatusFeedbackSynced',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Complete',
        status: 'False',
        reason: 'ConditionRuleEvaluated',
        message: 'no',
        observedGeneration: 2,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  test('lastTransitionTime kept while the status stays, moved when it changes', () => {
    const first = manifestConditions(undefined, {
      generation: 1,
      apply: ok,
      feedback: synced,
      rules: [],
      now: t0,
    });
    const same = manifestConditions(first, {
      generation: 2,
      apply: ok,
      feedback: synced,
      rules: [],
      now: t1,
    });
    assert.ok(same.every((c) => c.lastTransitionTime === '2026-01-01T00:00:00Z'));
    assert.equal(same[0]?.observedGeneration, 2);
    const broke = manifestConditions(same, {
      generation: 2,
      apply: failed,
      feedback: { values: [] },
      rules: [],
      now: t1,
    });
    assert.deepEqual(types(broke), ['Applied=False', 'Available=False', 'StatusFeedbackSynced=True']);
    assert.equal(broke[0]?.lastTransitionTime, '2026-01-01T00:05:00Z');
    assert.equal(broke[0]?.message, 'Failed to apply manifest: boom');
    assert.equal(
      broke[2]?.lastTransitionTime,
      '2026-01-01T00:00:00Z',
      'no feedback: the previous condition is kept',
    );
  });

  test('changed feedback values move StatusFeedbackSynced to the end with a new time', () => {
    const first = manifestConditions(undefined, {
      generation: 1,
      apply: ok,
      feedback: synced,
      rules: [],
      now: t0,
    });
    const values = [{ name: 'Replicas', fieldValue: { type: 'Integer' as const, integer: 2 } }];
    const withRule = [
      {
        type: 'Ready',
        status: 'True',
        reason: 'ConditionRuleEvaluated',
        message: 'y',
        observedGeneration: 1,
      },
    ];
    const got = manifestConditions([...first, { ...withRule[0], lastTransitionTime: 'x' } as MetaCondition], {
      generation: 1,
      apply: ok,
      feedback: {
        values,
        condition: {
          type: 'StatusFeedbackSynced',
          status: 'True',
          reason: 'StatusFeedbackSynced',
          message: '',
        },
      },
      rules: withRule,
      now: t1,
      previousValues: [],
    });
    assert.deepEqual(types(got), [
      'Applied=True',
      'Available=True',
      'Ready=True',
      'StatusFeedbackSynced=True',
    ]);
    assert.equal(got[3]?.lastTransitionTime, '2026-01-01T00:05:00Z');
  });

  test('rule conditions of an older generation are pruned', () => {
    const old: MetaCondition[] = [
      {
        type: 'Gone',
        status: 'True',
        reason: 'ConditionRuleEvaluated',
        message: '',
        observedGeneration: 1,
        lastTransitionTime: 'x',
      },
      {
        type: 'Other',
        status: 'True',
        reason: 'SomethingElse',
        message: '',
        observedGeneration: 1,
        lastTransitionTime: 'x',
      },
    ];
    const got = manifestConditions(old, { generation: 2, apply: ok, feedback: synced, rules: [], now: t0 });
    assert.deepEqual(types(got), [
      'Other=True',
      'Applied=True',
      'Available=True',
      'StatusFeedbackSynced=True',
    ]);
  });
});

const manifest = (ordinal: number, ...conditions: [string, string][]): ManifestCondition => ({
  resourceMeta: { ordinal },
  conditions: conditions.map(([type, status]) => ({
    type,
    status,
    reason: 'r',
    message: '',
    lastTransitionTime: 'x',
  })),
});

describe('workConditions', () => {
  test('all applied and available', () => {
    const got = workConditions(
      undefined,
      [
        manifest(0, ['Applied', 'True'], ['Available', 'True']),
        manifest(1, ['Applied', 'True'], ['Available', 'True']),
      ],
      {
        generation: 3,
        now: t0,
      },
    );
    assert.deepEqual(
      got.map(({ type, status, reason, observedGeneration }) => ({
        type,
        status,
        reason,
        observedGeneration,
      })),
      [
        { type: 'Applied', status: 'True', reason: 'AppliedManifestWorkComplete', observedGeneration: 3 },
        { type: 'Progressing', status: 'False', reason: 'Completed', observedGeneration: 3 },
        { type: 'Available', status: 'True', reason: 'ResourcesAvailable', observedGeneration: 3 },
      ],
    );
  });

  test('one manifest failed: Applied False, Progressing Failed, Available counts', () => {
    const got = workConditions(
      undefined,
      [
        manifest(0, ['Applied', 'False'], ['Available', 'False']),
        manifest(1, ['Applied', 'True'], ['Available', 'True']),
      ],
      {
        generation: 1,
        now: t0,
      },
    );
    assert.deepEqual(types(got), ['Applied=False', 'Progressing=True', 'Available=False']);
    assert.equal(got[0]?.reason, 'AppliedManifestWorkFailed');
    assert.equal(got[1]?.reason, 'Failed');
    assert.equal(got[2]?.message, '1 of 2 resources are not available');
  });

  test('nothing applied yet: no work conditions; a pending manifest is Applying', () => {
    assert.deepEqual(workConditions(undefined, [manifest(0)], { now: t0 }), []);
    const got = workConditions(undefined, [manifest(0, ['Applied', 'True']), manifest(1)], { now: t0 });
    assert.equal(got.find((c) => c.type === 'Progressing')?.reason, 'Applying');
  });

  test('Complete when every completable manifest is complete; Deleting while deleting', () => {
    const done = [manifest(0, ['Applied', 'True'], ['Complete', 'True']), manifest(1, ['Applied', 'True'])];
    const got = workConditions(undefined, done, { generation: 1, now: t0, deleting: true });
    assert.equal(got.find((c) => c.type === 'Complete')?.reason, 'ManifestsComplete');
    assert.equal(got.find((c) => c.type === 'Deleting')?.status, 'True');
    const notYet = workConditions(
      got,
      [manifest(0, ['Applied', 'True'], ['Complete', 'False']), manifest(1, ['Applied', 'True'])],
      {
        generation: 1,
        now: t1,
      },
    );
    assert.equal(
      notYet.find((c) => c.type === 'Complete'),
      undefined,
    );
    assert.equal(
      notYet.find((c) => c.type === 'Deleting'),
      undefined,
    );
    assert.equal(notYet[0]?.lastTransitionTime, '2026-01-01T00:00:00Z', 'Applied kept its time');
  });

  test('isManifestComplete', () => {
    assert.ok(isManifestComplete([{ type: 'Complete', status: 'True' }]));
    assert.ok(!isManifestComplete([{ type: 'Complete', status: 'False' }]));
    assert.ok(!isManifestComplete(undefined));
  });
});
