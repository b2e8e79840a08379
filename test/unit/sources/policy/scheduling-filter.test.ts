import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Placement } from '../../../../src/api/policy/v1alpha1/index.ts';
import type { BindingObject } from '../../../../src/sources/policy/binding-spec.ts';
import type { PolicyCluster } from '../../../../src/sources/policy/cluster-affinity.ts';
import {
  explainSchedule,
  needsAvailableReplicas,
  rescheduleRequested,
  type ScheduleInput,
  scheduleBinding,
} from '../../../../src/sources/policy/scheduling.ts';

const cluster = (name: string, extra: Partial<PolicyCluster> = {}): PolicyCluster => ({
  name,
  labels: {},
  zones: [],
  ready: true,
  ...extra,
});
const input = (
  placement: Placement | undefined,
  clusters: PolicyCluster[],
  extra: Partial<ScheduleInput> = {},
) => ({
  placement,
  clusters,
  replicas: 0,
  bindingUid: 'uid-0',
  ...extra,
});
const cordoned = cluster('b', {
  taints: [{ key: 'node.kubefed.io/cordon', value: 'ops', effect: 'NoSchedule' }],
});
const dynamic: Placement = {
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { dynamicWeight: 'AvailableReplicas' },
  },
};

describe('scheduling filters: taints and eviction', () => {
  test('an untolerated NoSchedule taint keeps new placement off, worded like Karmada', () => {
    assert.deepEqual(scheduleBinding(input(undefined, [cluster('a'), cordoned])), {
      ok: true,
      clusters: [{ name: 'a' }],
    });
    assert.deepEqual(scheduleBinding(input(undefined, [cordoned])), {
      ok: false,
      reason: 'NoClusterFit',
      message:
        '0/1 clusters are available: 1 cluster(s) had untolerated taint {node.kubefed.io/cordon=ops:NoSchedule}',
    });
  });

  test('a cluster already scheduled keeps its copy under any taint (TaintToleration skips it; eviction is the taint manager job)', () => {
    const previous = [{ name: 'b' }];
    assert.deepEqual(scheduleBinding(input(undefined, [cluster('a'), cordoned], { previous })), {
      ok: true,
      clusters: [{ name: 'a' }, { name: 'b' }],
    });
    const noExecute = cluster('b', { taints: [{ key: 'maintenance', effect: 'NoExecute' }] });
    assert.deepEqual(scheduleBinding(input(undefined, [cluster('a'), noExecute], { previous })), {
      ok: true,
      clusters: [{ name: 'a' }, { name: 'b' }],
    });
    assert.deepEqual(scheduleBinding(input(undefined, [cluster('a'), noExecute])), {
      ok: true,
      clusters: [{ name: 'a' }],
    });
  });

  test("Karmada's default tolerations keep a scheduled cluster under the not-ready NoExecute taint", () => {
    const notReady = cluster('b', {
      ready: false,
      taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' }],
    });
    assert.deepEqual(
      scheduleBinding(input(undefined, [cluster('a'), notReady], { previous: [{ name: 'b' }] })),
      {
        ok: true,
        clusters: [{ name: 'a' }, { name: 'b' }],
      },
    );
    // ...but no new placement: a cluster that is not ready is NoSchedule (Karmada's cluster controller taint).
    assert.deepEqual(scheduleBinding(input(undefined, [cluster('a'), notReady])), {
      ok: true,
      clusters: [{ name: 'a' }],
    });
  });

  test('a matching toleration lets a policy onto the tainted cluster', () => {
    for (const toleration of [
      { key: 'node.kubefed.io/cordon', operator: 'Exists' as const },
      { key: 'node.kubefed.io/cordon', value: 'ops', effect: 'NoSchedule' as const },
      { operator: 'Exists' as const },
    ]) {
      assert.deepEqual(
        scheduleBinding(input({ clusterTolerations: [toleration] }, [cluster('a'), cordoned])),
        { ok: true, clusters: [{ name: 'a' }, { name: 'b' }] },
        JSON.stringify(toleration),
      );
    }
    const wrongValue = { key: 'node.kubefed.io/cordon', value: 'other', effect: 'NoSchedule' as const };
    assert.deepEqual(scheduleBinding(input({ clusterTolerations: [wrongValue] }, [cluster('a'), cordoned])), {
      ok: true,
      clusters: [{ name: 'a' }],
    });
  });

  test('the implicit not-ready taint goes once the health controller writes its own', () => {
    const unreachable = cluster('a', {
      ready: false,
      taints: [{ key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' }],
    });
    const r = explainSchedule(input(undefined, [unreachable]));
    assert.equal(r.result.ok, false);
    assert.equal(
      r.clusters[0]?.reason,
      'cluster(s) had untolerated taint {cluster.karmada.io/unreachable:NoSchedule}',
    );
  });

  test('clusters being evicted are never candidates (ClusterEviction)', () => {
    assert.deepEqual(
      scheduleBinding(
        input(undefined, [cluster('a'), cluster('b')], { evicting: ['b'], previous: [{ name: 'b' }] }),
      ),
      { ok: true, clusters: [{ name: 'a' }] },
    );
    assert.deepEqual(scheduleBinding(input(undefined, [cluster('b')], { evicting: ['b'] })), {
      ok: false,
      reason: 'NoClusterFit',
      message: '0/1 clusters are available: 1 cluster(s) is in the process of eviction',
    });
  });
});

describe('explainSchedule', () => {
  test('says per cluster whether it is a candidate, why not, its room and what it gets', () => {
    const clusters = [cluster('c'), cluster('a'), cordoned, cluster('d', { labels: { x: 'y' } })];
    const placement: Placement = { ...dynamic, clusterAffinity: { exclude: ['d'] } };
    const available = new Map([
      ['a', 6],
      ['b', 9],
      ['c', 10],
    ]);
    const r = explainSchedule(
      input(placement, clusters, { replicas: 12, available, previous: [{ name: 'c', replicas: 2 }] }),
    );
    assert.deepEqual(r.result, {
      ok: true,
      clusters: [
        { name: 'a', replicas: 4 },
        { name: 'c', replicas: 8 },
      ],
    });
    assert.deepEqual(r.clusters, [
      { cluster: 'a', candidate: true, available: 6, weight: 6, replicas: 4 },
      {
        cluster: 'b',
        candidate: false,
        available: 9,
        reason: 'cluster(s) had untolerated taint {node.kubefed.io/cordon=ops:NoSchedule}',
        replicas: 0,
      },
      { cluster: 'c', candidate: true, available: 10, previous: 2, weight: 12, replicas: 8 },
      {
        cluster: 'd',
        candidate: false,
        reason: 'cluster(s) did not match the placement cluster affinity constraint',
        replicas: 0,
      },
    ]);
    assert.deepEqual(
      scheduleBinding(
        input(placement, clusters, { replicas: 12, available, previous: [{ name: 'c', replicas: 2 }] }),
      ),
      r.result,
    );
  });

  test('static weights are reported as weights', () => {
    const placement: Placement = {
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['a'] }, weight: 2 }] },
      },
    };
    const r = explainSchedule(input(placement, [cluster('a'), cluster('b')], { replicas: 3 }));
    assert.deepEqual(r.clusters, [
      { cluster: 'a', candidate: true, weight: 2, replicas: 3 },
      { cluster: 'b', candidate: true, reason: 'no static weight selects it', replicas: 0 },
    ]);
  });

  test('no clusters: SchedulerError and no verdicts', () => {
    assert.deepEqual(explainSchedule(input(undefined, [])), {
      result: { ok: false, reason: 'SchedulerError', message: 'no clusters available to schedule' },
      clusters: [],
    });
  });
});

describe('capacity-based division through scheduleBinding', () => {
  const clusters = [cluster('c6'), cluster('c12'), cluster('c18')];
  const available = new Map([
    ['c6', 6],
    ['c12', 12],
    ['c18', 18],
  ]);

  test('needsAvailableReplicas: only Divided by AvailableReplicas or Aggregated, with replicas', () => {
    assert.equal(needsAvailableReplicas(dynamic, 3), true);
    assert.equal(needsAvailableReplicas(dynamic, 0), false);
    assert.equal(
      needsAvailableReplicas(
        { replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' } },
        1,
      ),
      true,
    );
    assert.equal(
      needsAvailableReplicas({ replicaScheduling: { replicaSchedulingType: 'Duplicated' } }, 3),
      false,
    );
    assert.equal(needsAvailableReplicas(undefined, 3), false);
  });

  test('rooms 6/12/18: 12 replicas are 2/4/6, 18 keep 2/4/6 and add', () => {
    const first = scheduleBinding(input(dynamic, clusters, { replicas: 12, available }));
    assert.deepEqual(first, {
      ok: true,
      clusters: [
        { name: 'c12', replicas: 4 },
        { name: 'c18', replicas: 6 },
        { name: 'c6', replicas: 2 },
      ],
    });
    // The pods of the first result now take room: available shrinks by what the binding has.
    const taken = new Map([
      ['c6', 4],
      ['c12', 8],
      ['c18', 12],
    ]);
    assert.ok(first.ok);
    assert.deepEqual(
      scheduleBinding(input(dynamic, clusters, { replicas: 18, available: taken, previous: first.clusters })),
      {
        ok: true,
        clusters: [
          { name: 'c12', replicas: 6 },
          { name: 'c18', replicas: 9 },
          { name: 'c6', replicas: 3 },
        ],
      },
    );
  });

  test('a previously scheduled cluster of unknown capacity keeps its replicas; a new one is left out', () => {
    const r = explainSchedule(
      input(dynamic, clusters, {
        replicas: 4,
        available: new Map([['c18', 10]]),
        previous: [{ name: 'c6', replicas: 2 }],
      }),
    );
    assert.deepEqual(r.result, {
      ok: true,
      clusters: [
        { name: 'c18', replicas: 2 },
        { name: 'c6', replicas: 2 },
      ],
    });
    assert.equal(
      r.clusters.find((v) => v.cluster === 'c12')?.reason,
      'capacity for the workload is not known yet',
    );
  });

  test('steady with unchanged replicas: the previous result stands, even if the rooms lag behind it', () => {
    const aggregated: Placement = {
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    };
    // The 15 pods for c18 are not there yet: its room looks like 33, enough for all 24 alone.
    const previous = [
      { name: 'c12', replicas: 9 },
      { name: 'c18', replicas: 15 },
    ];
    const r = scheduleBinding(input(aggregated, clusters, { replicas: 24, available, previous }));
    assert.deepEqual(r, { ok: true, clusters: previous });
    // Fresh divides again (by the rooms as they are); so does a binding that lost a cluster holding some.
    assert.deepEqual(
      scheduleBinding(input(aggregated, clusters, { replicas: 24, available, previous, fresh: true })),
      { ok: true, clusters: [{ name: 'c18', replicas: 24 }] },
    );
    assert.deepEqual(
      scheduleBinding(input(aggregated, clusters, { replicas: 24, available, previous, evicting: ['c12'] })),
      { ok: true, clusters: [{ name: 'c18', replicas: 24 }] },
    );
  });

  test('too little room: Unschedulable with Karmada wording', () => {
    assert.deepEqual(scheduleBinding(input(dynamic, clusters, { replicas: 40, available })), {
      ok: false,
      reason: 'Unschedulable',
      message: 'Clusters available replicas 36 are not enough to schedule.',
    });
  });

  test('Aggregated packs the fewest clusters: 24 replicas on c18 and c12', () => {
    const aggregated: Placement = {
      replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
    };
    assert.deepEqual(scheduleBinding(input(aggregated, clusters, { replicas: 24, available })), {
      ok: true,
      clusters: [
        { name: 'c12', replicas: 9 },
        { name: 'c18', replicas: 15 },
      ],
    });
    assert.deepEqual(scheduleBinding(input(aggregated, clusters, { replicas: 12, available })), {
      ok: true,
      clusters: [{ name: 'c18', replicas: 12 }],
    });
  });
});

describe('scheduler shell helpers', () => {
  const binding = (trigger?: string, last?: string) =>
    ({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: 'b', namespace: 'ns' },
      spec: { ...(trigger ? { rescheduleTriggeredAt: trigger } : {}) },
      status: { ...(last ? { lastScheduledTime: last } : {}) },
    }) as BindingObject;

  test('rescheduleRequested: a trigger later than the last schedule means Fresh', () => {
    assert.equal(rescheduleRequested(binding()), false);
    assert.equal(rescheduleRequested(binding('2026-01-01T00:00:01Z')), true);
    assert.equal(rescheduleRequested(binding('2026-01-01T00:00:01Z', '2026-01-01T00:00:00Z')), true);
    assert.equal(rescheduleRequested(binding('2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z')), false);
    assert.equal(rescheduleRequested(binding('2026-01-01T00:00:00Z', '2026-01-01T00:00:05Z')), false);
  });
});
