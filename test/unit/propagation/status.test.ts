import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ComputeFederatedStatusInput,
  computeFederatedStatus,
  type FederatedStatus,
  rfc3339Seconds,
} from '../../../src/propagation/status.ts';

const NOW = new Date('2026-11-29T10:00:00.123Z');
const T0 = '2026-01-01T00:00:00Z';

describe('computeFederatedStatus: KubeFed TestGenericPropagationStatusUpdateChanged', () => {
  interface Case {
    generation?: number;
    reason?: string;
    statusMap?: Record<string, string>;
    resourceStatusMap?: Record<string, unknown>;
    remoteStatus?: unknown;
    resourcesUpdated?: boolean;
    expectedChanged: boolean;
  }
  const remote = { status: { status: 'remoteStatus' } };
  // Each case runs with remote-status collection on and off unless the name says which.
  const cases: Record<string, Case & { rsc?: boolean }> = {
    'Cluster not propagated indicates changed': {
      statusMap: { cluster1: 'ClusterNotReady' },
      resourceStatusMap: { cluster1: {} },
      expectedChanged: true,
    },
    'Cluster status not retrieved indicates changed': { statusMap: {}, expectedChanged: true },
    'No collected remote status indicates changed with status collected enabled': {
      rsc: true,
      statusMap: { cluster1: '' },
      expectedChanged: true,
    },
    'No collected remote status indicates unchanged with status collected disabled': {
      rsc: false,
      statusMap: { cluster1: '' },
      expectedChanged: false,
    },
    'No change in clusters indicates unchanged (fixture remote status is nil, so changed)': {
      statusMap: { cluster1: '' },
      resourceStatusMap: { cluster1: {} },
      expectedChanged: true,
    },
    'No change in clusters with update indicates changed': {
      statusMap: { cluster1: '' },
      resourceStatusMap: { cluster1: {} },
      resourcesUpdated: true,
      expectedChanged: true,
    },
    'No change in remote status indicates unchanged with status collected enabled': {
      rsc: true,
      statusMap: { cluster1: '' },
      resourceStatusMap: { cluster1: remote },
      remoteStatus: remote,
      expectedChanged: false,
    },
    'Change in clusters indicates changed': {
      statusMap: { cluster1: '', cluster2: '' },
      expectedChanged: true,
    },
    'Transition indicates changed': { reason: 'NamespaceNotFederated', expectedChanged: true },
    'Changed generation indicates changed': { generation: 1, expectedChanged: true },
  };
  for (const [name, tc] of Object.entries(cases)) {
    for (const rsc of tc.rsc === undefined ? [true, false] : [tc.rsc]) {
      test(`${name} (collection ${rsc ? 'on' : 'off'})`, () => {
        const current: FederatedStatus = {
          clusters: [
            { name: 'cluster1', ...(tc.remoteStatus === undefined ? {} : { remoteStatus: tc.remoteStatus }) },
          ],
          conditions: [{ type: 'Propagation', status: 'True' }],
        };
        const { changed } = computeFederatedStatus({
          current,
          generation: tc.generation ?? 0,
          reason: tc.reason ?? '',
          clusterStatuses: new Map(Object.entries(tc.statusMap ?? {})),
          remoteStatuses: new Map(Object.entries(tc.resourceStatusMap ?? {})),
          remoteStatusCollection: rsc,
          resourcesUpdated: tc.resourcesUpdated ?? false,
          now: NOW,
        });
        assert.equal(changed, tc.expectedChanged);
      });
    }
  }
});

const base = (over: Partial<ComputeFederatedStatusInput> = {}): ComputeFederatedStatusInput => ({
  current: undefined,
  generation: 1,
  reason: '',
  clusterStatuses: new Map(),
  remoteStatuses: undefined,
  resourcesUpdated: false,
  now: NOW,
  ...over,
});

describe('computeFederatedStatus', () => {
  test('timestamps are RFC 3339 UTC with second precision', () => {
    assert.equal(rfc3339Seconds(NOW), '2026-11-29T10:00:00Z');
    assert.equal(rfc3339Seconds(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 999))), '2026-01-02T03:04:05Z');
  });

  test('first reconcile: the worked example status', () => {
    const { status, changed } = computeFederatedStatus(
      base({
        clusterStatuses: new Map([
          ['cluster2', ''],
          ['cluster1', ''],
        ]),
        resourcesUpdated: true,
      }),
    );
    assert.equal(changed, true);
    assert.deepEqual(status, {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Propagation',
          status: 'True',
          lastTransitionTime: '2026-11-29T10:00:00Z',
          lastUpdateTime: '2026-11-29T10:00:00Z',
        },
      ],
      clusters: [{ name: 'cluster1' }, { name: 'cluster2' }],
    });
  });

  test('steady state is unchanged and keeps the old timestamps', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'cluster1' }, { name: 'cluster2' }],
    };
    const { status, changed } = computeFederatedStatus(
      base({
        current,
        clusterStatuses: new Map([
          ['cluster1', ''],
          ['cluster2', ''],
        ]),
        resourcesUpdated: true,
      }),
    );
    assert.equal(changed, false);
    assert.deepEqual(status, current);
  });

  test('a cluster error sets CheckClusters, sorted list, status omitted when OK', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'b' }, { name: 'a' }],
    };
    const { status, changed } = computeFederatedStatus(
      base({
        current,
        clusterStatuses: new Map([
          ['b', 'ClusterNotReady'],
          ['c', ''],
          ['a', ''],
        ]),
      }),
    );
    assert.equal(changed, true);
    assert.deepEqual(status.clusters, [
      { name: 'a' },
      { name: 'b', status: 'ClusterNotReady' },
      { name: 'c' },
    ]);
    assert.deepEqual(status.conditions, [
      {
        type: 'Propagation',
        status: 'False',
        reason: 'CheckClusters',
        lastTransitionTime: '2026-11-29T10:00:00Z',
        lastUpdateTime: '2026-11-29T10:00:00Z',
      },
    ]);
  });

  test('an unsorted list with the same content is kept as is (written by KubeFed)', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'b' }, { name: 'a' }],
    };
    const r = computeFederatedStatus(
      base({
        current,
        clusterStatuses: new Map([
          ['a', ''],
          ['b', ''],
        ]),
      }),
    );
    assert.equal(r.changed, false);
    assert.deepEqual(r.status.clusters, [{ name: 'b' }, { name: 'a' }]);
  });

  test('a renamed OK cluster is noticed', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'old' }],
    };
    const r = computeFederatedStatus(base({ current, clusterStatuses: new Map([['new', '']]) }));
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.clusters, [{ name: 'new' }]);
    assert.equal(r.status.conditions?.[0]?.lastUpdateTime, '2026-11-29T10:00:00Z');
    assert.equal(r.status.conditions?.[0]?.lastTransitionTime, T0);
  });

  test('an aggregate error is kept, CheckClusters does not override it', () => {
    const r = computeFederatedStatus(
      base({ reason: 'ComputePlacementFailed', clusterStatuses: new Map([['a', 'ClusterNotReady']]) }),
    );
    assert.equal(r.status.conditions?.[0]?.reason, 'ComputePlacementFailed');
    assert.equal(r.status.conditions?.[0]?.status, 'False');
  });

  test('returning to success clears the reason and records the transition', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Propagation',
          status: 'False',
          reason: 'CheckClusters',
          lastTransitionTime: T0,
          lastUpdateTime: T0,
        },
      ],
      clusters: [{ name: 'a', status: 'UpdateFailed' }],
    };
    const r = computeFederatedStatus(base({ current, clusterStatuses: new Map([['a', '']]) }));
    assert.deepEqual(r.status.conditions, [
      {
        type: 'Propagation',
        status: 'True',
        lastTransitionTime: '2026-11-29T10:00:00Z',
        lastUpdateTime: '2026-11-29T10:00:00Z',
      },
    ]);
    assert.deepEqual(r.status.clusters, [{ name: 'a' }]);
  });

  test('same failure again: no transition, no update', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Propagation',
          status: 'False',
          reason: 'CheckClusters',
          lastTransitionTime: T0,
          lastUpdateTime: T0,
        },
      ],
      clusters: [{ name: 'a', status: 'UpdateFailed' }],
    };
    const r = computeFederatedStatus(base({ current, clusterStatuses: new Map([['a', 'UpdateFailed']]) }));
    assert.equal(r.changed, false);
  });

  test('a different failing status refreshes lastUpdateTime only', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [
        {
          type: 'Propagation',
          status: 'False',
          reason: 'CheckClusters',
          lastTransitionTime: T0,
          lastUpdateTime: T0,
        },
      ],
      clusters: [{ name: 'a', status: 'UpdateFailed' }],
    };
    const r = computeFederatedStatus(base({ current, clusterStatuses: new Map([['a', 'ClusterNotReady']]) }));
    assert.equal(r.changed, true);
    assert.equal(r.status.conditions?.[0]?.lastTransitionTime, T0);
    assert.equal(r.status.conditions?.[0]?.lastUpdateTime, '2026-11-29T10:00:00Z');
  });

  test('member updates alone do not bump lastUpdateTime with collection off (KubeFed quirk)', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'a' }],
    };
    const off = computeFederatedStatus(
      base({ current, clusterStatuses: new Map([['a', '']]), resourcesUpdated: true }),
    );
    assert.equal(off.changed, false);
    const withRemote: FederatedStatus = { ...current, clusters: [{ name: 'a', remoteStatus: { ready: 1 } }] };
    const on = computeFederatedStatus(
      base({
        current: withRemote,
        clusterStatuses: new Map([['a', '']]),
        remoteStatuses: new Map([['a', { ready: 1 }]]),
        resourcesUpdated: true,
      }),
    );
    assert.equal(on.changed, true);
    assert.equal(on.status.conditions?.[0]?.lastUpdateTime, '2026-11-29T10:00:00Z');
  });

  test('remote statuses: stored, normalized, missing ones force CheckClusters', () => {
    const r = computeFederatedStatus(
      base({
        clusterStatuses: new Map([
          ['a', ''],
          ['b', ''],
        ]),
        remoteStatuses: new Map<string, unknown>([
          ['a', { replicas: 1, gone: undefined }],
          ['b', null],
        ]),
      }),
    );
    assert.deepEqual(r.status.clusters, [{ name: 'a', remoteStatus: { replicas: 1 } }, { name: 'b' }]);
    assert.equal(r.status.conditions?.[0]?.reason, 'CheckClusters');
  });

  test('remote statuses compare structurally', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'a', remoteStatus: { b: 1, a: [1, 2] } }],
    };
    const same = computeFederatedStatus(
      base({
        current,
        clusterStatuses: new Map([['a', '']]),
        remoteStatuses: new Map([['a', { a: [1, 2], b: 1.0 }]]),
      }),
    );
    assert.equal(same.changed, false);
    const different = computeFederatedStatus(
      base({
        current,
        clusterStatuses: new Map([['a', '']]),
        remoteStatuses: new Map([['a', { a: [2, 1], b: 1 }]]),
      }),
    );
    assert.equal(different.changed, true);
    assert.deepEqual(different.status.clusters, [{ name: 'a', remoteStatus: { a: [2, 1], b: 1 } }]);
  });

  test('turning collection off clears stale remote statuses', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'a', remoteStatus: { x: 1 } }],
    };
    const r = computeFederatedStatus(base({ current, clusterStatuses: new Map([['a', '']]) }));
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.clusters, [{ name: 'a' }]);
  });

  test('an empty status map removes the clusters field', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'a' }],
    };
    const r = computeFederatedStatus(base({ current }));
    assert.equal(r.changed, true);
    assert.equal('clusters' in r.status, false);
  });

  test('observedGeneration follows the generation', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
    };
    const r = computeFederatedStatus(base({ current, generation: 2 }));
    assert.equal(r.changed, true);
    assert.equal(r.status.observedGeneration, 2);
    assert.equal(r.status.conditions?.[0]?.lastUpdateTime, T0);
  });

  test('other conditions and unknown fields are preserved; input is not mutated', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [
        { type: 'Other', status: 'True' } as unknown as NonNullable<FederatedStatus['conditions']>[number],
        { type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 },
      ],
      clusters: [{ name: 'a' }],
      extra: { keep: true },
    };
    const snapshot = structuredClone(current);
    const r = computeFederatedStatus(
      base({ current, reason: 'NamespaceNotFederated', clusterStatuses: new Map([['a', '']]) }),
    );
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.extra, { keep: true });
    assert.deepEqual(r.status.conditions?.[0], { type: 'Other', status: 'True' });
    assert.equal(r.status.conditions?.[1]?.reason, 'NamespaceNotFederated');
    assert.deepEqual(current, snapshot);
  });

  test('aggregate is written, compared, and removed when absent', () => {
    const current: FederatedStatus = {
      observedGeneration: 1,
      conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
      clusters: [{ name: 'a' }],
    };
    const clusterStatuses = new Map([['a', '']]);
    const aggregate = { clusters: 1, healthyClusters: 1, replicas: 3, readyReplicas: 3 };
    const added = computeFederatedStatus(base({ current, clusterStatuses, aggregate }));
    assert.equal(added.changed, true);
    assert.deepEqual(added.status.aggregate, aggregate);
    assert.equal(added.status.conditions?.[0]?.lastUpdateTime, T0);
    const same = computeFederatedStatus(
      base({ current: added.status, clusterStatuses, aggregate: { ...aggregate } }),
    );
    assert.equal(same.changed, false);
    const different = computeFederatedStatus(
      base({ current: added.status, clusterStatuses, aggregate: { ...aggregate, readyReplicas: 2 } }),
    );
    assert.equal(different.changed, true);
    const removed = computeFederatedStatus(base({ current: added.status, clusterStatuses }));
    assert.equal(removed.changed, true);
    assert.equal('aggregate' in removed.status, false);
  });

  test('malformed current status is tolerated', () => {
    const r = computeFederatedStatus(
      base({
        current: { clusters: 'x', conditions: 'y' } as unknown as FederatedStatus,
        clusterStatuses: new Map([['a', '']]),
      }),
    );
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.clusters, [{ name: 'a' }]);
    assert.equal(r.status.conditions?.length, 1);
  });
});

describe('per-cluster messages (kubefed-ts)', () => {
  test('a failed cluster carries its message; an OK one never does; a new message is a change', () => {
    const now = new Date('2026-11-29T10:00:00Z');
    const first = computeFederatedStatus({
      current: undefined,
      generation: 1,
      reason: '',
      clusterStatuses: new Map([
        ['a', 'UpdateFailed'],
        ['b', ''],
      ]),
      clusterMessages: new Map([
        ['a', 'field is immutable'],
        ['b', 'ignored for an OK cluster'],
      ]),
      remoteStatuses: undefined,
      resourcesUpdated: false,
      now,
    });
    assert.deepEqual(first.status.clusters, [
      { name: 'a', status: 'UpdateFailed', message: 'field is immutable' },
      { name: 'b' },
    ]);
    const same = computeFederatedStatus({
      current: first.status,
      generation: 1,
      reason: '',
      clusterStatuses: new Map([
        ['a', 'UpdateFailed'],
        ['b', ''],
      ]),
      clusterMessages: new Map([['a', 'field is immutable']]),
      remoteStatuses: undefined,
      resourcesUpdated: false,
      now,
    });
    assert.equal(same.changed, false);
    const other = computeFederatedStatus({
      current: first.status,
      generation: 1,
      reason: '',
      clusterStatuses: new Map([
        ['a', 'UpdateFailed'],
        ['b', ''],
      ]),
      clusterMessages: new Map([['a', 'conflict']]),
      remoteStatuses: undefined,
      resourcesUpdated: false,
      now,
    });
    assert.equal(other.changed, true);
  });
});

describe('status.propagatedVersion (kubefed-ts: recorded versions without a PropagatedVersion)', () => {
  const steady: FederatedStatus = {
    observedGeneration: 1,
    conditions: [{ type: 'Propagation', status: 'True', lastTransitionTime: T0, lastUpdateTime: T0 }],
    clusters: [{ name: 'cluster1' }],
  };
  const v1 = {
    templateVersion: 't1',
    overridesVersion: 'o1',
    clusterVersions: [{ clusterName: 'cluster1', version: 'rv:5' }],
  };
  const v2 = { ...v1, clusterVersions: [{ clusterName: 'cluster1', version: 'rv:9' }] };
  const steadyInput = (over: Partial<ComputeFederatedStatusInput>) =>
    base({ current: steady, clusterStatuses: new Map([['cluster1', '']]), ...over });

  const cases: Array<{
    name: string;
    current: FederatedStatus;
    input: Partial<ComputeFederatedStatusInput>;
    changed: boolean;
    propagatedVersion: unknown;
  }> = [
    {
      name: 'not given: left as it is, no change',
      current: { ...steady, propagatedVersion: v1 },
      input: { resourcesUpdated: true },
      changed: false,
      propagatedVersion: v1,
    },
    {
      name: 'a change alone with members written this round: written',
      current: { ...steady, propagatedVersion: v1 },
      input: { propagatedVersion: v2, resourcesUpdated: true },
      changed: true,
      propagatedVersion: v2,
    },
    {
      name: 'a change alone without member writes (seeded from a PropagatedVersion): no write',
      current: steady,
      input: { propagatedVersion: v1, resourcesUpdated: false },
      changed: false,
      propagatedVersion: undefined,
    },
    {
      name: 'a change alone owed by an earlier round (versionsUnsaved): written',
      current: { ...steady, propagatedVersion: v1 },
      input: { propagatedVersion: v2, resourcesUpdated: false, versionsUnsaved: true },
      changed: true,
      propagatedVersion: v2,
    },
    {
      name: 'versionsUnsaved false overrides resourcesUpdated (members rewritten to the same version)',
      current: { ...steady, propagatedVersion: v1 },
      input: { propagatedVersion: v2, resourcesUpdated: true, versionsUnsaved: false },
      changed: false,
      propagatedVersion: v1,
    },
    {
      name: 'rides along with another change (a new generation) without member writes',
      current: steady,
      input: { generation: 2, propagatedVersion: v1, resourcesUpdated: false },
      changed: true,
      propagatedVersion: v1,
    },
    {
      name: 'the same versions: no change even with members written',
      current: { ...steady, propagatedVersion: v1 },
      input: { propagatedVersion: structuredClone(v1), resourcesUpdated: true },
      changed: false,
      propagatedVersion: v1,
    },
  ];
  cases.push(
    {
      name: 'PropagatedVersions kept instead (dropPropagatedVersion): a stale one rides out with another change',
      current: { ...steady, propagatedVersion: v1 },
      input: { generation: 2, resourcesUpdated: true, dropPropagatedVersion: true },
      changed: true,
      propagatedVersion: undefined,
    },
    {
      name: 'PropagatedVersions kept instead, nothing else changed: kept, no write for it alone',
      current: { ...steady, propagatedVersion: v1 },
      input: { resourcesUpdated: true, dropPropagatedVersion: true },
      changed: false,
      propagatedVersion: v1,
    },
  );
  for (const tc of cases) {
    test(tc.name, () => {
      const r = computeFederatedStatus(steadyInput({ current: tc.current, ...tc.input }));
      assert.equal(r.changed, tc.changed);
      assert.deepEqual(r.status.propagatedVersion, tc.propagatedVersion);
    });
  }

  test('a cold create carries the versions in its one status write; the input is not aliased', () => {
    const input = { ...v1, clusterVersions: [...v1.clusterVersions] };
    const r = computeFederatedStatus(
      base({
        clusterStatuses: new Map([['cluster1', '']]),
        resourcesUpdated: true,
        propagatedVersion: input,
      }),
    );
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.propagatedVersion, v1);
    input.clusterVersions.push({ clusterName: 'cluster2', version: 'rv:1' });
    assert.deepEqual(r.status.propagatedVersion, v1);
  });
});
