import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clusterEvictions,
  clusterRecovered,
  noExecuteTolerationLeftMs,
} from '../../../../../src/sources/policy/failover/cluster-evictions.ts';
import { at, binding, cluster, noExecute } from './fixtures.ts';

const NOT_READY = 'cluster.karmada.io/not-ready';

describe('clusterEvictions (taint manager needEviction)', () => {
  test('an untolerated NoExecute taint evicts at once; NoSchedule never evicts', () => {
    const b = binding();
    const clusters = [
      cluster('c1', { taints: [noExecute('outage')] }),
      cluster('c2', { taints: [{ key: 'outage', effect: 'NoSchedule' }] }),
      cluster('c3'),
    ];
    const d = clusterEvictions(b, clusters, at(1));
    assert.deepEqual(
      d.evict.map((e) => [e.cluster, e.taint.key]),
      [['c1', 'outage']],
    );
    assert.equal(d.recheckAfterMs, undefined);
  });

  test('the default not-ready toleration (300 s) counts from timeAdded; the recheck is when it runs out', () => {
    const b = binding();
    const clusters = [cluster('c1', { ready: false, taints: [noExecute(NOT_READY, 0)] })];
    const early = clusterEvictions(b, clusters, at(100));
    assert.deepEqual(early.evict, []);
    assert.equal(early.recheckAfterMs, 200_000);
    assert.deepEqual(
      clusterEvictions(b, clusters, at(300)).evict.map((e) => e.cluster),
      ['c1'],
    );
  });

  test("the policy's own toleration replaces the default, and one without seconds tolerates forever", () => {
    const short = binding({
      placement: {
        clusterTolerations: [
          { key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
        ],
      },
    });
    const forever = binding({
      placement: { clusterTolerations: [{ key: NOT_READY, operator: 'Exists', effect: 'NoExecute' }] },
    });
    const clusters = [cluster('c2', { taints: [noExecute(NOT_READY, 0)] })];
    assert.deepEqual(clusterEvictions(short, clusters, at(4)).evict, []);
    assert.equal(clusterEvictions(short, clusters, at(4)).recheckAfterMs, 1_000);
    assert.equal(clusterEvictions(short, clusters, at(5)).evict.length, 1);
    assert.deepEqual(clusterEvictions(forever, clusters, at(10_000)), { evict: [] });
  });

  test('only scheduled clusters are looked at', () => {
    const b = binding({ clusters: [{ name: 'c3', replicas: 6 }] });
    assert.deepEqual(
      clusterEvictions(b, [cluster('c1', { taints: [noExecute('x')] }), cluster('c3')], at(0)),
      {
        evict: [],
      },
    );
  });

  test('a taint without timeAdded counts from now', () => {
    const tol = [{ key: 'k', operator: 'Exists' as const, effect: 'NoExecute', tolerationSeconds: 30 }];
    assert.equal(noExecuteTolerationLeftMs([{ key: 'k', effect: 'NoExecute' }], tol, at(0)).leftMs, 30_000);
  });
});

describe('clusterRecovered', () => {
  const b = binding();
  test('Ready and no NoExecute taint left', () => {
    assert.equal(clusterRecovered(cluster('c1'), b.spec, at(0)), true);
  });
  test('not Ready, gone, or still untolerated: not recovered', () => {
    assert.equal(clusterRecovered(cluster('c1', { ready: false }), b.spec, at(0)), false);
    assert.equal(clusterRecovered(undefined, b.spec, at(0)), false);
    assert.equal(clusterRecovered(cluster('c1', { taints: [noExecute('outage')] }), b.spec, at(0)), false);
    assert.equal(
      clusterRecovered(cluster('c1', { taints: [noExecute(NOT_READY, 0)] }), b.spec, at(400)),
      false,
    );
  });
  test('a NoExecute taint still within its toleration does not stop recovery', () => {
    assert.equal(
      clusterRecovered(cluster('c1', { taints: [noExecute(NOT_READY, 0)] }), b.spec, at(10)),
      true,
    );
  });
});
