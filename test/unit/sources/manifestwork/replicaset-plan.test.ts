import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Placement, PlacementDecision } from '../../../../src/api/ocm/cluster/v1beta1/index.ts';
import type { ManifestWork } from '../../../../src/api/ocm/work/v1/index.ts';
import type { ManifestWorkReplicaSet } from '../../../../src/api/ocm/work/v1alpha1/index.ts';
import {
  buildManifestWork,
  type DeployInput,
  decisionGroups,
  deployStatus,
  ownerKeyOfWork,
  planDeploy,
  summarizeWorks,
  workRolloutStatus,
} from '../../../../src/sources/manifestwork/replicaset/plan.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const T0 = '2026-01-01T11:00:00Z';
const template = {
  workload: {
    manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } }],
  },
};

function mwrs(
  placements: string[],
  rollout?: ManifestWorkReplicaSet['spec']['placementRefs'][number]['rolloutStrategy'],
) {
  return {
    metadata: { name: 'set', namespace: 'apps', labels: { team: 'a' } },
    spec: {
      manifestWorkTemplate: template,
      placementRefs: placements.map((name) => ({ name, rolloutStrategy: rollout })),
    },
  } satisfies ManifestWorkReplicaSet;
}

function decision(placement: string, clusters: string[], index = '0'): PlacementDecision {
  return {
    metadata: {
      name: `${placement}-decision-1`,
      namespace: 'apps',
      labels: {
        'cluster.open-cluster-management.io/placement': placement,
        'cluster.open-cluster-management.io/decision-group-index': index,
      },
    },
    status: { decisions: clusters.map((clusterName) => ({ clusterName, reason: '' })) },
  };
}

function placementObj(name: string, selected: number): Placement {
  return {
    metadata: { name, namespace: 'apps' },
    status: { numberOfSelectedClusters: selected, decisionGroups: [{ decisionGroupIndex: 0 }] },
  };
}

type Cond = { type: string; status: string; gen?: number };
function work(
  set: ManifestWorkReplicaSet,
  cluster: string,
  placement: string,
  conds: Cond[] = [],
  generation = 1,
): ManifestWork {
  const w = buildManifestWork(set, cluster, placement);
  return {
    ...w,
    metadata: { ...w.metadata, generation },
    status: {
      conditions: conds.map((c) => ({
        type: c.type,
        status: c.status,
        reason: 'r',
        message: '',
        lastTransitionTime: T0,
        observedGeneration: c.gen ?? generation,
      })),
    },
  };
}

const done: Cond[] = [
  { type: 'Applied', status: 'True' },
  { type: 'Progressing', status: 'False' },
  { type: 'Available', status: 'True' },
];

function input(
  set: ManifestWorkReplicaSet,
  works: ManifestWork[],
  decisions: Record<string, string[]>,
  selected?: number,
): DeployInput {
  return {
    mwrs: set,
    works,
    now: NOW,
    placement: (name) =>
      name in decisions ? placementObj(name, selected ?? (decisions[name] ?? []).length) : undefined,
    decisions: (name) => (name in decisions ? [decision(name, decisions[name] ?? [])] : []),
  };
}

/** The deploy reconcile: the plan, and the status once its writes are done (`failed`: namespace → error). */
function deploy(i: DeployInput, failed: Map<string, string> = new Map()) {
  const plan = planDeploy(i);
  return { ...plan, status: deployStatus(i.mwrs, plan, failed, i.now) };
}

const cond = (
  status: { conditions?: Array<{ type: string; status: string; reason: string }> },
  type: string,
) => {
  const c = status.conditions?.find((x) => x.type === type);
  return c ? `${c.status}/${c.reason}` : undefined;
};

describe('workRolloutStatus (deploy reconcile clusterRolloutStatusFunc)', () => {
  const set = mwrs(['p']);
  test('not applied at this generation: ToApply', () => {
    assert.equal(workRolloutStatus('c1', work(set, 'c1', 'p')).status, 'ToApply');
    assert.equal(
      workRolloutStatus(
        'c1',
        work(
          set,
          'c1',
          'p',
          [
            { type: 'Applied', status: 'True', gen: 1 },
            { type: 'Progressing', status: 'False' },
          ],
          2,
        ),
      ).status,
      'ToApply',
    );
  });
  test('Progressing decides; Degraded with it is Failed; Available is the fallback', () => {
    const applied = { type: 'Applied', status: 'True' };
    assert.equal(
      workRolloutStatus('c', work(set, 'c', 'p', [applied, { type: 'Progressing', status: 'True' }])).status,
      'Progressing',
    );
    assert.equal(
      workRolloutStatus(
        'c',
        work(set, 'c', 'p', [
          applied,
          { type: 'Progressing', status: 'True' },
          { type: 'Degraded', status: 'True' },
        ]),
      ).status,
      'Failed',
    );
    const s = workRolloutStatus('c', work(set, 'c', 'p', done));
    assert.equal(s.status, 'Succeeded');
    assert.equal(s.lastTransitionTime, Date.parse(T0));
    assert.equal(
      workRolloutStatus('c', work(set, 'c', 'p', [applied, { type: 'Available', status: 'True' }])).status,
      'Succeeded',
    );
    assert.equal(
      workRolloutStatus('c', work(set, 'c', 'p', [applied, { type: 'Available', status: 'False' }])).status,
      'Progressing',
    );
  });
});

test('decisionGroups: by the group labels; no index label is group 0', () => {
  const d = decision('p', ['c1']);
  delete d.metadata.labels?.['cluster.open-cluster-management.io/decision-group-index'];
  assert.deepEqual(decisionGroups([d, decision('p', ['c2'], '1')]), [
    { key: { groupName: '', groupIndex: 0 }, clusters: ['c1'] },
    { key: { groupName: '', groupIndex: 1 }, clusters: ['c2'] },
  ]);
});

test('buildManifestWork: named after the MWRS, in the cluster namespace, MWRS labels plus the two keys, no owner', () => {
  const w = buildManifestWork(mwrs(['p']), 'c1', 'p');
  assert.equal(w.metadata.name, 'set');
  assert.equal(w.metadata.namespace, 'c1');
  assert.deepEqual(w.metadata.labels, {
    team: 'a',
    'work.open-cluster-management.io/manifestworkreplicaset': 'apps.set',
    'work.open-cluster-management.io/placementname': 'p',
  });
  assert.equal(w.metadata.ownerReferences, undefined);
  assert.equal(ownerKeyOfWork(w), 'apps/set');
});

describe('planDeploy', () => {
  test('a work per decided cluster; dropped clusters lose theirs', () => {
    const set = mwrs(['p']);
    const first = deploy(input(set, [], { p: ['c1', 'c2', 'c3'] }));
    assert.deepEqual(
      first.apply.map((w) => w.metadata.namespace),
      ['c1', 'c2', 'c3'],
    );
    assert.equal(first.status.summary?.total, 3);
    assert.equal(cond(first.status, 'PlacementVerified'), 'True/AsExpected');
    assert.equal(cond(first.status, 'PlacementRolledOut'), 'False/Progressing');
    const works = ['c1', 'c2', 'c3'].map((c) => work(set, c, 'p'));
    const second = deploy(input(set, works, { p: ['c1', 'c2'] }));
    assert.deepEqual(
      second.delete.map((w) => w.metadata.namespace),
      ['c3'],
    );
    assert.equal(second.status.summary?.total, 2);
    const third = deploy(input(set, works, { p: [] }));
    assert.equal(third.delete.length, 3);
    assert.equal(third.status.summary?.total, 0);
    assert.equal(cond(third.status, 'PlacementVerified'), 'False/PlacementDecisionEmpty');
  });

  test('every selected cluster succeeded: PlacementRolledOut True/Complete, placementSummary', () => {
    const set = mwrs(['p']);
    const works = ['c1', 'c2'].map((c) => work(set, c, 'p', done));
    const plan = deploy(input(set, works, { p: ['c1', 'c2'] }));
    assert.deepEqual(plan.apply, []);
    assert.equal(cond(plan.status, 'PlacementRolledOut'), 'True/Complete');
    assert.deepEqual(plan.status.placementSummary, [
      { name: 'p', availableDecisionGroups: '1 (2 / 2 clusters applied)', summary: { total: 2 } },
    ]);
  });

  test('a changed template updates the works; a changed placementRef deletes the old placement’s works', () => {
    const set = mwrs(['p']);
    const old = work(set, 'c1', 'p', done);
    const changed = { ...set, spec: { ...set.spec, manifestWorkTemplate: { workload: { manifests: [] } } } };
    assert.deepEqual(
      deploy(input(changed, [old], { p: ['c1'] })).apply.map((w) => w.spec),
      [{ workload: { manifests: [] } }],
    );
    const moved = mwrs(['q']);
    const plan = deploy(input(moved, [old], { q: ['c2'] }));
    assert.deepEqual(
      plan.delete.map((w) => w.metadata.namespace),
      ['c1'],
    );
    assert.deepEqual(
      plan.apply.map((w) => [
        w.metadata.namespace,
        w.metadata.labels?.['work.open-cluster-management.io/placementname'],
      ]),
      [['c2', 'q']],
    );
  });

  test('Progressive maxConcurrency 2: two works first', () => {
    const set = mwrs(['p'], { type: 'Progressive', progressive: { maxConcurrency: 2 } });
    const plan = deploy(input(set, [], { p: ['c1', 'c2', 'c3', 'c4'] }));
    assert.deepEqual(
      plan.apply.map((w) => w.metadata.namespace),
      ['c1', 'c2'],
    );
    assert.equal(plan.status.summary?.total, 2);
  });

  test('a missing Placement: PlacementDecisionNotFound, and the pass stops', () => {
    const plan = deploy(input(mwrs(['nope']), [], {}));
    assert.equal(plan.stop, true);
    assert.equal(cond(plan.status, 'PlacementVerified'), 'False/PlacementDecisionNotFound');
  });

  test('a bad strategy: PlacementVerified NotAsExpected, and an error to retry', () => {
    const set = mwrs(['p'], { type: 'All', all: { progressDeadline: 'soon' } });
    const plan = deploy(input(set, [], { p: ['c1'] }));
    assert.equal(plan.errors.length, 1);
    assert.deepEqual(plan.apply, []);
    assert.equal(cond(plan.status, 'PlacementVerified'), 'False/NotAsExpected');
  });

  test('a work that cannot be written: NotAsExpected naming it, and not counted', () => {
    const set = mwrs(['p']);
    const failed = new Map([['gone', 'failed to apply manifestwork gone/set: namespaces "gone" not found']]);
    const plan = deploy(input(set, [], { p: ['c1', 'gone'] }), failed);
    assert.equal(plan.status.summary?.total, 1);
    assert.equal(cond(plan.status, 'PlacementVerified'), 'False/NotAsExpected');
    const message = plan.status.conditions?.find((c) => c.type === 'PlacementVerified')?.message;
    assert.match(message ?? '', /namespaces "gone" not found/);
  });

  test('conditions keep their lastTransitionTime while their status holds', () => {
    const set = mwrs(['p']);
    const first = deploy(input(set, [], { p: ['c1'] }));
    const again = deploy({
      ...input({ ...set, status: first.status }, [], { p: ['c1'] }),
      now: NOW + 60_000,
    });
    assert.deepEqual(again.status.conditions, first.status.conditions);
  });
});

describe('summarizeWorks (status reconcile)', () => {
  const set = mwrs(['p']);
  test('counts conditions; ManifestworkApplied AsExpected, Processing or NotAsExpected', () => {
    const works = [
      work(set, 'c1', 'p', done),
      work(set, 'c2', 'p', [
        { type: 'Applied', status: 'True' },
        { type: 'Progressing', status: 'True' },
      ]),
    ];
    const s = summarizeWorks({ summary: { total: 2 } }, works, NOW);
    assert.deepEqual(s.summary, { total: 2, applied: 2, progressing: 1, available: 1, degraded: 0 });
    assert.equal(cond(s, 'ManifestworkApplied'), 'False/Processing');
    const all = summarizeWorks({ summary: { total: 1 } }, [work(set, 'c1', 'p', done)], NOW);
    assert.equal(cond(all, 'ManifestworkApplied'), 'True/AsExpected');
    const degraded = summarizeWorks(
      { summary: { total: 1 } },
      [work(set, 'c1', 'p', [...done, { type: 'Degraded', status: 'True' }])],
      NOW,
    );
    assert.equal(cond(degraded, 'ManifestworkApplied'), 'False/NotAsExpected');
  });
  test('no works: PlacementDecisionEmpty when the placement said so', () => {
    const empty = summarizeWorks(
      {
        summary: { total: 0 },
        conditions: [
          {
            type: 'PlacementVerified',
            status: 'False',
            reason: 'PlacementDecisionEmpty',
            message: '',
            lastTransitionTime: T0,
          },
        ],
      },
      [],
      NOW,
    );
    assert.equal(cond(empty, 'ManifestworkApplied'), 'False/PlacementDecisionEmpty');
  });
});
