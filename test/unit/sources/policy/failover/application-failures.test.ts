import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ResourceBinding } from '../../../../../src/api/work/v1alpha2/resourcebinding.ts';
import {
  applicationFailures,
  applicationTaskOptions,
} from '../../../../../src/sources/policy/failover/application-failures.ts';
import { binding, T0 } from './fixtures.ts';

const withHealth = (health: Record<string, string>, extra: Partial<ResourceBinding['spec']> = {}) =>
  binding(
    { failover: { application: { decisionConditions: { tolerationSeconds: 60 } } }, ...extra },
    {
      aggregatedStatus: Object.entries(health).map(([clusterName, h]) => ({
        clusterName,
        applied: true,
        health: h,
      })),
    },
  );
const s = (n: number) => T0 + n * 1_000;

describe('applicationFailures (detectFailure)', () => {
  test('the clock starts at the first Unhealthy sight and evicts after tolerationSeconds', () => {
    const b = withHealth({ c1: 'Healthy', c2: 'Unhealthy', c3: 'Healthy' });
    const first = applicationFailures(b, new Map(), s(0));
    assert.deepEqual(first.evict, []);
    assert.deepEqual([...first.unhealthySince], [['c2', s(0)]]);
    assert.equal(first.recheckAfterMs, 60_000);
    const middle = applicationFailures(b, first.unhealthySince, s(30));
    assert.deepEqual(middle.evict, []);
    assert.equal(middle.recheckAfterMs, 30_000);
    assert.deepEqual(applicationFailures(b, first.unhealthySince, s(61)).evict, ['c2']);
  });

  test('Healthy stops the clock; Unknown keeps it running', () => {
    const since = new Map([['c2', s(0)]]);
    assert.deepEqual(
      [...applicationFailures(withHealth({ c2: 'Healthy' }), since, s(30)).unhealthySince],
      [],
    );
    const unknown = applicationFailures(withHealth({ c2: 'Unknown' }), since, s(30));
    assert.deepEqual([...unknown.unhealthySince], [['c2', s(0)]]);
    assert.deepEqual(
      applicationFailures(withHealth({ c1: 'Healthy', c2: 'Unhealthy' }), unknown.unhealthySince, s(61))
        .evict,
      ['c2'],
    );
  });

  test('a copy unhealthy everywhere evicts nothing (a bad workload, not a bad cluster); the clocks keep running', () => {
    const since = new Map([
      ['c1', s(0)],
      ['c2', s(0)],
    ]);
    const everywhere = applicationFailures(withHealth({ c1: 'Unhealthy', c2: 'Unhealthy' }), since, s(61));
    assert.deepEqual(everywhere.evict, []);
    assert.deepEqual([...everywhere.unhealthySince.keys()], ['c1', 'c2']);
    // Healthy only where it is being evicted already does not count either.
    const b = withHealth(
      { c1: 'Healthy', c2: 'Unhealthy' },
      { gracefulEvictionTasks: [{ fromCluster: 'c1', reason: 'ApplicationFailure', producer: 'x' }] },
    );
    assert.deepEqual(applicationFailures(b, since, s(61)).evict, []);
    // As soon as another copy runs Healthy, the long-unhealthy one goes.
    assert.deepEqual(
      applicationFailures(withHealth({ c1: 'Unhealthy', c2: 'Unhealthy', c3: 'Healthy' }), since, s(61))
        .evict,
      ['c1', 'c2'],
    );
  });

  test('clusters no longer scheduled or already being evicted are not counted', () => {
    const since = new Map([['c2', s(0)]]);
    const b = withHealth(
      { c2: 'Unhealthy' },
      {
        clusters: [{ name: 'c1', replicas: 6 }],
        gracefulEvictionTasks: [{ fromCluster: 'c2', reason: 'ApplicationFailure', producer: 'x' }],
      },
    );
    const f = applicationFailures(b, since, s(100));
    assert.deepEqual(f.evict, []);
    assert.equal(f.unhealthySince.size, 0);
  });

  test('tolerationSeconds defaults to 300', () => {
    const b = binding(
      { failover: { application: { decisionConditions: {} } } },
      {
        aggregatedStatus: [
          { clusterName: 'c1', health: 'Unhealthy' },
          { clusterName: 'c2', health: 'Healthy' },
        ],
      },
    );
    const since = new Map([['c1', s(0)]]);
    assert.deepEqual(applicationFailures(b, since, s(299)).evict, []);
    assert.deepEqual(applicationFailures(b, since, s(301)).evict, ['c1']);
  });
});

describe('applicationTaskOptions (buildTaskOptions)', () => {
  test('Gracefully carries the grace period (default 600), Never suppresses deletion, Directly neither', () => {
    const dc = { decisionConditions: {} };
    assert.equal(applicationTaskOptions(dc, 'now').gracePeriodSeconds, 600);
    assert.equal(applicationTaskOptions({ ...dc, gracePeriodSeconds: 20 }, 'now').gracePeriodSeconds, 20);
    const never = applicationTaskOptions({ ...dc, purgeMode: 'Never' }, 'now');
    assert.deepEqual([never.suppressDeletion, never.gracePeriodSeconds], [true, undefined]);
    const direct = applicationTaskOptions({ ...dc, purgeMode: 'Directly' }, 'now');
    assert.deepEqual(
      [direct.purgeMode, direct.suppressDeletion, direct.gracePeriodSeconds],
      ['Directly', undefined, undefined],
    );
    assert.equal(direct.reason, 'ApplicationFailure');
    assert.equal(direct.producer, 'resource-binding-application-failover-controller');
  });
});
