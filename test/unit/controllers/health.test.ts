import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterCondition } from '../../../src/api/core/v1beta1/index.ts';
import { isClusterReady } from '../../../src/api/core/v1beta1/index.ts';
import {
  applyThresholds,
  type HealthMemory,
  probeConditions,
  probeState,
  zonesAndRegion,
} from '../../../src/controllers/kubefedcluster/health.ts';

const thresholds = { successThreshold: 1, failureThreshold: 3 };
const ready = (t: string, tt = t): ClusterCondition[] =>
  probeConditions({ kind: 'ready' }, t).map((c) => ({ ...c, lastTransitionTime: tt }));
const notReady = (t: string, tt = t): ClusterCondition[] =>
  probeConditions({ kind: 'notReady' }, t).map((c) => ({ ...c, lastTransitionTime: tt }));
const summary = (cs: ClusterCondition[]) =>
  cs.map((c) => `${c.type}=${c.status}@${c.lastProbeTime}/${c.lastTransitionTime}`);

describe('probe conditions (KubeFed clusterclient.go, GetClusterHealthStatus)', () => {
  test('each probe result maps to KubeFed conditions, reasons and messages', () => {
    assert.deepEqual(probeConditions({ kind: 'ready' }, 't'), [
      {
        type: 'Ready',
        status: 'True',
        reason: 'ClusterReady',
        message: '/healthz responded with ok',
        lastProbeTime: 't',
        lastTransitionTime: 't',
      },
    ]);
    assert.deepEqual(probeConditions({ kind: 'notReady' }, 't'), [
      {
        type: 'Ready',
        status: 'False',
        reason: 'ClusterNotReady',
        message: '/healthz responded without ok',
        lastProbeTime: 't',
        lastTransitionTime: 't',
      },
      {
        type: 'Offline',
        status: 'False',
        reason: 'ClusterReachable',
        message: 'cluster is reachable',
        lastProbeTime: 't',
        lastTransitionTime: 't',
      },
    ]);
    assert.deepEqual(probeConditions({ kind: 'unreachable', error: 'connect ECONNREFUSED' }, 't'), [
      {
        type: 'Offline',
        status: 'True',
        reason: 'ClusterNotReachable',
        message: 'cluster is not reachable: connect ECONNREFUSED',
        lastProbeTime: 't',
        lastTransitionTime: 't',
      },
    ]);
    const malformed = probeConditions({ kind: 'malformed', detail: 'secret "x" not found' }, 't');
    assert.equal(malformed.length, 1);
    assert.equal(malformed[0]?.type, 'ConfigMalformed');
    assert.equal(malformed[0]?.reason, 'ClusterConfigMalformed');
    assert.equal(malformed[0]?.message, `cluster's configuration may be malformed: secret "x" not found`);
  });

  test('readiness and the metric state', () => {
    assert.equal(isClusterReady(probeConditions({ kind: 'ready' }, 't')), true);
    assert.equal(isClusterReady(probeConditions({ kind: 'notReady' }, 't')), false);
    assert.equal(isClusterReady(probeConditions({ kind: 'malformed', detail: '' }, 't')), false);
    assert.equal(isClusterReady(undefined), false);
    assert.equal(probeState({ kind: 'ready' }), 'ready');
    assert.equal(probeState({ kind: 'unreachable', error: '' }), 'offline');
    assert.equal(probeState({ kind: 'notReady' }), 'notready');
    assert.equal(
      probeState({ kind: 'malformed', detail: '' }),
      'notready',
      'KubeFed counts ConfigMalformed as notready',
    );
  });
});

describe('thresholds: KubeFed pkg/controller/kubefedcluster/controller_test.go table', () => {
  test('ReadyAtBeginning', () => {
    const r = applyThresholds(ready('t1'), undefined, thresholds);
    assert.deepEqual(summary(r.conditions), ['Ready=True@t1/t1']);
  });
  test('NotReadyAtBeginning', () => {
    const r = applyThresholds(notReady('t1'), undefined, thresholds);
    assert.deepEqual(summary(r.conditions), ['Ready=False@t1/t1', 'Offline=False@t1/t1']);
  });
  test('NotReadyWithinFailureThreshold: previous status with the new probe time', () => {
    const memory: HealthMemory = { reported: ready('t2', 't1'), disagreeing: 1 };
    const r = applyThresholds(notReady('t3'), memory, thresholds);
    assert.deepEqual(summary(r.conditions), ['Ready=True@t3/t1']);
    assert.equal(r.memory.disagreeing, 2);
  });
  test('NotReadyCrossedFailureThreshold', () => {
    const memory: HealthMemory = { reported: ready('t3', 't1'), disagreeing: 2 };
    const r = applyThresholds(notReady('t4'), memory, thresholds);
    assert.deepEqual(summary(r.conditions), ['Ready=False@t4/t4', 'Offline=False@t4/t4']);
    assert.equal(r.memory.disagreeing, 0);
  });
  test('ReturnToReady', () => {
    const memory: HealthMemory = { reported: notReady('t4', 't1'), disagreeing: 0 };
    const r = applyThresholds(ready('t5'), memory, thresholds);
    assert.deepEqual(summary(r.conditions), ['Ready=True@t5/t5']);
  });
});

describe('thresholds: consecutive failures (where kubefed-ts differs from KubeFed)', () => {
  test('after a long healthy streak one failed probe does not flip the cluster; three in a row do', () => {
    let memory: HealthMemory | undefined;
    for (let i = 1; i <= 20; i++) memory = applyThresholds(ready(`t${i}`), memory, thresholds).memory;
    const f1 = applyThresholds(
      probeConditions({ kind: 'unreachable', error: 'x' }, 'f1'),
      memory,
      thresholds,
    );
    assert.equal(isClusterReady(f1.conditions), true, 'first failure held back');
    assert.deepEqual(summary(f1.conditions), ['Ready=True@f1/t1']);
    const f2 = applyThresholds(
      probeConditions({ kind: 'unreachable', error: 'x' }, 'f2'),
      f1.memory,
      thresholds,
    );
    assert.equal(isClusterReady(f2.conditions), true, 'second failure held back');
    const f3 = applyThresholds(
      probeConditions({ kind: 'unreachable', error: 'x' }, 'f3'),
      f2.memory,
      thresholds,
    );
    assert.deepEqual(summary(f3.conditions), ['Offline=True@f3/f3']);
  });

  test('a success in between resets the count', () => {
    let memory = applyThresholds(ready('t0'), undefined, thresholds).memory;
    memory = applyThresholds(notReady('f1'), memory, thresholds).memory;
    memory = applyThresholds(notReady('f2'), memory, thresholds).memory;
    memory = applyThresholds(ready('ok'), memory, thresholds).memory;
    assert.equal(memory.disagreeing, 0);
    const f = applyThresholds(notReady('f3'), memory, thresholds);
    assert.equal(isClusterReady(f.conditions), true);
  });

  test('unchanged conditions keep their lastTransitionTime; changed ones get the probe time', () => {
    const first = applyThresholds(notReady('t1'), undefined, thresholds);
    // Still not ready, but now unreachable: readiness is the same, so it is reported at once.
    const second = applyThresholds(
      probeConditions({ kind: 'unreachable', error: 'e' }, 't2'),
      first.memory,
      thresholds,
    );
    assert.deepEqual(summary(second.conditions), ['Offline=True@t2/t2']);
    const third = applyThresholds(
      probeConditions({ kind: 'unreachable', error: 'e' }, 't3'),
      second.memory,
      thresholds,
    );
    assert.deepEqual(summary(third.conditions), ['Offline=True@t3/t2']);
  });

  test('successThreshold > 1 delays the return to Ready', () => {
    const t = { successThreshold: 2, failureThreshold: 1 };
    const down = applyThresholds(notReady('t1'), undefined, t);
    const up1 = applyThresholds(ready('t2'), down.memory, t);
    assert.equal(isClusterReady(up1.conditions), false);
    const up2 = applyThresholds(ready('t3'), up1.memory, t);
    assert.equal(isClusterReady(up2.conditions), true);
  });
});

describe('zones and region from node labels', () => {
  const node = (labels: Record<string, string>) => ({ metadata: { labels } });

  test('GA topology labels, sorted unique zones, first region', () => {
    const r = zonesAndRegion([
      node({ 'topology.kubernetes.io/zone': 'us-east-1b', 'topology.kubernetes.io/region': 'us-east-1' }),
      node({ 'topology.kubernetes.io/zone': 'us-east-1a', 'topology.kubernetes.io/region': 'us-west-2' }),
      node({ 'topology.kubernetes.io/zone': 'us-east-1b' }),
    ]);
    assert.deepEqual(r, { zones: ['us-east-1a', 'us-east-1b'], region: 'us-east-1' });
  });

  test('falls back to the legacy failure-domain labels', () => {
    const r = zonesAndRegion([
      node({
        'failure-domain.beta.kubernetes.io/zone': 'z1',
        'failure-domain.beta.kubernetes.io/region': 'r1',
      }),
    ]);
    assert.deepEqual(r, { zones: ['z1'], region: 'r1' });
  });

  test('the GA label wins over the legacy one on the same node', () => {
    const r = zonesAndRegion([
      node({ 'topology.kubernetes.io/zone': 'new', 'failure-domain.beta.kubernetes.io/zone': 'old' }),
    ]);
    assert.deepEqual(r.zones, ['new']);
  });

  test('user-set values are kept when no node carries the labels', () => {
    assert.deepEqual(zonesAndRegion([node({}), { metadata: {} }], { zones: ['mine'], region: 'r' }), {
      zones: ['mine'],
      region: 'r',
    });
    assert.deepEqual(zonesAndRegion([], {}), { zones: undefined, region: undefined });
  });
});
