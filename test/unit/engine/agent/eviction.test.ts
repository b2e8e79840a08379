import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppliedManifestWork } from '../../../../src/api/ocm/work/v1/index.ts';
import { evictionDecision } from '../../../../src/engine/agent/eviction.ts';

const amw = (
  spec: { hubHash: string; agentID?: string },
  evictionStartTime?: string,
): AppliedManifestWork => ({
  metadata: { name: `${spec.hubHash}-w` },
  spec: { ...spec, manifestWorkName: 'w' },
  ...(evictionStartTime ? { status: { evictionStartTime } } : {}),
});
const base = {
  agentId: 'a',
  hubHash: 'h',
  workExists: true,
  now: Date.parse('2026-01-01T00:10:00Z'),
  gracePeriodMs: 600_000,
};

test('an AMW of another agent is left alone, even when its work is gone', () => {
  assert.deepEqual(evictionDecision(amw({ hubHash: 'h', agentID: 'b' }), { ...base, workExists: false }), {
    kind: 'ignore',
  });
});

test('a present work keeps its AMW and clears a started eviction', () => {
  assert.deepEqual(evictionDecision(amw({ hubHash: 'h', agentID: 'a' }), base), {
    kind: 'keep',
    clear: false,
  });
  assert.deepEqual(evictionDecision(amw({ hubHash: 'h', agentID: 'a' }, '2026-01-01T00:00:00Z'), base), {
    kind: 'keep',
    clear: true,
  });
});

test('a missing work or another hub starts the grace period, waits it out, then evicts', () => {
  assert.deepEqual(evictionDecision(amw({ hubHash: 'h', agentID: 'a' }), { ...base, workExists: false }), {
    kind: 'start',
  });
  assert.deepEqual(evictionDecision(amw({ hubHash: 'other', agentID: 'a' }), base), { kind: 'start' });
  assert.deepEqual(
    evictionDecision(amw({ hubHash: 'h', agentID: 'a' }, '2026-01-01T00:05:00Z'), {
      ...base,
      workExists: false,
    }),
    {
      kind: 'wait',
      ms: 300_000,
    },
  );
  assert.deepEqual(
    evictionDecision(amw({ hubHash: 'h', agentID: 'a' }, '2026-01-01T00:00:00Z'), {
      ...base,
      workExists: false,
    }),
    {
      kind: 'evict',
    },
  );
});
