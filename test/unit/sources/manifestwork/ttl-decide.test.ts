import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ManifestWork } from '../../../../src/api/ocm/work/v1/index.ts';
import { ttlDecision } from '../../../../src/sources/manifestwork/ttl/decide.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');

function work(opts: {
  ttl?: number;
  complete?: string;
  since?: string;
  labels?: Record<string, string>;
}): ManifestWork {
  return {
    metadata: { name: 'w', namespace: 'c1', labels: opts.labels },
    spec:
      opts.ttl === undefined
        ? {}
        : { deleteOption: { propagationPolicy: 'Foreground', ttlSecondsAfterFinished: opts.ttl } },
    status: opts.complete
      ? {
          conditions: [
            {
              type: 'Complete',
              status: opts.complete,
              reason: 'ManifestsComplete',
              message: '',
              lastTransitionTime: opts.since ?? '2026-01-01T11:59:00Z',
            },
          ],
        }
      : {},
  };
}

test('no TTL, or not Complete: kept', () => {
  assert.deepEqual(ttlDecision(work({ complete: 'True' }), NOW), { kind: 'keep' });
  assert.deepEqual(ttlDecision(work({ ttl: 5 }), NOW), { kind: 'keep' });
  assert.deepEqual(ttlDecision(work({ ttl: 5, complete: 'False' }), NOW), { kind: 'keep' });
});

test('TTL counted from the Complete condition’s lastTransitionTime; 0 deletes at once', () => {
  assert.deepEqual(ttlDecision(work({ ttl: 0, complete: 'True', since: '2026-01-01T12:00:00Z' }), NOW), {
    kind: 'delete',
  });
  assert.deepEqual(ttlDecision(work({ ttl: 30, complete: 'True' }), NOW), { kind: 'delete' });
  assert.deepEqual(ttlDecision(work({ ttl: 90, complete: 'True' }), NOW), { kind: 'wait', ms: 30_000 });
});

test('a ManifestWorkReplicaSet’s work is never collected', () => {
  const w = work({
    ttl: 0,
    complete: 'True',
    labels: { 'work.open-cluster-management.io/manifestworkreplicaset': 'ns.set' },
  });
  assert.deepEqual(ttlDecision(w, NOW), { kind: 'keep' });
});

test('a work already being deleted is left alone', () => {
  const w = work({ ttl: 0, complete: 'True' });
  w.metadata.deletionTimestamp = '2026-01-01T11:00:00Z';
  assert.deepEqual(ttlDecision(w, NOW), { kind: 'keep' });
});
