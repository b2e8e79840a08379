import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { explainPlan, plan } from '../../../../src/scheduling/planner.ts';
import { aggregateByRoom, divideByRoom } from '../../../../src/sources/policy/division.ts';

const rooms = (...r: [string, number, number?][]) =>
  r.map(([name, room, previous]) => ({ name, room, previous: previous ?? 0 }));
const steady = { fresh: false, key: 'ns/app' };
const fresh = { fresh: true, key: 'ns/app' };
const asObject = (d: ReturnType<typeof divideByRoom>) => (d.ok ? Object.fromEntries(d.replicas) : d);

describe('division by room', () => {
  test('in proportion to room, never above it', () => {
    assert.deepEqual(asObject(divideByRoom(12, rooms(['a', 6], ['b', 12], ['c', 18]), steady)), {
      c: 6,
      b: 4,
      a: 2,
    });
    assert.deepEqual(asObject(divideByRoom(36, rooms(['a', 6], ['b', 12], ['c', 18]), steady)), {
      c: 18,
      b: 12,
      a: 6,
    });
  });

  test('not enough room: Karmada wording', () => {
    assert.deepEqual(divideByRoom(37, rooms(['a', 6], ['b', 12], ['c', 18]), steady), {
      ok: false,
      message: 'Clusters available replicas 36 are not enough to schedule.',
    });
  });

  test('steady: scale up and down keep existing replicas; fresh divides again', () => {
    // a has 5 already (more than its share), rooms shown include them.
    const current = rooms(['a', 10, 5], ['b', 10, 1], ['c', 10]);
    assert.deepEqual(asObject(divideByRoom(9, current, steady)), { a: 5, b: 2, c: 2 });
    assert.deepEqual(asObject(divideByRoom(6, current, steady)), { a: 5, b: 1 });
    assert.deepEqual(asObject(divideByRoom(9, current, fresh)), { a: 3, b: 3, c: 3 });
  });

  test('room 0 gets nothing', () => {
    assert.deepEqual(asObject(divideByRoom(3, rooms(['a', 0], ['b', 5]), steady)), { b: 3 });
  });

  test('Aggregated: fewest clusters, the ones already holding replicas first, then the roomiest', () => {
    assert.deepEqual(asObject(aggregateByRoom(12, rooms(['a', 6], ['b', 12], ['c', 18]), steady)), { c: 12 });
    assert.deepEqual(asObject(aggregateByRoom(20, rooms(['a', 6], ['b', 12], ['c', 18]), steady)), {
      c: 12,
      b: 8,
    });
    assert.deepEqual(asObject(aggregateByRoom(6, rooms(['a', 6, 2], ['b', 12], ['c', 18]), steady)), {
      a: 6,
    });
    // steady scale up: the clusters holding replicas all stay, whatever their room says
    assert.deepEqual(asObject(aggregateByRoom(30, rooms(['a', 6], ['b', 21, 9], ['c', 33, 15]), steady)), {
      c: 18,
      b: 12,
    });
    // fresh: the previous placement no longer counts
    assert.deepEqual(asObject(aggregateByRoom(6, rooms(['a', 6, 2], ['b', 12], ['c', 18]), fresh)), { c: 6 });
    assert.deepEqual(aggregateByRoom(40, rooms(['a', 6], ['b', 12], ['c', 18]), steady), {
      ok: false,
      message: 'Clusters available replicas 36 are not enough to schedule.',
    });
  });
});

describe('the RSP planner is unchanged by its second user', () => {
  test('KubeFed facts: weights 1:1 with 5 replicas, min/max and rebalance', () => {
    const base = {
      preferences: { '*': { minReplicas: 0, weight: 1 } },
      totalReplicas: 5,
      rebalance: false,
      clusters: ['A', 'B'],
      current: {},
      capacity: {},
      key: 'ns/name',
    };
    const r = plan(base);
    assert.equal((r.plan.A ?? 0) + (r.plan.B ?? 0), 5);
    assert.deepEqual(plan({ ...base, current: { A: 5 } }).plan, { A: 5, B: 0 });
    assert.deepEqual(plan({ ...base, current: { A: 5 }, rebalance: true }).plan, r.plan);
    assert.equal(explainPlan({ ...base, current: { A: 5 } })[0]?.reason, 'kept current 5 (rebalance off)');
  });
});
