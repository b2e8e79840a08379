import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ClusterPreferences,
  explainPlan,
  fnv1_32,
  type PlannerInput,
  plan,
} from '../../../src/scheduling/planner.ts';

type Prefs = Record<string, Partial<ClusterPreferences>>;

/** Preferences with KubeFed's zero defaults, as the Go struct literals in planner_test.go have them. */
function prefs(p: Prefs): Record<string, ClusterPreferences> {
  const out: Record<string, ClusterPreferences> = {};
  for (const [name, v] of Object.entries(p)) {
    out[name] = { minReplicas: v.minReplicas ?? 0, weight: v.weight ?? 0 };
    if (v.maxReplicas !== undefined) out[name].maxReplicas = v.maxReplicas;
  }
  return out;
}

interface Case {
  prefs: Prefs;
  total: number;
  clusters: string[];
  current?: Record<string, number>;
  capacity?: Record<string, number>;
  rebalance?: boolean;
  key?: string;
}

function input(c: Case): PlannerInput {
  return {
    preferences: prefs(c.prefs),
    totalReplicas: c.total,
    rebalance: c.rebalance ?? false,
    clusters: c.clusters,
    current: c.current ?? {},
    capacity: c.capacity ?? {},
    key: c.key ?? '',
  };
}

/** KubeFed's doCheck / doCheckWithExisting: no overflow expected. */
function check(c: Case, expected: Record<string, number>): void {
  const result = plan(input(c));
  assert.deepEqual(result.plan, expected);
  assert.deepEqual(result.overflow, {});
}

function checkWithOverflow(c: Case, expected: Record<string, number>, overflow: Record<string, number>) {
  const result = plan(input(c));
  assert.deepEqual(result.plan, expected);
  assert.deepEqual(result.overflow, overflow);
}

const ABC = ['A', 'B', 'C'];

describe('fnv1_32 (Go hash/fnv New32, FNV-1)', () => {
  test('single letters with key "" sort E < D < C < B < A', () => {
    assert.equal(fnv1_32('A'), 84696414);
    assert.equal(fnv1_32('B'), 84696413);
    assert.equal(fnv1_32('C'), 84696412);
    assert.equal(fnv1_32('D'), 84696411);
    assert.equal(fnv1_32('E'), 84696410);
  });

  test('standard FNV-1 32-bit vectors (not FNV-1a)', () => {
    assert.equal(fnv1_32(''), 0x811c9dc5);
    assert.equal(fnv1_32('a'), 0x050c5d7e);
    assert.equal(fnv1_32('foobar'), 0x31f0b262);
  });

  test('hashes the UTF-8 bytes and stays an unsigned 32-bit integer', () => {
    assert.equal(fnv1_32('é'), 3463954941);
    assert.equal(fnv1_32('ap-northeastdefault/web'), 4123934281);
    assert.equal(fnv1_32('cluster1ns/name'), 1169708247);
  });
});

// Ported from KubeFed pkg/controller/util/planner/planner_test.go (key "", no current, no capacity unless given).
describe('KubeFed planner_test.go: TestEqual', () => {
  const star = { '*': { weight: 1 } };
  test('50 over A,B,C: the lowest hashes (C, B) get the odd replicas', () =>
    check({ prefs: star, total: 50, clusters: ABC }, { A: 16, B: 17, C: 17 }));
  test('50 over A,B', () => check({ prefs: star, total: 50, clusters: ['A', 'B'] }, { A: 25, B: 25 }));
  test('1 over A,B goes to B', () => check({ prefs: star, total: 1, clusters: ['A', 'B'] }, { A: 0, B: 1 }));
  test('1 over A..D goes to D', () =>
    check({ prefs: star, total: 1, clusters: ['A', 'B', 'C', 'D'] }, { A: 0, B: 0, C: 0, D: 1 }));
  test('1 over A', () => check({ prefs: star, total: 1, clusters: ['A'] }, { A: 1 }));
  test('no clusters, empty plan', () => check({ prefs: star, total: 1, clusters: [] }, {}));
});

describe('KubeFed planner_test.go: TestEqualWithExisting (rebalance false)', () => {
  const star = { '*': { weight: 1 } };
  const cases: Array<[number, string[], Record<string, number>, Record<string, number>]> = [
    [50, ABC, { C: 30 }, { A: 10, B: 10, C: 30 }],
    [50, ['A', 'B'], { A: 30 }, { A: 30, B: 20 }],
    [15, ['A', 'B'], { A: 0, B: 8 }, { A: 7, B: 8 }],
    [15, ['A', 'B'], { A: 1, B: 8 }, { A: 7, B: 8 }],
    [15, ['A', 'B'], { A: 4, B: 8 }, { A: 7, B: 8 }],
    [15, ['A', 'B'], { A: 5, B: 8 }, { A: 7, B: 8 }],
    [15, ['A', 'B'], { A: 6, B: 8 }, { A: 7, B: 8 }],
    [15, ['A', 'B'], { A: 7, B: 8 }, { A: 7, B: 8 }],
    [500000, ['A', 'B'], { A: 300000 }, { A: 300000, B: 200000 }],
    [50, ['A', 'B'], { A: 10 }, { A: 25, B: 25 }],
    // KubeFed's own TODO: should be 10:40 (kubernetes issue #31816); the algorithm gives 0:50.
    [50, ['A', 'B'], { A: 10, B: 70 }, { A: 0, B: 50 }],
    [1, ['A', 'B'], { A: 30 }, { A: 1, B: 0 }],
    [50, ['A', 'B'], { A: 10, B: 20 }, { A: 25, B: 25 }],
  ];
  for (const [total, clusters, current, expected] of cases) {
    test(`${total} over ${clusters.join(',')} with current ${JSON.stringify(current)}`, () =>
      check({ prefs: star, total, clusters, current }, expected));
  }
});

describe('KubeFed planner_test.go: TestWithExistingAndCapacity', () => {
  test('rebalance: capacity C=10 pushes the rest to A and B; overflow C=7 (the A20 B20 C10 example)', () =>
    checkWithOverflow(
      { prefs: { '*': { weight: 1 } }, total: 50, clusters: ABC, capacity: { C: 10 }, rebalance: true },
      { A: 20, B: 20, C: 10 },
      { C: 7 },
    ));
  test('rebalance: B is the only weighted candidate and is capped at 10, overflow B=40', () =>
    checkWithOverflow(
      {
        prefs: { A: { weight: 10000 }, B: { weight: 1 } },
        total: 50,
        clusters: ['B', 'C'],
        capacity: { B: 10 },
        rebalance: true,
      },
      { B: 10, C: 0 },
      { B: 40 },
    ));
  test('rebalance: weights 1:2 with B capped at 10 gives A 50, overflow B=30', () =>
    checkWithOverflow(
      {
        prefs: { A: { weight: 1 }, B: { weight: 2 } },
        total: 60,
        clusters: ABC,
        capacity: { B: 10 },
        rebalance: true,
      },
      { A: 50, B: 10, C: 0 },
      { B: 30 },
    ));
  test('rebalance: max and capacity together', () =>
    checkWithOverflow(
      {
        prefs: {
          A: { weight: 10000, maxReplicas: 10 },
          B: { weight: 1 },
          C: { weight: 1, maxReplicas: 21 },
          D: { weight: 1, maxReplicas: 10 },
        },
        total: 71,
        clusters: ['A', 'B', 'C', 'D'],
        capacity: { C: 10 },
        rebalance: true,
      },
      { A: 10, B: 41, C: 10, D: 10 },
      { C: 11 },
    ));
  test('no rebalance: every candidate full, the 40 unplaced replicas show as overflow A=20 B=20', () =>
    checkWithOverflow(
      {
        prefs: { A: { weight: 1 }, B: { weight: 1 } },
        total: 60,
        clusters: ABC,
        capacity: { A: 10, B: 10 },
      },
      { A: 10, B: 10, C: 0 },
      { A: 20, B: 20 },
    ));
  test('no rebalance: overflow is trimmed to nothing when A absorbs it', () =>
    checkWithOverflow(
      {
        prefs: { A: { weight: 1 }, B: { weight: 5 } },
        total: 60,
        clusters: ABC,
        capacity: { B: 10 },
      },
      { A: 50, B: 10, C: 0 },
      {},
    ));
  test('no rebalance, weight 0: the minimum is cut to the capacity and nothing overflows', () =>
    checkWithOverflow(
      { prefs: { '*': { minReplicas: 20, weight: 0 } }, total: 50, clusters: ABC, capacity: { B: 10 } },
      { A: 20, B: 10, C: 20 },
      {},
    ));
  test('rebalance, minimum 20 with B capped at 10: overflow B=15', () =>
    checkWithOverflow(
      {
        prefs: { '*': { minReplicas: 20, weight: 1 } },
        total: 60,
        clusters: ['A', 'B'],
        capacity: { B: 10 },
        rebalance: true,
      },
      { A: 50, B: 10 },
      { B: 15 },
    ));
});

describe('KubeFed planner_test.go: TestMin', () => {
  test('weight 0: only the minimums', () =>
    check({ prefs: { '*': { minReplicas: 2 } }, total: 50, clusters: ABC }, { A: 2, B: 2, C: 2 }));
  test('minimums exceed the total: the highest hash (A) gets less than its minimum', () =>
    check({ prefs: { '*': { minReplicas: 20 } }, total: 50, clusters: ABC }, { A: 10, B: 20, C: 20 }));
  test('the heavier cluster takes its minimum first', () =>
    check(
      { prefs: { '*': { minReplicas: 20 }, A: { minReplicas: 100, weight: 1 } }, total: 50, clusters: ABC },
      { A: 50, B: 0, C: 0 },
    ));
  test('minimum 10, max 12: each cluster capped at 12, 14 left unscheduled', () =>
    check(
      { prefs: { '*': { minReplicas: 10, weight: 1, maxReplicas: 12 } }, total: 50, clusters: ABC },
      { A: 12, B: 12, C: 12 },
    ));
});

describe('KubeFed planner_test.go: TestMax', () => {
  test('max 2 each: 6 of 50 planned', () =>
    check({ prefs: { '*': { weight: 1, maxReplicas: 2 } }, total: 50, clusters: ABC }, { A: 2, B: 2, C: 2 }));
  test('weight 0 and no minimum: nothing', () =>
    check({ prefs: { '*': { maxReplicas: 2 } }, total: 50, clusters: ABC }, { A: 0, B: 0, C: 0 }));
});

describe('KubeFed planner_test.go: TestWeight', () => {
  test('1:2, C without preference', () =>
    check(
      { prefs: { A: { weight: 1 }, B: { weight: 2 } }, total: 60, clusters: ABC },
      { A: 20, B: 40, C: 0 },
    ));
  test('a huge weight takes everything', () =>
    check(
      { prefs: { A: { weight: 10000 }, B: { weight: 1 } }, total: 50, clusters: ABC },
      { A: 50, B: 0, C: 0 },
    ));
  test('the heavy cluster is not a candidate', () =>
    check(
      { prefs: { A: { weight: 10000 }, B: { weight: 1 } }, total: 50, clusters: ['B', 'C'] },
      { B: 50, C: 0 },
    ));
  test('max on the heavy cluster: the surplus is shared by the rest', () =>
    check(
      {
        prefs: { A: { weight: 10000, maxReplicas: 10 }, B: { weight: 1 }, C: { weight: 1 } },
        total: 50,
        clusters: ABC,
      },
      { A: 10, B: 20, C: 20 },
    ));
  test('two capped clusters: B takes the rest', () =>
    check(
      {
        prefs: { A: { weight: 10000, maxReplicas: 10 }, B: { weight: 1 }, C: { weight: 1, maxReplicas: 10 } },
        total: 50,
        clusters: ABC,
      },
      { A: 10, B: 30, C: 10 },
    ));
  test('four clusters with maxima', () =>
    check(
      {
        prefs: {
          A: { weight: 10000, maxReplicas: 10 },
          B: { weight: 1 },
          C: { weight: 1, maxReplicas: 21 },
          D: { weight: 1, maxReplicas: 10 },
        },
        total: 71,
        clusters: ['A', 'B', 'C', 'D'],
      },
      { A: 10, B: 30, C: 21, D: 10 },
    ));
  test('five clusters with maxima', () =>
    check(
      {
        prefs: {
          A: { weight: 10000, maxReplicas: 10 },
          B: { weight: 1 },
          C: { weight: 1, maxReplicas: 21 },
          D: { weight: 1, maxReplicas: 10 },
          E: { weight: 1 },
        },
        total: 91,
        clusters: ['A', 'B', 'C', 'D', 'E'],
      },
      { A: 10, B: 25, C: 21, D: 10, E: 25 },
    ));
});

describe('key consequences of the algorithm (KubeFed planner.go, (*Planner).Plan)', () => {
  test('a cluster with no entry and no "*" gets 0 and is still listed', () =>
    check({ prefs: { A: { weight: 1 } }, total: 5, clusters: ['A', 'B'] }, { A: 5, B: 0 }));

  test('weight 0 with "*" assigns only the minimums', () =>
    check({ prefs: { '*': { minReplicas: 1 } }, total: 10, clusters: ['A', 'B'] }, { A: 1, B: 1 }));

  test('the odd replica goes to the cluster with the lowest hash of name + key', () => {
    for (const key of ['', 'default/web', 'ns/app', 'x']) {
      const lowest = ['A', 'B', 'C'].reduce((a, b) => (fnv1_32(b + key) < fnv1_32(a + key) ? b : a));
      const result = plan(input({ prefs: { '*': { weight: 1 } }, total: 1, clusters: ABC, key }));
      for (const c of ABC) assert.equal(result.plan[c], c === lowest ? 1 : 0, `key ${JSON.stringify(key)}`);
    }
  });

  test('the key changes the tie-break (winners checked against an independent FNV-1)', () => {
    const winner = (key: string) => {
      const result = plan(input({ prefs: { '*': { weight: 1 } }, total: 1, clusters: ABC, key }));
      return Object.entries(result.plan).find(([, n]) => n === 1)?.[0];
    };
    assert.equal(winner('default/web'), 'B');
    assert.equal(winner('prod/web'), 'C');
    assert.equal(winner('team-a/frontend'), 'A');
  });

  test('higher weight sorts first, before the hash: its minimum is served first', () =>
    check(
      {
        prefs: { '*': { minReplicas: 5, weight: 1 }, A: { minReplicas: 5, weight: 2 } },
        total: 5,
        clusters: ABC,
      },
      { A: 5, B: 0, C: 0 },
    ));

  test('with too few replicas for the minimums, the lowest hash gets its minimum first', () =>
    check({ prefs: { '*': { minReplicas: 3 } }, total: 4, clusters: ABC }, { A: 0, B: 1, C: 3 }));

  describe('min > max (no validation prevents it)', () => {
    test('w1 min20 max10, 50 over A,B: a weighted pass clamps both to 10', () =>
      check(
        { prefs: { '*': { weight: 1, minReplicas: 20, maxReplicas: 10 } }, total: 50, clusters: ['A', 'B'] },
        {
          A: 10,
          B: 10,
        },
      ));
    test('w1 min20 max10, 40 over A,B: no pass runs, the minimums stay', () =>
      check(
        { prefs: { '*': { weight: 1, minReplicas: 20, maxReplicas: 10 } }, total: 40, clusters: ['A', 'B'] },
        {
          A: 20,
          B: 20,
        },
      ));
    test('w0 min20 max10, 50 over A,B: weight sum 0, the minimums stay', () =>
      check(
        { prefs: { '*': { weight: 0, minReplicas: 20, maxReplicas: 10 } }, total: 50, clusters: ['A', 'B'] },
        {
          A: 20,
          B: 20,
        },
      ));
  });

  test('maxReplicas surplus is redistributed among the non-full clusters in later passes', () =>
    check(
      { prefs: { '*': { weight: 1 }, C: { weight: 1, maxReplicas: 1 } }, total: 9, clusters: ABC },
      {
        A: 4,
        B: 4,
        C: 1,
      },
    ));

  test('when every cluster is full the plan total is less than totalReplicas', () => {
    const result = plan(input({ prefs: { '*': { weight: 1, maxReplicas: 3 } }, total: 100, clusters: ABC }));
    assert.equal(
      Object.values(result.plan).reduce((a, b) => a + b, 0),
      9,
    );
    assert.deepEqual(result.overflow, {});
  });

  test('totalReplicas 0 plans 0 everywhere', () =>
    check({ prefs: { '*': { weight: 1, minReplicas: 2 } }, total: 0, clusters: ABC }, { A: 0, B: 0, C: 0 }));
});

describe('rebalance', () => {
  const star = { '*': { weight: 1 } };
  test('false keeps the replicas already running where they are', () =>
    check({ prefs: star, total: 50, clusters: ['A', 'B'], current: { A: 30 } }, { A: 30, B: 20 }));
  test('true ignores the current replicas and spreads by weight', () =>
    check(
      { prefs: star, total: 50, clusters: ['A', 'B'], current: { A: 30 }, rebalance: true },
      { A: 25, B: 25 },
    ));
  test('false keeps at most maxReplicas of the current replicas', () =>
    check(
      { prefs: { '*': { weight: 1, maxReplicas: 20 } }, total: 30, clusters: ['A', 'B'], current: { A: 28 } },
      {
        A: 20,
        B: 10,
      },
    ));
  test('false keeps at most the capacity of the current replicas', () =>
    checkWithOverflow(
      { prefs: star, total: 30, clusters: ['A', 'B'], current: { A: 28 }, capacity: { A: 12 } },
      { A: 12, B: 18 },
      {},
    ));
  test('false with a current count in a cluster that is not a candidate: ignored', () =>
    check({ prefs: star, total: 10, clusters: ['A', 'B'], current: { Z: 10 } }, { A: 5, B: 5 }));
  test('capacity and rebalance false: overflow trimmed to what could not be placed anywhere', () =>
    checkWithOverflow(
      { prefs: { '*': { weight: 1, maxReplicas: 20 } }, total: 50, clusters: ABC, capacity: { C: 5 } },
      { A: 20, B: 20, C: 5 },
      { C: 5 },
    ));
  test('the same with rebalance true: the whole overflow of C is reported', () =>
    checkWithOverflow(
      {
        prefs: { '*': { weight: 1, maxReplicas: 20 } },
        total: 50,
        clusters: ABC,
        capacity: { C: 5 },
        rebalance: true,
      },
      { A: 20, B: 20, C: 5 },
      { C: 12 },
    ));
});

describe('examples from KubeFed and the issue', () => {
  const issue4: Prefs = {
    '*': { weight: 2, maxReplicas: 12 },
    'ap-northeast': { minReplicas: 1, maxReplicas: 3, weight: 1 },
  };
  for (const key of ['', 'default/web', 'demo/nginx']) {
    test(`issue 4 acceptance: 15 → ap-northeast 3, us-east 6, us-west 6 (key ${JSON.stringify(key)})`, () =>
      check(
        { prefs: issue4, total: 15, clusters: ['ap-northeast', 'us-east', 'us-west'], key },
        {
          'ap-northeast': 3,
          'us-east': 6,
          'us-west': 6,
        },
      ));
  }

  describe('KubeFed e2e test/e2e/scheduling.go, two clusters', () => {
    const clusters = ['cluster1', 'cluster2'];
    const key = 'e2e-ns/test-rsp';
    test('total 4, no preferences ({"*": {weight: 1}}): 2/2', () =>
      check({ prefs: { '*': { weight: 1 } }, total: 4, clusters, key }, { cluster1: 2, cluster2: 2 }));
    test('total 6, weights 2:1: 4/2', () =>
      check(
        { prefs: { cluster1: { weight: 2 }, cluster2: { weight: 1 } }, total: 6, clusters, key },
        {
          cluster1: 4,
          cluster2: 2,
        },
      ));
    test('total 6, weights 2:1, minimums 3/3: 3/3', () =>
      check(
        {
          prefs: { cluster1: { weight: 2, minReplicas: 3 }, cluster2: { weight: 1, minReplicas: 3 } },
          total: 6,
          clusters,
          key,
        },
        { cluster1: 3, cluster2: 3 },
      ));
    test('intersection leaves cluster1 only: 6', () =>
      check(
        {
          prefs: { cluster1: { weight: 2, minReplicas: 3 }, cluster2: { weight: 1, minReplicas: 3 } },
          total: 6,
          clusters: ['cluster1'],
          key,
        },
        { cluster1: 6 },
      ));
  });

  test('RSP over KubeFed example/sample1 test-deployment: total 10, cluster1 w2, cluster2 w3 → 4 and 6', () =>
    check(
      {
        prefs: { cluster1: { weight: 2 }, cluster2: { weight: 3 } },
        total: 10,
        clusters: ['cluster2', 'cluster1'],
        key: 'test-namespace/test-deployment',
      },
      { cluster2: 6, cluster1: 4 },
    ));
});

describe('planner mechanics', () => {
  test('plan keys follow the order of the candidate clusters', () => {
    const result = plan(input({ prefs: { '*': { weight: 1 } }, total: 3, clusters: ['C', 'A', 'B'] }));
    assert.deepEqual(Object.keys(result.plan), ['C', 'A', 'B']);
  });

  test('the input is not modified', () => {
    const i = input({
      prefs: { '*': { weight: 1 } },
      total: 7,
      clusters: ABC,
      current: { A: 2 },
      capacity: { B: 1 },
    });
    const copy = structuredClone(i);
    plan(i);
    assert.deepEqual(i, copy);
  });

  test('cluster names that are Object.prototype keys are plain data', () => {
    const result = plan(
      input({ prefs: { A: { weight: 1 } }, total: 2, clusters: ['A', 'constructor', '__proto__'] }),
    );
    assert.deepEqual(Object.keys(result.plan), ['A', 'constructor', '__proto__']);
    assert.equal(result.plan['A'], 2);
    assert.equal(result.plan['constructor'], 0);
    assert.equal(Object.getOwnPropertyDescriptor(result.plan, '__proto__')?.value, 0);
  });

  test('int32-sized totals with huge weights divide exactly (beyond 2^53 products)', () =>
    check(
      { prefs: { '*': { weight: 1e9 } }, total: 2147483647, clusters: ['A', 'B'] },
      { A: 1073741823, B: 1073741824 },
    ));

  test('weighted passes repeat until the preallocated replicas are used up', () =>
    check(
      { prefs: { '*': { weight: 1 } }, total: 100, clusters: ABC, current: { A: 90 } },
      { A: 90, B: 5, C: 5 },
    ));
});

describe('explainPlan', () => {
  const rowsOf = (c: Case) => Object.fromEntries(explainPlan(input(c)).map((r) => [r.cluster, r]));

  test('issue 4 example: every column and reason', () => {
    const rows = explainPlan(
      input({
        prefs: {
          '*': { weight: 2, maxReplicas: 12 },
          'ap-northeast': { minReplicas: 1, maxReplicas: 3, weight: 1 },
        },
        total: 15,
        clusters: ['ap-northeast', 'us-east', 'us-west'],
        key: 'default/web',
      }),
    );
    assert.deepEqual(rows, [
      {
        cluster: 'ap-northeast',
        weight: 1,
        min: 1,
        max: 3,
        planned: 3,
        overflow: 0,
        reason: 'minimum 1, weighted share, at max 3',
      },
      { cluster: 'us-east', weight: 2, min: 0, max: 12, planned: 6, overflow: 0, reason: 'weighted share' },
      { cluster: 'us-west', weight: 2, min: 0, max: 12, planned: 6, overflow: 0, reason: 'weighted share' },
    ]);
  });

  test('no preference, weight 0 and no replicas left', () => {
    const rows = rowsOf({
      prefs: { A: { weight: 1 }, B: { weight: 0 }, C: { weight: 1 } },
      total: 1,
      clusters: ['A', 'B', 'C', 'D'],
    });
    assert.equal(rows['D']!.reason, 'no preference (no entry, no "*")');
    assert.equal(rows['B']!.reason, 'weight 0');
    assert.equal(rows['A']!.reason, 'no replicas left');
    assert.equal(rows['C']!.reason, 'weighted share');
  });

  test('capped at max and capacity with overflow', () => {
    const rows = rowsOf({
      prefs: { '*': { weight: 1 }, A: { weight: 1, maxReplicas: 3 } },
      total: 50,
      clusters: ABC,
      capacity: { C: 10 },
      rebalance: true,
    });
    assert.equal(rows['A']!.reason, 'weighted share, capped at max 3');
    assert.equal(rows['C']!.reason, 'weighted share, capacity 10 (unschedulable pods)');
    assert.equal(rows['C']!.capacity, 10);
    assert.equal(rows['C']!.overflow, 7);
    assert.equal(rows['B']!.planned, 37);
  });

  test('kept current (rebalance off), fully or partly', () => {
    const rows = rowsOf({
      prefs: { '*': { weight: 1 }, B: { weight: 1, maxReplicas: 2 } },
      total: 10,
      clusters: ['A', 'B'],
      current: { A: 4, B: 5 },
    });
    assert.equal(rows['A']!.reason, 'kept current 4 (rebalance off), weighted share');
    assert.equal(rows['A']!.current, 4);
    // The keep phase stops at max 2; the weighted pass then asks for more and is clamped.
    assert.equal(rows['B']!.reason, 'kept 2 of current 5 (rebalance off), capped at max 2');
  });

  test('a minimum cut short by capacity or by the total', () => {
    const byCapacity = rowsOf({
      prefs: { '*': { minReplicas: 20 } },
      total: 50,
      clusters: ABC,
      capacity: { B: 4 },
    });
    assert.equal(byCapacity['B']!.reason, 'minimum 20 cut to 4 (capacity)');
    assert.equal(byCapacity['A']!.reason, 'minimum 20');
    const byTotal = rowsOf({ prefs: { '*': { minReplicas: 20 } }, total: 45, clusters: ABC });
    assert.equal(byTotal['A']!.reason, 'minimum 20 cut to 5 (not enough replicas)');
    assert.equal(byTotal['C']!.reason, 'minimum 20');
  });

  test('min > max: capped back down to max', () => {
    const rows = rowsOf({
      prefs: { '*': { weight: 1, minReplicas: 20, maxReplicas: 10 } },
      total: 50,
      clusters: ['A', 'B'],
    });
    assert.equal(rows['A']!.reason, 'minimum 20, capped at max 10');
    assert.equal(rows['A']!.planned, 10);
  });

  test('explainPlan agrees with plan', () => {
    const i = input({
      prefs: { '*': { weight: 1 } },
      total: 50,
      clusters: ABC,
      capacity: { C: 10 },
      rebalance: true,
    });
    const result = plan(i);
    for (const row of explainPlan(i)) {
      assert.equal(row.planned, result.plan[row.cluster]);
      assert.equal(row.overflow, result.overflow[row.cluster] ?? 0);
    }
  });
});
