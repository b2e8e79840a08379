import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Placement } from '../../../../src/api/policy/v1alpha1/index.ts';
import type { PolicyCluster } from '../../../../src/sources/policy/cluster-affinity.ts';
import { scheduleBinding } from '../../../../src/sources/policy/scheduling.ts';
import {
  defaultSpreadConstraints,
  selectBySpread,
  spreadIgnored,
} from '../../../../src/sources/policy/spread.ts';

const cluster = (name: string, region?: string, extra: Partial<PolicyCluster> = {}): PolicyCluster => ({
  name,
  labels: {},
  zones: [],
  ready: true,
  ...(region ? { region } : {}),
  ...extra,
});
const fleet = [
  cluster('a1', 'east'),
  cluster('a2', 'east'),
  cluster('b1', 'west'),
  cluster('c1', 'south'),
  cluster('x'),
];
const candidate = (c: PolicyCluster, room?: number, scheduled = false) => ({
  cluster: c,
  scheduled,
  ...(room !== undefined ? { room } : {}),
});

describe('spread constraints', () => {
  test('defaults like the webhook: no field means cluster, minGroups 0 means 1', () => {
    assert.deepEqual(
      defaultSpreadConstraints([{ maxGroups: 2 }, { spreadByField: 'region', minGroups: 0 }]),
      [
        { maxGroups: 2, spreadByField: 'cluster', minGroups: 1 },
        { spreadByField: 'region', minGroups: 1 },
      ],
    );
  });

  test('static weights (or no weight preference) ignore spread constraints', () => {
    assert.equal(spreadIgnored({ replicaScheduling: { replicaSchedulingType: 'Divided' } }), true);
    assert.equal(
      spreadIgnored({
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          weightPreference: { staticWeightList: [{ targetCluster: {}, weight: 1 }] },
        },
      }),
      true,
    );
    assert.equal(
      spreadIgnored({
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          weightPreference: { dynamicWeight: 'AvailableReplicas' },
        },
      }),
      false,
    );
    assert.equal(spreadIgnored({ replicaScheduling: { replicaSchedulingType: 'Duplicated' } }), false);
    assert.equal(spreadIgnored(undefined), false);
  });

  test('by region: clusters without a region are filtered, minGroups regions are chosen, one cluster each', () => {
    const placement: Placement = {
      spreadConstraints: [
        { spreadByField: 'region', minGroups: 2, maxGroups: 2 },
        { spreadByField: 'cluster', minGroups: 2, maxGroups: 2 },
      ],
    };
    const r = scheduleBinding({ placement, clusters: fleet, replicas: 0, bindingUid: 'u' });
    // Equal preference: regions by name (east, south), the best cluster of each by name.
    assert.deepEqual(r, { ok: true, clusters: [{ name: 'a1' }, { name: 'c1' }] });
  });

  test('already scheduled clusters and their regions are preferred (stable placement)', () => {
    const placement: Placement = {
      spreadConstraints: [
        { spreadByField: 'region', minGroups: 2, maxGroups: 2 },
        { spreadByField: 'cluster', maxGroups: 2 },
      ],
    };
    const r = scheduleBinding({
      placement,
      clusters: fleet,
      replicas: 0,
      bindingUid: 'u',
      previous: [{ name: 'b1' }, { name: 'a2' }],
    });
    assert.deepEqual(r, { ok: true, clusters: [{ name: 'a2' }, { name: 'b1' }] });
  });

  test('without a cluster constraint every cluster of the chosen regions goes', () => {
    const r = selectBySpread(
      defaultSpreadConstraints([{ spreadByField: 'region', minGroups: 1, maxGroups: 1 }]),
      fleet.slice(0, 4).map((c) => candidate(c)),
      undefined,
    );
    assert.deepEqual(r, { ok: true, clusters: ['a1', 'a2'] });
  });

  test('fewer regions than minGroups: Unschedulable with Karmada wording, nothing chosen', () => {
    const placement: Placement = { spreadConstraints: [{ spreadByField: 'region', minGroups: 4 }] };
    assert.deepEqual(scheduleBinding({ placement, clusters: fleet, replicas: 0, bindingUid: 'u' }), {
      ok: false,
      reason: 'Unschedulable',
      message:
        'failed to select clusters: the number of feasible region is less than spreadConstraint.MinGroups',
    });
  });

  test('fewer clusters than the cluster minGroups', () => {
    const placement: Placement = { spreadConstraints: [{ spreadByField: 'cluster', minGroups: 6 }] };
    assert.deepEqual(scheduleBinding({ placement, clusters: fleet, replicas: 0, bindingUid: 'u' }), {
      ok: false,
      reason: 'Unschedulable',
      message:
        'failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups',
    });
  });

  test('with room: more regions are taken (up to maxGroups) until the replicas fit', () => {
    const cs = [
      candidate(fleet[0]!, 4),
      candidate(fleet[1]!, 4),
      candidate(fleet[2]!, 5),
      candidate(fleet[3]!, 1),
    ];
    const region = (max: number) =>
      selectBySpread(
        defaultSpreadConstraints([{ spreadByField: 'region', minGroups: 1, maxGroups: max }]),
        cs,
        12,
      );
    // east (8) is the roomiest region; 12 replicas need west (5) too.
    assert.deepEqual(region(3), { ok: true, clusters: ['a1', 'a2', 'b1'] });
    assert.deepEqual(region(1), {
      ok: false,
      message: 'no enough resource when selecting 1 region groups',
    });
  });

  test('by cluster with room: the preferred maxGroups clusters, else the roomiest', () => {
    const cs = [candidate(fleet[0]!, 2, true), candidate(fleet[2]!, 5), candidate(fleet[3]!, 6)];
    const c = defaultSpreadConstraints([{ spreadByField: 'cluster', maxGroups: 2 }]);
    assert.deepEqual(selectBySpread(c, cs, 7), { ok: true, clusters: ['a1', 'c1'] });
    assert.deepEqual(selectBySpread(c, cs, 11), { ok: true, clusters: ['b1', 'c1'] });
    assert.deepEqual(selectBySpread(c, cs, 12), {
      ok: false,
      message: 'no enough resource when selecting 2 clusters',
    });
  });

  test('by zone, provider and label: clusters without the property are no candidates', () => {
    const clusters = [
      cluster('p', undefined, { provider: 'aws', zones: ['z2', 'z1'], labels: { tier: 'gold' } }),
      cluster('q', undefined, { provider: 'gcp', zones: ['z3'] }),
    ];
    const run = (spreadConstraints: Placement['spreadConstraints']) =>
      scheduleBinding({ placement: { spreadConstraints }, clusters, replicas: 0, bindingUid: 'u' });
    assert.deepEqual(run([{ spreadByField: 'zone', minGroups: 2 }]), {
      ok: true,
      clusters: [{ name: 'p' }, { name: 'q' }],
    });
    assert.deepEqual(run([{ spreadByField: 'provider', minGroups: 2 }]), {
      ok: true,
      clusters: [{ name: 'p' }, { name: 'q' }],
    });
    assert.deepEqual(run([{ spreadByLabel: 'tier', minGroups: 2 }]), {
      ok: false,
      reason: 'Unschedulable',
      message:
        'failed to select clusters: the number of feasible label tier is less than spreadConstraint.MinGroups',
    });
    assert.deepEqual(run([{ spreadByField: 'region' }]), {
      ok: false,
      reason: 'NoClusterFit',
      message: '0/2 clusters are available: 2 cluster(s) did not have region property',
    });
  });

  test('Divided by available replicas over a spread selection', () => {
    const placement: Placement = {
      spreadConstraints: [
        { spreadByField: 'region', minGroups: 2, maxGroups: 2 },
        { spreadByField: 'cluster', maxGroups: 2 },
      ],
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas' },
      },
    };
    const available = new Map([
      ['a1', 3],
      ['a2', 9],
      ['b1', 6],
      ['c1', 1],
    ]);
    assert.deepEqual(
      scheduleBinding({ placement, clusters: fleet, replicas: 10, bindingUid: 'u', available }),
      {
        ok: true,
        clusters: [
          { name: 'a2', replicas: 6 },
          { name: 'b1', replicas: 4 },
        ],
      },
    );
  });
});

describe('spread constraints survive the division', () => {
  const regions = [cluster('a', 'r1'), cluster('b', 'r2'), cluster('c', 'r3')];
  const byRoom = (
    constraints: Placement['spreadConstraints'],
    preference: 'Weighted' | 'Aggregated' = 'Weighted',
  ): Placement => ({
    spreadConstraints: constraints,
    replicaScheduling: {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: preference,
      ...(preference === 'Weighted' ? { weightPreference: { dynamicWeight: 'AvailableReplicas' } } : {}),
    },
  });
  const threeGroups = byRoom([
    { spreadByField: 'region', minGroups: 3 },
    { spreadByField: 'cluster', minGroups: 3 },
  ]);
  const names = (r: ReturnType<typeof scheduleBinding>) => (r.ok ? r.clusters.map((t) => t.name) : r);
  const total = (r: ReturnType<typeof scheduleBinding>) =>
    r.ok ? r.clusters.reduce((sum, t) => sum + (t.replicas ?? 0), 0) : -1;

  test('a steady scale-down keeps a replica in every region (2/4/6 to 6)', () => {
    const r = scheduleBinding({
      placement: threeGroups,
      clusters: regions,
      replicas: 6,
      bindingUid: 'u',
      available: new Map([
        ['a', 4],
        ['b', 8],
        ['c', 12],
      ]),
      previous: [
        { name: 'a', replicas: 2 },
        { name: 'b', replicas: 4 },
        { name: 'c', replicas: 6 },
      ],
    });
    assert.deepEqual(names(r), ['a', 'b', 'c']);
    assert.equal(total(r), 6);
  });

  test('fresh, rooms 1/1/100, 3 replicas: one each', () => {
    const r = scheduleBinding({
      placement: threeGroups,
      clusters: regions,
      replicas: 3,
      bindingUid: 'u',
      available: new Map([
        ['a', 1],
        ['b', 1],
        ['c', 100],
      ]),
    });
    assert.deepEqual(r, {
      ok: true,
      clusters: [
        { name: 'a', replicas: 1 },
        { name: 'b', replicas: 1 },
        { name: 'c', replicas: 1 },
      ],
    });
  });

  test('Aggregated with region minGroups 2, 2 replicas, rooms 1/10/100: two regions', () => {
    const r = scheduleBinding({
      placement: byRoom([{ spreadByField: 'region', minGroups: 2 }], 'Aggregated'),
      clusters: regions,
      replicas: 2,
      bindingUid: 'u',
      available: new Map([
        ['a', 1],
        ['b', 10],
        ['c', 100],
      ]),
    });
    assert.deepEqual(names(r), ['b', 'c']);
  });

  test('too few replicas for the minGroups: Unschedulable, not a half-satisfied result', () => {
    const r = scheduleBinding({
      placement: threeGroups,
      clusters: regions,
      replicas: 2,
      bindingUid: 'u',
      available: new Map([
        ['a', 10],
        ['b', 10],
        ['c', 10],
      ]),
    });
    assert.deepEqual(r, {
      ok: false,
      reason: 'Unschedulable',
      message: '2 replica(s) cannot meet the spread constraints: they need at least 3 (one per region)',
    });
  });

  test('a chosen group whose only cluster has no room: Unschedulable', () => {
    const r = scheduleBinding({
      placement: byRoom([{ spreadByField: 'region', minGroups: 3 }]),
      clusters: regions,
      replicas: 3,
      bindingUid: 'u',
      available: new Map([
        ['a', 0],
        ['b', 10],
        ['c', 10],
      ]),
    });
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.message, /fewer than the region spreadConstraint.MinGroups 3/);
  });
});

describe('spread constraints: cluster minGroups and the filter', () => {
  test('without a grouping level, a cluster maxGroups below its minGroups is Unschedulable', () => {
    const r = scheduleBinding({
      placement: { spreadConstraints: [{ spreadByField: 'cluster', minGroups: 3, maxGroups: 2 }] },
      clusters: fleet,
      replicas: 0,
      bindingUid: 'u',
    });
    assert.deepEqual(r, {
      ok: false,
      reason: 'Unschedulable',
      message: 'failed to select clusters: the cluster spreadConstraint.MaxGroups is less than its MinGroups',
    });
  });

  test('static weights ignore the constraints, yet the filter still drops clusters without the property', () => {
    const r = scheduleBinding({
      placement: {
        spreadConstraints: [{ spreadByField: 'region', minGroups: 1 }],
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
      },
      clusters: fleet,
      replicas: 5,
      bindingUid: 'u',
    });
    // Five replicas over the four clusters with a region (x, without one, would take one of five).
    assert.deepEqual(r.ok && r.clusters.map((t) => t.name), ['a1', 'a2', 'b1', 'c1']);
  });
});
