import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isClusterReady } from '../../../src/api/core/v1beta1/index.ts';
import { probeConditions } from '../../../src/controllers/kubefedcluster/health.ts';
import {
  AGENT_LEASE_READY_MESSAGE,
  leaseGraceMs,
  leaseProbe,
} from '../../../src/controllers/kubefedcluster/lease-health.ts';

const renewed = '2026-01-01T00:00:00.000000Z';
const at = (seconds: number) => Date.parse('2026-01-01T00:00:00Z') + seconds * 1000;

describe('leaseProbe: a Pull cluster is as healthy as its agent lease (OCM: 5 × leaseDurationSeconds)', () => {
  test('the grace is five lease durations, 60 s when the lease does not say', () => {
    assert.equal(leaseGraceMs({ spec: { leaseDurationSeconds: 2 } }), 10_000);
    assert.equal(leaseGraceMs({ spec: {} }), 300_000);
    assert.equal(leaseGraceMs({ spec: { leaseDurationSeconds: 0 } }), 300_000);
  });

  test('ready while now < renewTime + grace, with its own message', () => {
    const lease = { spec: { renewTime: renewed, leaseDurationSeconds: 2 } };
    assert.deepEqual(leaseProbe('c1', lease, at(0)), { kind: 'ready', message: AGENT_LEASE_READY_MESSAGE });
    assert.equal(leaseProbe('c1', lease, at(9.999)).kind, 'ready');
    const conditions = probeConditions(leaseProbe('c1', lease, at(1)), '2026-01-01T00:00:01Z');
    assert.ok(isClusterReady(conditions));
    assert.equal(conditions[0]?.reason, 'ClusterReady');
    assert.equal(conditions[0]?.message, AGENT_LEASE_READY_MESSAGE);
  });

  test('expired exactly at renewTime + grace (OCM: !now.Before(renew + grace)): Offline, not reachable', () => {
    const lease = { spec: { renewTime: renewed, leaseDurationSeconds: 2 } };
    const r = leaseProbe('c1', lease, at(10));
    assert.equal(r.kind, 'unreachable');
    assert.match(
      r.kind === 'unreachable' ? r.error : '',
      /stopped renewing its Lease c1\/managed-cluster-lease/,
    );
    const conditions = probeConditions(r, '2026-01-01T00:00:10Z');
    assert.ok(!isClusterReady(conditions));
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason]),
      [['Offline', 'True', 'ClusterNotReachable']],
    );
  });

  test('a missing lease or one never renewed is not ready', () => {
    const missing = leaseProbe('c1', undefined, at(0));
    assert.equal(missing.kind, 'unreachable');
    assert.match(missing.kind === 'unreachable' ? missing.error : '', /no Lease c1\/managed-cluster-lease/);
    const fresh = leaseProbe('c1', { spec: { leaseDurationSeconds: 60 } }, at(0));
    assert.equal(fresh.kind, 'unreachable');
    assert.match(fresh.kind === 'unreachable' ? fresh.error : '', /has not renewed/);
    assert.equal(leaseProbe('c1', { spec: { renewTime: 'garbage' } }, at(0)).kind, 'unreachable');
  });

  test('a renewal in the future (clock skew) counts as fresh, as in OCM', () => {
    assert.equal(leaseProbe('c1', { spec: { renewTime: renewed } }, at(-30)).kind, 'ready');
  });
});
