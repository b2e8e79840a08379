import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type {
  ClusterCondition,
  KubeFedCluster,
  Taint,
} from '../../../src/api/core/v1beta1/kubefedcluster.ts';
import type { ClusterTaintPolicy } from '../../../src/api/policy/v1alpha1/clustertaintpolicy.ts';
import {
  conditionsMatch,
  decideTaints,
  policiesInOrder,
} from '../../../src/controllers/clustertaintpolicy/decide.ts';
import { probeConditions } from '../../../src/controllers/kubefedcluster/health.ts';
import { editTaints, healthTaints } from '../../../src/controllers/kubefedcluster/taints.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';

const NOW = '2026-12-01T10:00:00Z';
const EARLIER = '2026-12-01T09:00:00Z';
const notReadyNS: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule', timeAdded: EARLIER };
const unreachableNS: Taint = {
  key: 'cluster.karmada.io/unreachable',
  effect: 'NoSchedule',
  timeAdded: EARLIER,
};
const user: Taint = { key: 'team', value: 'a', effect: 'NoSchedule' };

describe('editTaints', () => {
  it('adds what is missing, stamped now, after the kept ones', () => {
    assert.deepEqual(editTaints([user], [{ key: 'k', value: 'v', effect: 'NoExecute' }], [], NOW), [
      user,
      { key: 'k', value: 'v', effect: 'NoExecute', timeAdded: NOW },
    ]);
  });
  it('matches by key and effect only: a taint with another value is already there', () => {
    assert.equal(editTaints([user], [{ key: 'team', value: 'b', effect: 'NoSchedule' }], [], NOW), undefined);
  });
  it('the same key with another effect is another taint', () => {
    assert.deepEqual(editTaints([user], [{ key: 'team', effect: 'NoExecute' }], [], NOW), [
      user,
      { key: 'team', effect: 'NoExecute', timeAdded: NOW },
    ]);
  });
  it('removes by key and effect, and says undefined when nothing changes', () => {
    assert.deepEqual(editTaints([user, notReadyNS], [], [{ key: 'team', effect: 'NoSchedule' }], NOW), [
      notReadyNS,
    ]);
    assert.equal(editTaints([user], [], [{ key: 'team', effect: 'NoExecute' }], NOW), undefined);
    assert.equal(editTaints(undefined, [], [{ key: 'team', effect: 'NoSchedule' }], NOW), undefined);
  });
});

describe('healthTaints (taintClusterByCondition over KubeFed conditions)', () => {
  const conditionsOf = (kind: 'ready' | 'notReady' | 'unreachable' | 'malformed'): ClusterCondition[] =>
    probeConditions(
      kind === 'unreachable'
        ? { kind, error: 'connection refused' }
        : kind === 'malformed'
          ? { kind, detail: 'no secret' }
          : { kind },
      NOW,
    );

  it('Ready=False: not-ready NoSchedule, with timeAdded, the user taint kept', () => {
    assert.deepEqual(healthTaints([user], conditionsOf('notReady'), NOW), [
      user,
      { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule', timeAdded: NOW },
    ]);
  });
  it('unreachable (Offline=True, no Ready condition): unreachable NoSchedule, swapping out not-ready', () => {
    assert.deepEqual(healthTaints([notReadyNS, user], conditionsOf('unreachable'), NOW), [
      user,
      { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule', timeAdded: NOW },
    ]);
  });
  it('Ready=Unknown counts as unreachable', () => {
    const conditions: ClusterCondition[] = [{ type: 'Ready', status: 'Unknown', lastProbeTime: NOW }];
    assert.deepEqual(healthTaints([], conditions, NOW), [
      { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule', timeAdded: NOW },
    ]);
  });
  it('no Ready condition (a malformed configuration): not-ready, as Karmada does without one', () => {
    assert.deepEqual(healthTaints(undefined, conditionsOf('malformed'), NOW), [
      { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule', timeAdded: NOW },
    ]);
  });
  it('Ready=True removes both and nothing else; NoExecute ones of the same keys stay', () => {
    const noExecute: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: EARLIER };
    assert.deepEqual(healthTaints([notReadyNS, user, unreachableNS, noExecute], conditionsOf('ready'), NOW), [
      user,
      noExecute,
    ]);
  });
  it('no write when the taints already say it: the timeAdded of the first probe stays', () => {
    assert.equal(healthTaints([notReadyNS], conditionsOf('notReady'), NOW), undefined);
    assert.equal(healthTaints([user], conditionsOf('ready'), NOW), undefined);
    assert.equal(healthTaints([unreachableNS], conditionsOf('unreachable'), NOW), undefined);
  });
});

const cluster = (
  name: string,
  conditions: ClusterCondition[],
  taints?: Taint[],
  labels: Record<string, string> = {},
): KubeFedCluster & KubeObject => ({
  metadata: { name, namespace: 'kube-federation-system', labels },
  spec: { apiEndpoint: 'https://x', secretRef: { name }, ...(taints ? { taints } : {}) },
  status: { conditions },
});
const ready: ClusterCondition[] = [{ type: 'Ready', status: 'True', lastProbeTime: NOW }];
const notReady: ClusterCondition[] = [
  { type: 'Ready', status: 'False', lastProbeTime: NOW },
  { type: 'Offline', status: 'False', lastProbeTime: NOW },
];
const offline: ClusterCondition[] = [{ type: 'Offline', status: 'True', lastProbeTime: NOW }];
const policy = (name: string, spec: Partial<ClusterTaintPolicy['spec']>): ClusterTaintPolicy => ({
  metadata: { name },
  spec: { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' }], ...spec },
});
const notReadyNoExecute = policy('not-ready', {
  addOnConditions: [{ conditionType: 'Offline', operator: 'In', statusValues: ['True'] }],
  removeOnConditions: [{ conditionType: 'Ready', operator: 'In', statusValues: ['True'] }],
});

describe('conditionsMatch', () => {
  it('a condition the cluster lacks matches neither In nor NotIn (karmada conditionMatches)', () => {
    assert.equal(
      conditionsMatch(offline, [{ conditionType: 'Ready', operator: 'In', statusValues: ['Unknown'] }]),
      false,
    );
    assert.equal(
      conditionsMatch(offline, [{ conditionType: 'Ready', operator: 'NotIn', statusValues: ['True'] }]),
      false,
    );
    assert.equal(
      conditionsMatch(offline, [{ conditionType: 'Offline', operator: 'In', statusValues: ['True'] }]),
      true,
    );
    assert.equal(
      conditionsMatch(notReady, [{ conditionType: 'Ready', operator: 'NotIn', statusValues: ['True'] }]),
      true,
    );
    assert.equal(
      conditionsMatch(ready, [{ conditionType: 'Ready', operator: 'NotIn', statusValues: ['True'] }]),
      false,
    );
  });
  it('all must match; an empty list never does', () => {
    const both = [
      { conditionType: 'Ready', operator: 'In' as const, statusValues: ['False'] },
      { conditionType: 'Offline', operator: 'In' as const, statusValues: ['True'] },
    ];
    assert.equal(conditionsMatch(notReady, both), false);
    assert.equal(conditionsMatch(notReady, both.slice(0, 1)), true);
    assert.equal(conditionsMatch(notReady, []), false);
    assert.equal(conditionsMatch(notReady, undefined), false);
  });
});

describe('decideTaints', () => {
  it('adds the NoExecute taint, stamped now, to a cluster that is not ready, keeping its other taints', () => {
    assert.deepEqual(decideTaints(cluster('a', offline, [unreachableNS]), [notReadyNoExecute], NOW), [
      unreachableNS,
      { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: NOW },
    ]);
  });
  it('removes it when the cluster is ready again, and leaves a ready cluster alone', () => {
    const tainted: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: EARLIER };
    assert.deepEqual(decideTaints(cluster('a', ready, [user, tainted]), [notReadyNoExecute], NOW), [user]);
    assert.equal(decideTaints(cluster('a', ready, [user]), [notReadyNoExecute], NOW), undefined);
  });
  it('no change when the taint is already there: its timeAdded stays', () => {
    const tainted: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: EARLIER };
    assert.equal(decideTaints(cluster('a', notReady, [tainted]), [notReadyNoExecute], NOW), undefined);
  });
  it('only the clusters targetClusters selects', () => {
    const onlyProd = {
      ...notReadyNoExecute,
      spec: {
        ...notReadyNoExecute.spec,
        targetClusters: { labelSelector: { matchLabels: { env: 'prod' } } },
      },
    };
    assert.equal(decideTaints(cluster('dev', offline, [], { env: 'dev' }), [onlyProd], NOW), undefined);
    assert.equal(decideTaints(cluster('prod', offline, [], { env: 'prod' }), [onlyProd], NOW)?.length, 1);
    const named = policy('named', { ...notReadyNoExecute.spec, targetClusters: { clusterNames: ['b'] } });
    assert.equal(decideTaints(cluster('a', offline), [named], NOW), undefined);
  });
  it('without addOnConditions nothing is added; without removeOnConditions nothing removed', () => {
    const addOnly = policy('add', { addOnConditions: notReadyNoExecute.spec.addOnConditions });
    const tainted: Taint = { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: EARLIER };
    assert.equal(decideTaints(cluster('a', ready, [tainted]), [addOnly], NOW), undefined);
    const removeOnly = policy('rm', { removeOnConditions: notReadyNoExecute.spec.removeOnConditions });
    assert.equal(decideTaints(cluster('a', offline), [removeOnly], NOW), undefined);
  });
  it('policies apply in order; what one adds another may remove, which is no change', () => {
    const remover = policy('z', {
      removeOnConditions: [{ conditionType: 'Offline', operator: 'In', statusValues: ['True'] }],
    });
    assert.equal(decideTaints(cluster('a', offline), [notReadyNoExecute, remover], NOW), undefined);
  });
  it('policies apply by creationTimestamp, then name, not by name alone', () => {
    const at = (p: ClusterTaintPolicy, creationTimestamp: string): ClusterTaintPolicy => ({
      ...p,
      metadata: { ...p.metadata, creationTimestamp },
    });
    const a = at(policy('a', {}), '2026-12-01T10:00:02Z');
    const b = at(policy('b', {}), '2026-12-01T10:00:01Z');
    const c = at(policy('c', {}), '2026-12-01T10:00:01Z');
    assert.deepEqual(
      policiesInOrder([a, c, b]).map((p) => p.metadata?.name),
      ['b', 'c', 'a'],
    );
    // The later remover wins only when it is applied last: by creation, not by name.
    const remover = at(
      policy('a-remover', {
        removeOnConditions: [{ conditionType: 'Offline', operator: 'In', statusValues: ['True'] }],
      }),
      '2026-12-01T09:00:00Z',
    );
    const adder = at(notReadyNoExecute, '2026-12-01T10:00:00Z');
    assert.equal(decideTaints(cluster('a', offline), policiesInOrder([adder, remover]), NOW)?.length, 1);
  });
  it('a policy with an invalid label selector is skipped', () => {
    const bad = policy('bad', {
      ...notReadyNoExecute.spec,
      targetClusters: { labelSelector: { matchExpressions: [{ key: 'x', operator: 'Bogus' }] } },
    });
    assert.equal(decideTaints(cluster('a', offline), [bad], NOW), undefined);
  });
});

describe('the NoExecute sample (config/samples/karmada/clustertaintpolicy-no-execute.yaml)', () => {
  const sample = parseAllDocuments(
    readFileSync(
      new URL('../../../config/samples/karmada/clustertaintpolicy-no-execute.yaml', import.meta.url),
      'utf8',
    ),
  ).map((d) => d.toJS() as ClusterTaintPolicy);
  const keys = (t: Taint[] | undefined) => (t ?? []).map((x) => `${x.key}:${x.effect}`);
  it('taints a stopped member (Offline=True, no Ready) unreachable NoExecute', () => {
    const probed = probeConditions({ kind: 'unreachable', error: 'connection refused' }, NOW);
    assert.deepEqual(keys(decideTaints(cluster('a', probed), sample, NOW)), [
      'cluster.karmada.io/unreachable:NoExecute',
    ]);
  });
  it('taints a member that answers not ready not-ready NoExecute', () => {
    const probed = probeConditions({ kind: 'notReady' }, NOW);
    assert.deepEqual(keys(decideTaints(cluster('a', probed), sample, NOW)), [
      'cluster.karmada.io/not-ready:NoExecute',
    ]);
  });
  it('removes both on Ready=True', () => {
    const tainted: Taint[] = [
      { key: 'cluster.karmada.io/unreachable', effect: 'NoExecute', timeAdded: EARLIER },
      { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute', timeAdded: EARLIER },
    ];
    const probed = probeConditions({ kind: 'ready' }, NOW);
    assert.deepEqual(decideTaints(cluster('a', probed, tainted), sample, NOW), []);
  });
});
