import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Placement } from '../../../../src/api/policy/v1alpha1/index.ts';
import type { PolicyCluster } from '../../../../src/sources/policy/cluster-affinity.ts';
import { type ScheduleInput, scheduleBinding } from '../../../../src/sources/policy/scheduling.ts';
import { fnv32a, websterSeats } from '../../../../src/sources/policy/webster.ts';

const cluster = (name: string, extra: Partial<PolicyCluster> = {}): PolicyCluster => ({
  name,
  labels: {},
  zones: [],
  ready: true,
  ...extra,
});
const three = [
  cluster('c3'),
  cluster('c1', { labels: { env: 'prod' } }),
  cluster('c2', { labels: { env: 'prod' } }),
];

// fnv32a('uid-0') is even (names ascending on ties), fnv32a('uid-1') odd (descending).
const EVEN = 'uid-0';
const ODD = 'uid-1';

function schedule(placement: Placement | undefined, extra: Partial<ScheduleInput> = {}) {
  return scheduleBinding({ placement, clusters: three, replicas: 0, bindingUid: EVEN, ...extra });
}
const divided = (extra: Placement['replicaScheduling'] = {}): Placement => ({
  replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', ...extra },
});

describe('fnv32a and the Webster method', () => {
  test('FNV-1a 32-bit test vectors', () => {
    assert.equal(fnv32a(''), 0x811c9dc5);
    assert.equal(fnv32a('a'), 0xe40c292c);
    assert.equal(fnv32a('foobar'), 0xbf9cf968);
    assert.equal(fnv32a(EVEN) % 2, 0);
    assert.equal(fnv32a(ODD) % 2, 1);
  });

  test("Karmada's examples: 9 replicas at 1:2 are 3:6, at 1:3 are 2:7", () => {
    const at = (wa: number, wb: number) => [
      ...websterSeats(
        9,
        [
          { name: 'a', weight: wa },
          { name: 'b', weight: wb },
        ],
        EVEN,
      ),
    ];
    assert.deepEqual(at(1, 2), [
      ['a', 3],
      ['b', 6],
    ]);
    assert.deepEqual(at(1, 3), [
      ['a', 2],
      ['b', 7],
    ]);
  });

  test('the Sainte-Laguë textbook case (Karmada webstermethod_test): 8 seats for 100k/80k/30k/20k', () => {
    const parties = [
      { name: 'A', weight: 100000 },
      { name: 'B', weight: 80000 },
      { name: 'C', weight: 30000 },
      { name: 'D', weight: 20000 },
    ];
    assert.deepEqual(Object.fromEntries(websterSeats(8, parties, EVEN)), { A: 3, B: 3, C: 1, D: 1 });
    assert.deepEqual(Object.fromEntries(websterSeats(4, parties, EVEN)), { A: 2, B: 1, C: 1, D: 0 });
  });

  test('ties: names ascending for an even hash of the binding UID, descending for an odd one', () => {
    const equal = [
      { name: 'a', weight: 1 },
      { name: 'b', weight: 1 },
    ];
    assert.deepEqual(Object.fromEntries(websterSeats(5, equal, EVEN)), { a: 3, b: 2 });
    assert.deepEqual(Object.fromEntries(websterSeats(5, equal, ODD)), { a: 2, b: 3 });
  });

  test('growing the total never takes a replica from a cluster (karmada#6735)', () => {
    const weights = [
      { name: 'southcentralus', weight: 170 },
      { name: 'westus', weight: 110 },
      { name: 'eastus2', weight: 60 },
    ];
    let before = websterSeats(0, weights, EVEN);
    for (let n = 1; n <= 40; n++) {
      const after = websterSeats(n, weights, EVEN);
      for (const w of weights)
        assert.ok((after.get(w.name) ?? 0) >= (before.get(w.name) ?? 0), `${w.name} at ${n}`);
      before = after;
    }
  });
});

describe('scheduleBinding: candidates', () => {
  test('no placement: every cluster, sorted by name, no replicas for a non-workload', () => {
    assert.deepEqual(schedule(undefined), {
      ok: true,
      clusters: [{ name: 'c1' }, { name: 'c2' }, { name: 'c3' }],
    });
  });

  test('clusterAffinity selects the candidates', () => {
    assert.deepEqual(schedule({ clusterAffinity: { labelSelector: { matchLabels: { env: 'prod' } } } }), {
      ok: true,
      clusters: [{ name: 'c1' }, { name: 'c2' }],
    });
    assert.deepEqual(schedule({ clusterAffinity: { clusterNames: ['c3', 'nope'] } }), {
      ok: true,
      clusters: [{ name: 'c3' }],
    });
  });

  test('no cluster fits: NoClusterFit in Karmada FitError wording, reasons counted and sorted', () => {
    const clusters = [
      cluster('a'),
      cluster('b', { ready: false }),
      cluster('c', { labels: { env: 'prod' } }),
    ];
    const result = scheduleBinding({
      placement: { clusterAffinity: { exclude: ['a', 'c'] } },
      clusters,
      replicas: 0,
      bindingUid: EVEN,
    });
    assert.deepEqual(result, {
      ok: false,
      reason: 'NoClusterFit',
      message:
        '0/3 clusters are available: 1 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}, ' +
        '2 cluster(s) did not match the placement cluster affinity constraint',
    });
  });

  test('no clusters at all: SchedulerError "no clusters available to schedule"', () => {
    assert.deepEqual(scheduleBinding({ placement: undefined, clusters: [], replicas: 3, bindingUid: EVEN }), {
      ok: false,
      reason: 'SchedulerError',
      message: 'no clusters available to schedule',
    });
  });

  test('an invalid label selector matches no cluster (ClusterMatches), it does not throw', () => {
    const result = schedule({
      clusterAffinity: { labelSelector: { matchExpressions: [{ key: 'env', operator: 'Bogus' }] } },
    });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.reason, 'NoClusterFit');
  });

  test('a cluster that is not ready is no candidate for new placement', () => {
    const clusters = [cluster('a'), cluster('b', { ready: false })];
    assert.deepEqual(scheduleBinding({ placement: undefined, clusters, replicas: 2, bindingUid: EVEN }), {
      ok: true,
      clusters: [{ name: 'a', replicas: 2 }],
    });
  });

  test('a not-ready cluster already scheduled stays', () => {
    const clusters = [cluster('a'), cluster('b', { ready: false })];
    assert.deepEqual(
      scheduleBinding({
        placement: undefined,
        clusters,
        replicas: 2,
        bindingUid: EVEN,
        previous: [{ name: 'b', replicas: 2 }],
      }),
      {
        ok: true,
        clusters: [
          { name: 'a', replicas: 2 },
          { name: 'b', replicas: 2 },
        ],
      },
    );
  });

  test('a placement tolerating the not-ready taint may place on a not-ready cluster', () => {
    const clusters = [cluster('a', { ready: false })];
    for (const toleration of [
      { key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' },
      { operator: 'Exists' },
    ]) {
      const result = scheduleBinding({
        placement: { clusterTolerations: [toleration] },
        clusters,
        replicas: 0,
        bindingUid: EVEN,
      });
      assert.deepEqual(result, { ok: true, clusters: [{ name: 'a' }] }, JSON.stringify(toleration));
    }
    for (const toleration of [
      { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', operator: 'Exists' },
      { key: 'cluster.karmada.io/unreachable', operator: 'Exists' },
      { key: 'cluster.karmada.io/not-ready', value: 'x' },
    ]) {
      const result = scheduleBinding({
        placement: { clusterTolerations: [toleration] },
        clusters,
        replicas: 0,
        bindingUid: EVEN,
      });
      assert.equal(result.ok, false, JSON.stringify(toleration));
    }
  });

  test('a cluster spread constraint limits the clusters (a non-workload goes to the preferred maxGroups)', () => {
    assert.deepEqual(schedule({ spreadConstraints: [{ spreadByField: 'cluster', maxGroups: 1 }] }), {
      ok: true,
      clusters: [{ name: 'c1' }],
    });
  });
});

describe('scheduleBinding: clusterAffinities', () => {
  const terms: Placement = {
    clusterAffinities: [
      { affinityName: 'primary', clusterNames: ['gone'] },
      { affinityName: 'backup', labelSelector: { matchLabels: { env: 'prod' } } },
      { affinityName: 'last', clusterNames: ['c3'] },
    ],
  };

  test('the first term that yields a cluster wins, and is reported', () => {
    assert.deepEqual(schedule(terms), {
      ok: true,
      clusters: [{ name: 'c1' }, { name: 'c2' }],
      affinityName: 'backup',
    });
  });

  test('the first term wins when it fits', () => {
    const placement: Placement = {
      clusterAffinities: [{ affinityName: 'x', clusterNames: ['c3'] }, ...(terms.clusterAffinities ?? [])],
    };
    assert.deepEqual(schedule(placement), { ok: true, clusters: [{ name: 'c3' }], affinityName: 'x' });
  });

  test('scheduling resumes at the previously observed term', () => {
    assert.deepEqual(schedule(terms, { previousAffinityName: 'last' }), {
      ok: true,
      clusters: [{ name: 'c3' }],
      affinityName: 'last',
    });
    assert.equal(schedule(terms, { previousAffinityName: 'unknown' }).ok, true);
  });

  test('no term fits: the first failure is reported', () => {
    const placement: Placement = {
      clusterAffinities: [
        { affinityName: 'a', clusterNames: ['x'] },
        { affinityName: 'b', exclude: ['c1', 'c2', 'c3'] },
      ],
    };
    assert.deepEqual(schedule(placement), {
      ok: false,
      reason: 'NoClusterFit',
      message:
        '0/3 clusters are available: 3 cluster(s) did not match the placement cluster affinity constraint',
    });
  });
});

describe('scheduleBinding: replicas', () => {
  test('Duplicated (and replicaScheduling unset) gives every candidate all replicas', () => {
    const expected = {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 4 },
        { name: 'c2', replicas: 4 },
        { name: 'c3', replicas: 4 },
      ],
    };
    assert.deepEqual(schedule(undefined, { replicas: 4 }), expected);
    assert.deepEqual(
      schedule({ replicaScheduling: { replicaSchedulingType: 'Duplicated' } }, { replicas: 4 }),
      expected,
    );
  });

  test('Divided with 0 replicas is a non-workload: every candidate, no replicas', () => {
    assert.deepEqual(schedule(divided(), { replicas: 0 }), {
      ok: true,
      clusters: [{ name: 'c1' }, { name: 'c2' }, { name: 'c3' }],
    });
  });

  test('Divided without weights: equal weights, ties by the binding UID parity', () => {
    assert.deepEqual(schedule(divided(), { replicas: 4 }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 2 },
        { name: 'c2', replicas: 1 },
        { name: 'c3', replicas: 1 },
      ],
    });
    assert.deepEqual(schedule(divided(), { replicas: 4, bindingUid: ODD }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 1 },
        { name: 'c2', replicas: 1 },
        { name: 'c3', replicas: 2 },
      ],
    });
  });

  test('Divided defaults its preference to Weighted, and an omitted type under replicaScheduling is Divided', () => {
    assert.deepEqual(schedule({ replicaScheduling: {} }, { replicas: 3 }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 1 },
        { name: 'c2', replicas: 1 },
        { name: 'c3', replicas: 1 },
      ],
    });
  });

  test('clusters left with no replica are dropped (removeZeroReplicasCluster)', () => {
    assert.deepEqual(schedule(divided(), { replicas: 1, bindingUid: ODD }), {
      ok: true,
      clusters: [{ name: 'c3', replicas: 1 }],
    });
  });

  test('static weights: 9 replicas at 1:2 are 3:6', () => {
    const placement = divided({
      weightPreference: {
        staticWeightList: [
          { targetCluster: { clusterNames: ['c1'] }, weight: 1 },
          { targetCluster: { clusterNames: ['c2'] }, weight: 2 },
        ],
      },
    });
    assert.deepEqual(schedule(placement, { replicas: 9 }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 3 },
        { name: 'c2', replicas: 6 },
      ],
    });
  });

  test('a divided result stands while its placement and replicas do not change (a returning cluster gets nothing back unasked)', () => {
    // Every candidate weighs 1: three clusters would be 2/2/2, but the binding holds 3/3 on c1 and c2
    // (c3 was away), and stays so until its placement or replicas change or a rebalance is asked for.
    const previous = [
      { name: 'c1', replicas: 3 },
      { name: 'c2', replicas: 3 },
    ];
    const placement = divided();
    assert.deepEqual(schedule(placement, { replicas: 6, previous }), { ok: true, clusters: previous });
    const redivided = {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 2 },
        { name: 'c2', replicas: 2 },
        { name: 'c3', replicas: 2 },
      ],
    };
    assert.deepEqual(schedule(placement, { replicas: 6, previous, placementChanged: true }), redivided);
    assert.deepEqual(schedule(placement, { replicas: 6, previous, fresh: true }), redivided);
    assert.deepEqual(schedule(placement, { replicas: 9, previous }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 3 },
        { name: 'c2', replicas: 3 },
        { name: 'c3', replicas: 3 },
      ],
    });
    // A held cluster that no longer fits (here: excluded) ends the steady result.
    const without = { ...divided(), clusterAffinity: { exclude: ['c2'] } };
    assert.deepEqual(schedule(without, { replicas: 6, previous }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 3 },
        { name: 'c3', replicas: 3 },
      ],
    });
  });

  test('static weights: a cluster weighs the maximum of the entries selecting it; unselected ones are dropped', () => {
    const placement = divided({
      weightPreference: {
        staticWeightList: [
          { targetCluster: { labelSelector: { matchLabels: { env: 'prod' } } }, weight: 1 },
          { targetCluster: { clusterNames: ['c2'] }, weight: 3 },
        ],
      },
    });
    assert.deepEqual(schedule(placement, { replicas: 8 }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 2 },
        { name: 'c2', replicas: 6 },
      ],
    });
  });

  test('static weights selecting no candidate: every candidate weighs 1', () => {
    const placement = divided({
      weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['gone'] }, weight: 5 }] },
    });
    assert.deepEqual(schedule(placement, { replicas: 3 }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 1 },
        { name: 'c2', replicas: 1 },
        { name: 'c3', replicas: 1 },
      ],
    });
  });

  test('static weights only divide among candidates (the affinity filters first)', () => {
    const placement: Placement = {
      clusterAffinity: { clusterNames: ['c1', 'c3'] },
      ...divided({
        weightPreference: {
          staticWeightList: [
            { targetCluster: { clusterNames: ['c2'] }, weight: 10 },
            { targetCluster: { clusterNames: ['c3'] }, weight: 3 },
            { targetCluster: { clusterNames: ['c1'] }, weight: 1 },
          ],
        },
      }),
    };
    assert.deepEqual(schedule(placement, { replicas: 9 }), {
      ok: true,
      clusters: [
        { name: 'c1', replicas: 2 },
        { name: 'c3', replicas: 7 },
      ],
    });
  });

  test('dynamicWeight without capacity estimates: Unschedulable until the capacity is known', () => {
    assert.deepEqual(
      schedule(divided({ weightPreference: { dynamicWeight: 'AvailableReplicas' } }), { replicas: 3 }),
      {
        ok: false,
        reason: 'Unschedulable',
        message: 'the capacity of cluster(s) c1, c2, c3 for the workload is not known yet',
      },
    );
  });

  test('Aggregated with capacity estimates: all replicas on the roomiest cluster, the one already holding some first', () => {
    const placement: Placement = {
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    };
    const available = new Map([
      ['c1', 5],
      ['c2', 5],
      ['c3', 6],
    ]);
    assert.deepEqual(schedule(placement, { replicas: 5, available }), {
      ok: true,
      clusters: [{ name: 'c3', replicas: 5 }],
    });
    assert.deepEqual(
      schedule(placement, { replicas: 5, available, previous: [{ name: 'c2', replicas: 1 }] }),
      {
        ok: true,
        clusters: [{ name: 'c2', replicas: 5 }],
      },
    );
    assert.deepEqual(
      schedule(placement, { replicas: 5, available, previous: [{ name: 'gone', replicas: 5 }] }),
      {
        ok: true,
        clusters: [{ name: 'c3', replicas: 5 }],
      },
    );
  });
});

describe('scheduleBinding: unknown capacity', () => {
  const byRoom = divided({ weightPreference: { dynamicWeight: 'AvailableReplicas' } });
  test('names the clusters whose capacity is unknown when the known rooms fall short', () => {
    const r = schedule(byRoom, { replicas: 5, available: new Map([['c1', 2]]) });
    assert.deepEqual(r, {
      ok: false,
      reason: 'Unschedulable',
      message: 'the capacity of cluster(s) c2, c3 for the workload is not known yet',
    });
  });
  test('enough known room: schedules on the known clusters', () => {
    const r = schedule(byRoom, { replicas: 2, available: new Map([['c1', 2]]) });
    assert.deepEqual(r, { ok: true, clusters: [{ name: 'c1', replicas: 2 }] });
  });
  test('clusterAffinities: a term short only of capacity figures does not move the binding on', () => {
    const placement: Placement = {
      ...byRoom,
      clusterAffinities: [
        { affinityName: 'primary', clusterNames: ['c1'] },
        { affinityName: 'backup', clusterNames: ['c2'] },
      ],
    };
    assert.deepEqual(schedule(placement, { replicas: 3, available: new Map([['c2', 5]]) }), {
      ok: false,
      reason: 'Unschedulable',
      message: 'the capacity of cluster(s) c1 for the workload is not known yet',
    });
  });
});
