import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Placement } from '../../../../src/api/ocm/cluster/v1beta1/index.ts';
import type { ClusterObject } from '../../../../src/members/cluster-registry.ts';
import {
  placeableClusters,
  placementStatus,
} from '../../../../src/sources/manifestwork/placement/controller.ts';
import {
  DECISIONS_ANNOTATION,
  decidedByKubefed,
  groupLength,
  planPlacement,
  selectClusters,
} from '../../../../src/sources/manifestwork/placement/decide.ts';

const clusters = [
  { name: 'c3', labels: { env: 'prod', region: 'eu' } },
  { name: 'c1', labels: { env: 'prod', region: 'us' } },
  { name: 'c2', labels: { env: 'dev', region: 'eu' } },
];

function placement(spec: Placement['spec'], annotations?: Record<string, string>): Placement {
  return { metadata: { name: 'p', namespace: 'ns', uid: 'u1', annotations }, spec };
}

describe('selectClusters', () => {
  test('neither predicates nor spec.placement: every cluster, by name', () => {
    assert.deepEqual(selectClusters(placement({}), clusters), ['c1', 'c2', 'c3']);
    assert.deepEqual(selectClusters(placement(undefined), clusters), ['c1', 'c2', 'c3']);
  });

  test('spec.placement clusterSelector and clusters, as KubeFed placement (clusters win)', () => {
    assert.deepEqual(
      selectClusters(
        placement({ placement: { clusterSelector: { matchLabels: { env: 'prod' } } } }),
        clusters,
      ),
      ['c1', 'c3'],
    );
    assert.deepEqual(
      selectClusters(
        placement({
          placement: {
            clusters: [{ name: 'c2' }, { name: 'gone' }],
            clusterSelector: { matchLabels: { env: 'prod' } },
          },
        }),
        clusters,
      ),
      ['c2'],
    );
    // KubeFed: an empty clusterSelector selects all, an absent one (with no clusters) nothing.
    assert.deepEqual(selectClusters(placement({ placement: { clusterSelector: {} } }), clusters), [
      'c1',
      'c2',
      'c3',
    ]);
    assert.deepEqual(selectClusters(placement({ placement: {} }), clusters), []);
  });

  test('predicates are ORed; an empty predicate selects all', () => {
    const spec: Placement['spec'] = {
      predicates: [
        { requiredClusterSelector: { labelSelector: { matchLabels: { region: 'us' } } } },
        { requiredClusterSelector: { labelSelector: { matchLabels: { env: 'dev' } } } },
      ],
    };
    assert.deepEqual(selectClusters(placement(spec), clusters), ['c1', 'c2']);
    assert.deepEqual(selectClusters(placement({ predicates: [{}] }), clusters), ['c1', 'c2', 'c3']);
  });

  test('spec.placement and predicates together narrow each other; numberOfClusters keeps the first N', () => {
    const spec: Placement['spec'] = {
      placement: { clusterSelector: { matchLabels: { env: 'prod' } } },
      predicates: [{ requiredClusterSelector: { labelSelector: { matchLabels: { region: 'eu' } } } }],
    };
    assert.deepEqual(selectClusters(placement(spec), clusters), ['c3']);
    assert.deepEqual(selectClusters(placement({ numberOfClusters: 2 }), clusters), ['c1', 'c2']);
  });
});

test('decidedByKubefed: only the external annotation hands a Placement to the user', () => {
  assert.equal(decidedByKubefed(placement({})), true);
  assert.equal(decidedByKubefed(placement({}, { [DECISIONS_ANNOTATION]: 'external' })), false);
  assert.equal(decidedByKubefed(placement({}, { [DECISIONS_ANNOTATION]: 'other' })), true);
});

test('groupLength: a count or a percentage rounded up; out of range means all', () => {
  assert.equal(groupLength(undefined, 7), 7);
  assert.equal(groupLength(3, 7), 3);
  assert.equal(groupLength('25%', 7), 2);
  assert.equal(groupLength(0, 7), 7);
  assert.equal(groupLength(10, 7), 7);
  assert.throws(() => groupLength('x', 7), /clustersPerDecisionGroup/);
});

describe('planPlacement', () => {
  test('one group, one decision named <placement>-decision-1 with the labels, status counts', () => {
    const plan = planPlacement(placement({}), clusters);
    assert.equal(plan.kind, 'decided');
    if (plan.kind !== 'decided') return;
    assert.deepEqual(plan.decisions, [
      {
        name: 'p-decision-1',
        labels: {
          'cluster.open-cluster-management.io/placement': 'p',
          'cluster.open-cluster-management.io/decision-group-index': '0',
          'cluster.open-cluster-management.io/decision-group-name': '',
        },
        clusters: ['c1', 'c2', 'c3'],
      },
    ]);
    assert.deepEqual(plan.groups, [
      { decisionGroupIndex: 0, decisionGroupName: '', decisions: ['p-decision-1'], clusterCount: 3 },
    ]);
    assert.equal(plan.conditions[0]?.status, 'True');
    assert.equal(plan.conditions[0]?.reason, 'AllDecisionsScheduled');
  });

  test('nothing selected: one empty decision, PlacementSatisfied False NoManagedClusterMatched', () => {
    const plan = planPlacement(placement({ placement: { clusters: [] } }), clusters);
    assert.equal(plan.kind, 'decided');
    if (plan.kind !== 'decided') return;
    assert.deepEqual(
      plan.decisions.map((d) => d.clusters),
      [[]],
    );
    assert.equal(plan.conditions[0]?.reason, 'NoManagedClusterMatched');
  });

  test('fewer clusters than numberOfClusters: NotAllDecisionsScheduled', () => {
    const plan = planPlacement(placement({ numberOfClusters: 5 }), clusters);
    assert.equal(plan.conditions[0]?.status, 'False');
    assert.equal(plan.conditions[0]?.reason, 'NotAllDecisionsScheduled');
  });

  test('decision groups by groupClusterSelector, then the rest; clustersPerDecisionGroup splits them', () => {
    const plan = planPlacement(
      placement({
        decisionStrategy: {
          groupStrategy: {
            clustersPerDecisionGroup: 1,
            decisionGroups: [
              {
                groupName: 'prod',
                groupClusterSelector: { labelSelector: { matchLabels: { env: 'prod' } } },
              },
              { groupName: 'none', groupClusterSelector: { labelSelector: { matchLabels: { env: 'qa' } } } },
            ],
          },
        },
      }),
      clusters,
    );
    if (plan.kind !== 'decided') return assert.fail('not decided');
    assert.deepEqual(
      plan.groups.map((g) => [g.decisionGroupIndex, g.decisionGroupName, g.decisions, g.clusterCount]),
      [
        [0, 'prod', ['p-decision-1'], 1],
        [1, 'prod', ['p-decision-2'], 1],
        [2, '', ['p-decision-3'], 1],
      ],
    );
    assert.deepEqual(
      plan.decisions.map((d) => d.clusters),
      [['c1'], ['c3'], ['c2']],
    );
  });

  test('at most 100 decisions per PlacementDecision', () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ name: `m${String(i).padStart(3, '0')}` }));
    const plan = planPlacement(placement({}), many);
    if (plan.kind !== 'decided') return assert.fail('not decided');
    assert.deepEqual(
      plan.decisions.map((d) => [d.name, d.clusters.length]),
      [
        ['p-decision-1', 100],
        ['p-decision-2', 100],
        ['p-decision-3', 50],
      ],
    );
    assert.deepEqual(plan.groups[0]?.decisions, ['p-decision-1', 'p-decision-2', 'p-decision-3']);
    assert.equal(plan.selected.length, 250);
  });

  test('an invalid selector: PlacementMisconfigured, no decisions', () => {
    const plan = planPlacement(
      placement({
        predicates: [
          {
            requiredClusterSelector: {
              labelSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] },
            },
          },
        ],
      }),
      clusters,
    );
    assert.equal(plan.kind, 'misconfigured');
    assert.equal(plan.conditions[0]?.type, 'PlacementMisconfigured');
    assert.equal(plan.conditions[0]?.status, 'True');
  });
});

test('placeableClusters: ready KubeFedClusters, push and pull alike', () => {
  const cluster = (name: string, ready: 'True' | 'False', syncMode?: 'Push' | 'Pull'): ClusterObject => ({
    metadata: { name, namespace: 'kube-federation-system', labels: { env: name } },
    spec: { apiEndpoint: 'https://x', ...(syncMode ? { syncMode } : {}) },
    status: {
      conditions: [{ type: 'Ready' as const, status: ready, lastProbeTime: '2026-01-01T00:00:00Z' }],
    },
  });
  assert.deepEqual(
    placeableClusters([cluster('push', 'True'), cluster('pull', 'True', 'Pull'), cluster('down', 'False')]),
    [
      { name: 'push', labels: { env: 'push' } },
      { name: 'pull', labels: { env: 'pull' } },
    ],
  );
});

test('placementStatus: counts and groups from the plan; conditions keep their time while unchanged', () => {
  const p = placement({});
  const plan = planPlacement(p, clusters);
  const first = placementStatus(p, plan, '2026-01-01T00:00:00Z');
  assert.equal(first.numberOfSelectedClusters, 3);
  assert.equal(first.decisionGroups?.length, 1);
  const again = placementStatus({ ...p, status: first }, plan, '2026-01-02T00:00:00Z');
  assert.deepEqual(again, first);
});
