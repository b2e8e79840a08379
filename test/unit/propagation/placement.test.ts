import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LabelSelectorError } from '../../../src/propagation/label-selector.ts';
import {
  type ClusterInfo,
  type Placement,
  PlacementError,
  resolvePlacement,
  selectedClusterNames,
} from '../../../src/propagation/placement.ts';

const sorted = (s: Set<string>): string[] => [...s].sort();

describe('selectedClusterNames: KubeFed TestSelectedClusterNames', () => {
  const clusters: ClusterInfo[] = [{ name: 'cluster1' }, { name: 'cluster2', labels: { foo: 'bar' } }];
  const cases: [string, Placement | undefined, string[]][] = [
    [
      'names win, selector ignored',
      { clusters: [{ name: 'cluster1' }], clusterSelector: { matchLabels: {} } },
      ['cluster1'],
    ],
    ['no clusters and no selector selects nothing', {}, []],
    [
      'an empty clusters list selects nothing',
      { clusters: [], clusterSelector: { matchLabels: { foo: 'bar' } } },
      [],
    ],
    [
      'an empty selector selects everything',
      { clusterSelector: { matchLabels: {} } },
      ['cluster1', 'cluster2'],
    ],
    [
      'a selector selects by KubeFedCluster labels',
      { clusterSelector: { matchLabels: { foo: 'bar' } } },
      ['cluster2'],
    ],
  ];
  for (const [name, placement, expected] of cases) {
    test(name, () => assert.deepEqual(sorted(selectedClusterNames(placement, clusters)), expected));
  }
});

describe('selectedClusterNames', () => {
  const clusters: ClusterInfo[] = [
    { name: 'a', labels: { region: 'eu' } },
    { name: 'b', labels: { region: 'us' } },
    { name: 'c' },
  ];

  test('missing placement selects nothing', () => {
    assert.deepEqual(sorted(selectedClusterNames(undefined, clusters)), []);
    assert.deepEqual(sorted(selectedClusterNames(null as unknown as Placement, clusters)), []);
  });

  test('clusterSelector {} selects all', () => {
    assert.deepEqual(sorted(selectedClusterNames({ clusterSelector: {} }, clusters)), ['a', 'b', 'c']);
  });

  test('clusters: null is the same as absent', () => {
    assert.deepEqual(sorted(selectedClusterNames({ clusters: null, clusterSelector: {} }, clusters)), [
      'a',
      'b',
      'c',
    ]);
    assert.deepEqual(sorted(selectedClusterNames({ clusters: null, clusterSelector: null }, clusters)), []);
  });

  test('unknown names are dropped silently; duplicates collapse', () => {
    const placement = { clusters: [{ name: 'a' }, { name: 'zzz' }, { name: 'a' }, { name: 'c' }] };
    assert.deepEqual(sorted(selectedClusterNames(placement, clusters)), ['a', 'c']);
  });

  test('match expressions', () => {
    const placement = {
      clusterSelector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['us'] }] },
    };
    assert.deepEqual(sorted(selectedClusterNames(placement, clusters)), ['a', 'c']);
  });

  test('no clusters registered', () => {
    assert.deepEqual(sorted(selectedClusterNames({ clusterSelector: {} }, [])), []);
    assert.deepEqual(sorted(selectedClusterNames({ clusters: [{ name: 'a' }] }, [])), []);
  });

  test('an invalid selector throws LabelSelectorError', () => {
    assert.throws(
      () =>
        selectedClusterNames(
          { clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } },
          clusters,
        ),
      LabelSelectorError,
    );
  });

  test('an invalid selector is ignored when clusters is present', () => {
    const placement = {
      clusters: [{ name: 'b' }],
      clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] },
    };
    assert.deepEqual(sorted(selectedClusterNames(placement, clusters)), ['b']);
  });

  test('malformed placements throw PlacementError, never TypeError', () => {
    const bad: [unknown, string][] = [
      ['x', 'placement must be an object'],
      [[], 'placement must be an object'],
      [{ clusters: 'a' }, 'placement.clusters must be a list'],
      [{ clusters: {} }, 'placement.clusters must be a list'],
      [{ clusters: ['a'] }, 'placement.clusters[0] must be an object with a string name'],
      [{ clusters: [{ name: 'a' }, null] }, 'placement.clusters[1] must be an object with a string name'],
      [{ clusters: [{}] }, 'placement.clusters[0] must be an object with a string name'],
      [{ clusters: [{ name: 5 }] }, 'placement.clusters[0] must be an object with a string name'],
      [{ clusterSelector: 'x' }, 'placement.clusterSelector must be an object'],
    ];
    for (const [placement, message] of bad) {
      assert.throws(() => selectedClusterNames(placement as Placement, clusters), {
        name: 'PlacementError',
        message,
      });
      assert.throws(() => selectedClusterNames(placement as Placement, clusters), PlacementError);
    }
  });
});

describe('resolvePlacement', () => {
  const clusters: ClusterInfo[] = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
  const own: Placement = { clusters: [{ name: 'a' }, { name: 'b' }] };
  const ns: Placement = { clusters: [{ name: 'b' }, { name: 'c' }] };
  const resolve = (
    namespaced: boolean,
    namespacePlacement: Placement | undefined | null,
    controlPlaneScope: 'Cluster' | 'Namespaced',
    placement: Placement | undefined = own,
  ) => {
    const r = resolvePlacement({ placement, namespaced, namespacePlacement, controlPlaneScope, clusters });
    return { clusters: sorted(r.clusters), namespaceNotFederated: r.namespaceNotFederated };
  };

  test('cluster-scoped control plane, FederatedNamespace missing: nothing, NamespaceNotFederated', () => {
    assert.deepEqual(resolve(true, null, 'Cluster'), { clusters: [], namespaceNotFederated: true });
  });

  test('cluster-scoped control plane, FederatedNamespace present: intersection', () => {
    assert.deepEqual(resolve(true, ns, 'Cluster'), { clusters: ['b'], namespaceNotFederated: false });
  });

  test('namespaced control plane, FederatedNamespace missing: resource placement verbatim', () => {
    assert.deepEqual(resolve(true, null, 'Namespaced'), {
      clusters: ['a', 'b'],
      namespaceNotFederated: false,
    });
  });

  test('namespaced control plane, FederatedNamespace present: intersection', () => {
    assert.deepEqual(resolve(true, ns, 'Namespaced'), { clusters: ['b'], namespaceNotFederated: false });
  });

  test('FederatedNamespace selecting nothing empties the placement', () => {
    assert.deepEqual(resolve(true, {}, 'Cluster'), { clusters: [], namespaceNotFederated: false });
  });

  test('not applicable (FederatedNamespace itself): own placement', () => {
    assert.deepEqual(resolve(true, undefined, 'Cluster'), {
      clusters: ['a', 'b'],
      namespaceNotFederated: false,
    });
  });

  test('cluster-scoped types ignore the namespace placement', () => {
    assert.deepEqual(resolve(false, null, 'Cluster'), { clusters: ['a', 'b'], namespaceNotFederated: false });
    assert.deepEqual(resolve(false, ns, 'Cluster'), { clusters: ['a', 'b'], namespaceNotFederated: false });
  });

  test('the resource placement is validated even when the namespace is not federated', () => {
    const bad = { clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } };
    assert.throws(() => resolve(true, null, 'Cluster', bad), LabelSelectorError);
  });

  test('an invalid namespace placement throws', () => {
    const bad = { clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } };
    assert.throws(() => resolve(true, bad, 'Cluster'), LabelSelectorError);
  });

  test('selectors on both sides', () => {
    const labelled: ClusterInfo[] = [
      { name: 'a', labels: { tier: 'gold' } },
      { name: 'b', labels: { tier: 'gold', region: 'eu' } },
      { name: 'c', labels: { region: 'eu' } },
    ];
    const r = resolvePlacement({
      placement: { clusterSelector: { matchLabels: { tier: 'gold' } } },
      namespaced: true,
      namespacePlacement: { clusterSelector: { matchLabels: { region: 'eu' } } },
      controlPlaneScope: 'Cluster',
      clusters: labelled,
    });
    assert.deepEqual(sorted(r.clusters), ['b']);
  });
});
