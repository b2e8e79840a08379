import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applySchedule, isReplicasPath, ScheduleApplyError } from '../../../src/scheduling/overrides.ts';

type Override = { op?: string; path: string; value?: unknown };
const fed = (overrides?: unknown, clusters?: string[]) => ({
  spec: {
    ...(clusters ? { placement: { clusters: clusters.map((name) => ({ name })) } } : {}),
    ...(overrides !== undefined ? { overrides } : {}),
  },
});

/** path → value of one cluster's overrides in the result, as KubeFed's TestUpdateOverridesMap reads them. */
function pathValues(overrides: unknown[] | undefined, cluster: string): Record<string, unknown> {
  const item = (overrides ?? []).find(
    (o): o is { clusterName: string; clusterOverrides?: Override[] } =>
      (o as { clusterName: string }).clusterName === cluster,
  );
  return Object.fromEntries((item?.clusterOverrides ?? []).map((o) => [o.path, o.value]));
}

const cluster1 = (list: Override[]) => [{ clusterName: 'cluster1', clusterOverrides: list }];

describe('applySchedule overrides: KubeFed plugin_test.go TestUpdateOverridesMap', () => {
  test('an unscheduled cluster loses only its replicas override', () => {
    const { overrides } = applySchedule(
      fed(
        cluster1([
          { path: '/spec/replicas', value: 0 },
          { path: '/ultimate/answer', value: 42 },
        ]),
      ),
      {},
    );
    assert.deepEqual(pathValues(overrides, 'cluster1'), { '/ultimate/answer': 42 });
  });

  test('an existing replicas override is updated in place', () => {
    const { overrides } = applySchedule(
      fed(
        cluster1([
          { path: '/spec/replicas', value: 0 },
          { path: '/ultimate/answer', value: 42 },
        ]),
      ),
      { cluster1: 5 },
    );
    assert.deepEqual(
      overrides,
      cluster1([
        { path: '/spec/replicas', value: 5 },
        { path: '/ultimate/answer', value: 42 },
      ]),
    );
  });

  test('a missing replicas override is appended', () => {
    const { overrides } = applySchedule(fed(cluster1([{ path: '/ultimate/answer', value: 42 }])), {
      cluster1: 0,
    });
    assert.deepEqual(
      overrides,
      cluster1([
        { path: '/ultimate/answer', value: 42 },
        { path: '/spec/replicas', value: 0 },
      ]),
    );
  });
});

describe('applySchedule overrides: changes and stability', () => {
  test('nothing to do when every scheduled cluster already has its number', () => {
    const overrides = [
      { clusterName: 'b', clusterOverrides: [{ path: '/spec/replicas', value: 2 }] },
      {
        clusterName: 'a',
        clusterOverrides: [
          { path: '/x', value: 1 },
          { op: 'replace', path: '/spec/replicas', value: 3 },
        ],
      },
    ];
    assert.equal(applySchedule(fed(overrides), { a: 3, b: 2 }).overrides, undefined);
  });

  test('values are compared as numbers: a string "3" is rewritten', () => {
    const overrides = [{ clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: '3' }] }];
    assert.deepEqual(applySchedule(fed(overrides), { a: 3 }).overrides, [
      { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 3 }] },
    ]);
  });

  test('existing clusters keep their order, new clusters are appended sorted', () => {
    const overrides = [
      { clusterName: 'z', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] },
      { clusterName: 'm', clusterOverrides: [{ path: '/a', value: 'x' }] },
    ];
    const { overrides: out } = applySchedule(fed(overrides), { c: 4, m: 2, a: 1, z: 1 });
    assert.deepEqual(
      (out as { clusterName: string }[]).map((o) => o.clusterName),
      ['z', 'm', 'a', 'c'],
    );
    assert.deepEqual(out![2], { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] });
  });

  test('a cluster that is no longer scheduled keeps its entry, possibly empty', () => {
    const overrides = [{ clusterName: 'gone', clusterOverrides: [{ path: '/spec/replicas', value: 3 }] }];
    assert.deepEqual(applySchedule(fed(overrides), { a: 1 }).overrides, [
      { clusterName: 'gone', clusterOverrides: [] },
      { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] },
    ]);
  });

  test('the dotted shorthand spec.replicas is the same override, updated where it is', () => {
    assert.equal(isReplicasPath('spec.replicas'), true);
    assert.equal(isReplicasPath('/spec/replicas'), true);
    assert.equal(isReplicasPath('/spec/replicas/x'), false);
    assert.equal(isReplicasPath('spec..replicas'), false);
    const overrides = [
      {
        clusterName: 'a',
        clusterOverrides: [
          { path: 'spec.replicas', value: 1 },
          { path: '/b', value: 2 },
        ],
      },
    ];
    assert.equal(applySchedule(fed(overrides), { a: 1 }).overrides, undefined);
    assert.deepEqual(applySchedule(fed(overrides), { a: 7 }).overrides, [
      {
        clusterName: 'a',
        clusterOverrides: [
          { path: 'spec.replicas', value: 7 },
          { path: '/b', value: 2 },
        ],
      },
    ]);
  });

  test('a duplicate replicas override (shorthand next to pointer) is reduced to the first one', () => {
    const overrides = [
      {
        clusterName: 'a',
        clusterOverrides: [
          { path: '/spec/replicas', value: 1 },
          { path: 'spec.replicas', value: 1 },
        ],
      },
    ];
    assert.deepEqual(applySchedule(fed(overrides), { a: 1 }).overrides, [
      { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] },
    ]);
  });

  test('a remove op on the replicas path is turned into a replace', () => {
    const overrides = [
      { clusterName: 'a', clusterOverrides: [{ op: 'remove', path: '/spec/replicas', value: 2 }] },
    ];
    assert.deepEqual(applySchedule(fed(overrides), { a: 2 }).overrides, [
      { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 2 }] },
    ]);
  });

  test('other fields of an item and of an override are kept; the input is not modified', () => {
    const overrides = [
      {
        clusterName: 'a',
        extra: true,
        clusterOverrides: [
          { op: 'add', path: '/spec/replicas', value: 1 },
          { op: 'add', path: '/metadata/annotations', value: { a: 'b' } },
        ],
      },
    ];
    const before = structuredClone(overrides);
    const { overrides: out } = applySchedule(fed(overrides), { a: 4 });
    assert.deepEqual(overrides, before);
    assert.deepEqual(out, [
      {
        clusterName: 'a',
        extra: true,
        clusterOverrides: [
          { op: 'add', path: '/spec/replicas', value: 4 },
          { op: 'add', path: '/metadata/annotations', value: { a: 'b' } },
        ],
      },
    ]);
  });

  test('no overrides at all: one entry per scheduled cluster, sorted', () => {
    assert.deepEqual(applySchedule(fed(undefined), { b: 0, a: 2 }).overrides, [
      { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 2 }] },
      { clusterName: 'b', clusterOverrides: [{ path: '/spec/replicas', value: 0 }] },
    ]);
    assert.equal(applySchedule(fed(undefined), {}).overrides, undefined);
    assert.equal(applySchedule({}, {}).overrides, undefined);
  });

  test('an unscheduled cluster without clusterOverrides is left as it is', () => {
    assert.deepEqual(applySchedule(fed([{ clusterName: 'x' }]), { a: 1 }).overrides, [
      { clusterName: 'x' },
      { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] },
    ]);
  });

  test('the worked example: cluster2 updated in place, its other overrides kept, cluster1 appended', () => {
    const cluster2 = [
      { path: '/spec/replicas', value: 5 },
      { path: '/spec/template/spec/containers/0/image', value: 'nginx:1.17.0-alpine' },
      { op: 'add', path: '/metadata/annotations', value: { foo: 'bar' } },
      { op: 'remove', path: '/metadata/annotations/foo' },
    ];
    const f = fed([{ clusterName: 'cluster2', clusterOverrides: cluster2 }], ['cluster2', 'cluster1']);
    const changes = applySchedule(f, { cluster1: 4, cluster2: 6 });
    assert.equal(changes.placementClusters, undefined);
    assert.deepEqual(changes.overrides, [
      {
        clusterName: 'cluster2',
        clusterOverrides: [{ path: '/spec/replicas', value: 6 }, ...cluster2.slice(1)],
      },
      { clusterName: 'cluster1', clusterOverrides: [{ path: '/spec/replicas', value: 4 }] },
    ]);
  });

  test('malformed overrides are an error, as in KubeFed', () => {
    assert.throws(() => applySchedule(fed({}), {}), ScheduleApplyError);
    assert.throws(
      () => applySchedule(fed([{ clusterName: 'a' }, { clusterName: 'a' }]), {}),
      /cluster "a" appears more than once/,
    );
    assert.throws(() => applySchedule(fed([{ clusterOverrides: [] }]), {}), /string clusterName/);
    assert.throws(
      () => applySchedule(fed([{ clusterName: 'a', clusterOverrides: {} }]), {}),
      /must be a list/,
    );
  });
});

describe('applySchedule placement', () => {
  test('unchanged name set: undefined, whatever the order', () => {
    assert.equal(applySchedule(fed(undefined, ['b', 'a']), { a: 1, b: 0 }).placementClusters, undefined);
  });

  test('all candidate clusters are placed, including those with 0 replicas', () => {
    assert.deepEqual(applySchedule(fed(undefined, ['a']), { a: 3, b: 0 }).placementClusters, ['a', 'b']);
  });

  test('existing names keep their order, removed ones go, new ones are appended sorted', () => {
    assert.deepEqual(
      applySchedule(fed(undefined, ['z', 'gone', 'm']), { c: 1, m: 1, a: 1, z: 1 }).placementClusters,
      ['z', 'm', 'a', 'c'],
    );
  });

  test('no placement.clusters yet (selector only): written when there are clusters', () => {
    const f = { spec: { placement: { clusterSelector: { matchLabels: { a: 'b' } } } } };
    assert.deepEqual(applySchedule(f, { b: 1, a: 2 }).placementClusters, ['a', 'b']);
    assert.equal(applySchedule(f, {}).placementClusters, undefined);
  });

  test('duplicate names differ from the set (KubeFed compares sorted lists) and are cleaned up', () => {
    assert.deepEqual(applySchedule(fed(undefined, ['a', 'a']), { a: 1 }).placementClusters, ['a']);
  });

  test('malformed placement is an error', () => {
    assert.throws(() => applySchedule({ spec: { placement: { clusters: 'a' } } }, {}), ScheduleApplyError);
    assert.throws(() => applySchedule({ spec: { placement: { clusters: [{}] } } }, {}), /string name/);
  });
});
