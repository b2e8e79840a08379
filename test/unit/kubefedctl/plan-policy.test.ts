import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CommandError } from '../../../src/kubefedctl/errors.ts';
import {
  bindingPlanState,
  offlinePolicyState,
  parsePolicyPlanFiles,
  policyScheduleInput,
  renderPolicyPlanJson,
  renderPolicyPlanTable,
} from '../../../src/kubefedctl/plan-policy.ts';
import type { BindingObject } from '../../../src/sources/policy/binding-spec.ts';
import { placementString } from '../../../src/sources/policy/scheduling.ts';

const TEMPLATE = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo, uid: u-1}
spec: {replicas: 6}
`;
const POLICY = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    replicaScheduling: {}
`;
const CLUSTERS = `apiVersion: core.kubefed.io/v1beta1
kind: KubeFedCluster
metadata: {name: a, namespace: kube-federation-system, labels: {region: eu}}
spec:
  apiEndpoint: https://a
  secretRef: {name: a}
  taints: [{key: cluster.karmada.io/unschedulable, effect: NoSchedule}]
`;
const files = (...texts: string[]) => texts.map((text, i) => ({ name: `f${i}.yaml`, text }));

describe('kubefedctl plan --policy: inputs', () => {
  test('one template and one policy, defaulted as the webhook stores it; KubeFedClusters kept', () => {
    const parsed = parsePolicyPlanFiles(files(TEMPLATE, POLICY, CLUSTERS));
    assert.equal(parsed.kind, 'PropagationPolicy');
    assert.equal(parsed.template.metadata.name, 'web');
    assert.deepEqual(parsed.policy.spec.placement?.replicaScheduling, {
      replicaSchedulingType: 'Divided',
      replicaDivisionPreference: 'Weighted',
    });
    assert.deepEqual(
      parsed.policy.spec.placement?.clusterTolerations?.map((t) => t.key),
      ['cluster.karmada.io/not-ready', 'cluster.karmada.io/unreachable'],
    );
    assert.deepEqual(
      parsed.clusters.map((c) => c.metadata.name),
      ['a'],
    );
  });

  test('the scheduler input: replicas, placement and uid from the binding the policy source would write', () => {
    const parsed = parsePolicyPlanFiles(files(TEMPLATE, POLICY));
    const input = policyScheduleInput(parsed, {
      clusters: [{ name: 'a', labels: {}, zones: [], ready: true }],
      previous: [{ name: 'a', replicas: 2 }],
    });
    assert.equal(input.replicas, 6);
    assert.equal(input.bindingUid, 'u-1');
    assert.deepEqual(input.previous, [{ name: 'a', replicas: 2 }]);
    assert.equal(input.placement?.replicaScheduling?.replicaSchedulingType, 'Divided');
  });

  test('--live: a binding whose rescheduleTriggeredAt is later than lastScheduledTime plans Fresh', () => {
    const binding = (rescheduleTriggeredAt?: string): BindingObject => ({
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: { name: 'web-deployment', namespace: 'default' },
      spec: {
        resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-1' },
        clusters: [{ name: 'a', replicas: 2 }],
        gracefulEvictionTasks: [{ fromCluster: 'b', reason: 'TaintUntolerated', producer: 'TaintManager' }],
        ...(rescheduleTriggeredAt ? { rescheduleTriggeredAt } : {}),
      },
      status: { lastScheduledTime: '2026-12-01T10:00:00Z', schedulerObservingAffinityName: 'primary' },
    });
    assert.deepEqual(bindingPlanState(binding()), {
      previous: [{ name: 'a', replicas: 2 }],
      previousAffinityName: 'primary',
      evicting: ['b'],
      bindingUid: 'u-1',
      appliedPlacement: '',
    });
    assert.equal(bindingPlanState(binding('2026-12-01T09:00:00Z')).fresh, undefined);
    const later = bindingPlanState(binding('2026-12-01T11:00:00Z'));
    assert.equal(later.fresh, true);
    const parsed = parsePolicyPlanFiles(files(TEMPLATE, POLICY));
    const clusters = [{ name: 'a', labels: {}, zones: [], ready: true }];
    assert.equal(policyScheduleInput(parsed, { clusters, ...later }).fresh, true);
    // No applied placement recorded: the scheduler would divide again, and so does the plan; the one
    // recorded for the planned placement keeps the binding's clusters.
    assert.equal(policyScheduleInput(parsed, { clusters, ...later }).placementChanged, true);
    const placement = policyScheduleInput(parsed, { clusters }).placement;
    const same = { ...later, appliedPlacement: placementString(placement) };
    assert.equal(policyScheduleInput(parsed, { clusters, ...same }).placementChanged, false);
  });

  test('wrong file contents are one error; a policy that does not select the template is a warning', () => {
    assert.throws(
      () => parsePolicyPlanFiles(files(POLICY)),
      (e: unknown) => e instanceof CommandError && e.message === 'expected one resource template, found 0',
    );
    assert.throws(
      () => parsePolicyPlanFiles(files(TEMPLATE)),
      (e: unknown) =>
        e instanceof CommandError &&
        e.message === 'expected one PropagationPolicy or ClusterPropagationPolicy, found 0',
    );
    const warnings: string[] = [];
    parsePolicyPlanFiles(files(TEMPLATE, POLICY.replace('name: web}', 'name: other}')), (w) =>
      warnings.push(w),
    );
    assert.deepEqual(warnings, [
      "the PropagationPolicy's resourceSelectors do not select the template; planning as if they did",
    ]);
  });

  test('--current and --capacity become the previous clusters and the available map', () => {
    const clusters = [{ name: 'a', labels: {}, zones: [], ready: true }];
    assert.deepEqual(offlinePolicyState(clusters, { a: 3 }, { a: 10 }), {
      clusters,
      previous: [{ name: 'a', replicas: 3 }],
      available: new Map([['a', 10]]),
    });
    assert.deepEqual(offlinePolicyState(clusters, {}, {}), { clusters });
  });
});

describe('kubefedctl plan --policy: output', () => {
  const plan = {
    result: { ok: true as const, clusters: [{ name: 'b', replicas: 6 }] },
    clusters: [
      {
        cluster: 'a',
        candidate: false,
        reason: 'cluster(s) had untolerated taint {cluster.karmada.io/unschedulable:NoSchedule}',
        replicas: 0,
      },
      { cluster: 'b', candidate: true, weight: 1, available: 10, previous: 2, replicas: 6 },
    ],
  };
  test('a row per cluster, then the result', () => {
    assert.equal(
      renderPolicyPlanTable(plan, 6),
      [
        'CLUSTER  CANDIDATE  WEIGHT  AVAILABLE  PREVIOUS  REPLICAS  REASON',
        'a        no         -       -          -         0         cluster(s) had untolerated taint {cluster.karmada.io/unschedulable:NoSchedule}',
        'b        yes        1       10         2         6',
        'RESULT: 6 replica(s) on 1 cluster(s): b=6',
        '',
      ].join('\n'),
    );
  });
  test('an unschedulable binding says why; a non-workload names its clusters', () => {
    const failed = {
      result: {
        ok: false as const,
        reason: 'NoClusterFit' as const,
        message: '0/1 clusters are available: x',
      },
      clusters: [],
    };
    assert.match(
      renderPolicyPlanTable(failed, 6),
      /\nRESULT: NoClusterFit: 0\/1 clusters are available: x\n$/,
    );
    const cm = { result: { ok: true as const, clusters: [{ name: 'a' }, { name: 'b' }] }, clusters: [] };
    assert.match(renderPolicyPlanTable(cm, 0), /RESULT: propagated to 2 cluster\(s\): a, b\n$/);
  });
  test('-o json is one object', () => {
    assert.deepEqual(JSON.parse(renderPolicyPlanJson(plan)), plan);
  });
});
