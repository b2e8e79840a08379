// Failover for native resources: cluster failover by NoExecute taints (a ClusterTaintPolicy's) with graceful eviction (the old copy
// stays until its replacement is available, and stays for good while nothing can take its replicas), the
// eviction tasks cleared when the cluster recovers, a WorkloadRebalancer re-dividing afterwards, and
// application failover for a Deployment that never becomes ready in one member. One federation for the file:
// three kwok members with one 4-CPU node each.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { GracefulEvictionTask } from '../../src/api/work/v1alpha2/resourcebinding.ts';
import { ClusterTaintPolicyType } from '../../src/controllers/clustertaintpolicy/controller.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../src/kube/client/index.ts';
import { CoreTypes } from '../../src/kube/client/index.ts';
import { BindingTypes } from '../../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import { WorkloadRebalancerType } from '../../src/sources/policy/rebalancer.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { eventually, getOrUndefined, startPropagation } from './federation-helpers.ts';
import { waitForCluster } from './helpers.ts';

const NSA = 'apps';
const DEPLOY: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
const NOT_READY = 'cluster.karmada.io/not-ready';
const UNREACHABLE = 'cluster.karmada.io/unreachable';
type Deploy = KubeObject & {
  spec?: { replicas?: number };
  status?: { availableReplicas?: number; readyReplicas?: number };
};
type Binding = KubeObject & {
  spec: {
    clusters?: Array<{ name: string; replicas?: number }>;
    gracefulEvictionTasks?: GracefulEvictionTask[];
    rescheduleTriggeredAt?: string;
  };
  status?: { aggregatedStatus?: Array<{ clusterName: string; health?: string }> };
};

function deployment(name: string, replicas: number, cpu?: string): Deploy {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NSA, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'registry.example/app:1',
              ...(cpu ? { resources: { requests: { cpu } } } : {}),
            },
          ],
        },
      },
    },
  } as Deploy;
}

const clustersOf = (b: Binding | undefined) =>
  Object.fromEntries((b?.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
const taskFor = (b: Binding | undefined, cluster: string) =>
  b?.spec.gracefulEvictionTasks?.find((t) => t.fromCluster === cluster);

describe('failover of native resources', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  const member = (name: string) => fed.cluster(name).client();
  const binding = (name: string) =>
    host.get<Binding>(BindingTypes.ResourceBinding, `${name}-deployment`, NSA);
  const copy = (cluster: string, name: string) => getOrUndefined<Deploy>(member(cluster), DEPLOY, name, NSA);

  before(async () => {
    fed = await startFederation({
      members: 3,
      workloads: true,
      hostControllers: 'federation-apiserver',
      nodes: (c) => [{ name: `${c}-node-0`, allocatable: { cpu: '4', memory: '16Gi', pods: '110' } }],
    });
    ({ host, cm } = await startPropagation(fed));
    await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } });
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('cluster failover: graceful moves, a kept copy when nothing can take it, recovery, then a rebalance', async () => {
    const tolerate = (key: string) => ({
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 3,
    });
    const placement = {
      clusterAffinity: { clusterNames: ['cluster1', 'cluster2', 'cluster3'] },
      clusterTolerations: [tolerate(NOT_READY), tolerate(UNREACHABLE)],
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas' },
      },
    };
    const pp = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: NSA },
      spec,
    });
    // Both divided by what each cluster can take. web: 6 × 0.5 CPU, two per cluster. big: 3 × 2 CPU, one
    // per cluster: once web has moved, cluster1 and cluster2 have no 2 CPU left for a second one.
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('web', {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement,
      }),
    );
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('big', {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'big' }],
        placement,
      }),
    );
    await host.create(DEPLOY, deployment('web', 6, '500m'));
    await host.create(DEPLOY, deployment('big', 3, '2'));
    for (const c of ['cluster1', 'cluster2', 'cluster3']) {
      await eventually(
        `web: 2 available in ${c}`,
        () => copy(c, 'web'),
        (d) => d?.status?.availableReplicas === 2,
        120_000,
      );
      await eventually(
        `big: 1 available in ${c}`,
        () => copy(c, 'big'),
        (d) => d?.status?.availableReplicas === 1,
        120_000,
      );
    }

    const bigInCluster3 = (await copy('cluster3', 'big'))?.metadata.uid;
    assert.ok(bigInCluster3);
    // A ClusterTaintPolicy puts the unreachable NoExecute taint on a cluster that is Offline (a stopped
    // member), and takes it off when it is Ready again. cluster3 goes down; both policies tolerate the
    // taint for 3 s.
    await host.create(ClusterTaintPolicyType, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterTaintPolicy',
      metadata: { name: 'unreachable' },
      spec: {
        addOnConditions: [{ conditionType: 'Offline', operator: 'In', statusValues: ['True'] }],
        removeOnConditions: [{ conditionType: 'Ready', operator: 'In', statusValues: ['True'] }],
        taints: [{ key: UNREACHABLE, effect: 'NoExecute' }],
      },
    });
    await fed.cluster('cluster3').stopApiServer();
    let restarted = false;
    try {
      await waitForCluster(host, 'cluster3', 'tainted NoExecute', (c) =>
        Boolean(c.spec.taints?.some((t) => t.key === UNREACHABLE && t.effect === 'NoExecute')),
      );

      // web: its two replicas move to cluster1 and cluster2; the task ends once they are available there.
      const evicted = await eventually(
        'web evicted from cluster3',
        () => binding('web'),
        (b) => taskFor(b, 'cluster3') !== undefined,
        60_000,
      );
      const task = taskFor(evicted, 'cluster3');
      assert.equal(task?.reason, 'TaintUntolerated');
      assert.equal(task?.producer, 'TaintManager');
      assert.equal(task?.purgeMode, 'Gracefully');
      assert.equal(task?.replicas, 2);
      assert.deepEqual(task?.clustersBeforeFailover, ['cluster1', 'cluster2', 'cluster3']);
      const moved = await eventually(
        'web: task ended',
        () => binding('web'),
        (b) => b.spec.gracefulEvictionTasks === undefined,
        120_000,
      );
      assert.deepEqual(clustersOf(moved), { cluster1: 3, cluster2: 3 });
      for (const c of ['cluster1', 'cluster2']) {
        const d = await copy(c, 'web');
        assert.equal(
          d?.status?.availableReplicas,
          3,
          `the replacement in ${c} was available before the task ended`,
        );
      }

      // big: cluster1 and cluster2 have no 2 CPU left: the task stays, says why, and nothing is deleted.
      const kept = await eventually(
        'big: task kept with the reason',
        () => binding('big'),
        (b) => /^kept: no cluster can take its 1 replicas: /.test(taskFor(b, 'cluster3')?.message ?? ''),
        60_000,
      );
      assert.deepEqual(clustersOf(kept), { cluster1: 1, cluster2: 1 });
      for (const c of ['cluster1', 'cluster2']) assert.equal((await copy(c, 'big'))?.spec?.replicas, 1);
      const events = await host.list<KubeObject & { reason?: string; involvedObject?: { name?: string } }>(
        CoreTypes.events,
        { namespace: NSA },
      );
      assert.ok(
        events.items.some((e) => e.reason === 'EvictionBlocked' && e.involvedObject?.name === 'big'),
        'a Warning event on the template says the eviction is blocked',
      );

      // cluster3 comes back: its tasks are cleared. big's eviction is undone (it keeps its replica there);
      // web stays where it moved, and its old copy in cluster3 is removed.
      await fed.cluster('cluster3').startApiServer();
      restarted = true;
      await waitForCluster(host, 'cluster3', 'Ready and untainted', (c) =>
        Boolean(
          c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') &&
            !c.spec.taints?.some((t) => t.effect === 'NoExecute'),
        ),
      );
      const restored = await eventually(
        'big: task cleared, cluster3 back',
        () => binding('big'),
        (b) => b.spec.gracefulEvictionTasks === undefined && clustersOf(b).cluster3 === 1,
        60_000,
      );
      assert.deepEqual(clustersOf(restored), { cluster1: 1, cluster2: 1, cluster3: 1 });
      assert.equal(
        (await copy('cluster3', 'big'))?.metadata.uid,
        bigInCluster3,
        'the kept copy was never deleted',
      );
      await eventually(
        'web: the old copy in cluster3 is removed',
        () => copy('cluster3', 'web'),
        (d) => d === undefined,
        120_000,
      ).catch(async (e: unknown) => {
        const b = await binding('web');
        throw new Error(`${String(e)}; binding ${JSON.stringify({ spec: b.spec, status: b.status })}`);
      });
      assert.deepEqual(
        clustersOf(await binding('web')),
        { cluster1: 3, cluster2: 3 },
        'no rebalance unless asked',
      );
    } finally {
      if (!restarted) await fed.cluster('cluster3').startApiServer();
    }

    // A WorkloadRebalancer divides web afresh across all three (by room: once the old pods are gone,
    // cluster3 has as much as the others).
    await eventually(
      'web: no pods left in cluster3',
      () => member('cluster3').list(CoreTypes.pods, { namespace: NSA, labelSelector: 'app=web' }),
      (l) => l.items.length === 0,
      60_000,
    );
    await host.create(WorkloadRebalancerType, {
      apiVersion: 'apps.karmada.io/v1alpha1',
      kind: 'WorkloadRebalancer',
      metadata: { name: 'web-again' },
      spec: {
        workloads: [
          { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NSA, name: 'web' },
          { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NSA, name: 'absent' },
        ],
      },
    });
    const rebalanced = await eventually(
      'web: divided across all three again',
      () => binding('web'),
      (b) => b.spec.rescheduleTriggeredAt !== undefined && Object.keys(clustersOf(b)).length === 3,
      60_000,
    );
    const spread = clustersOf(rebalanced);
    assert.equal(
      Object.values(spread).reduce((n, r) => n + r, 0),
      6,
    );
    assert.ok(
      Object.values(spread).every((r) => r >= 1 && r <= 3),
      JSON.stringify(spread),
    );
    const wr = await host.get<KubeObject & { status?: Record<string, unknown> }>(
      WorkloadRebalancerType,
      'web-again',
    );
    assert.equal(rebalanced.spec.rescheduleTriggeredAt, wr.metadata.creationTimestamp);
    const done = await eventually(
      'rebalancer finished',
      () =>
        host.get<KubeObject & { status?: { finishTime?: string; observedWorkloads?: unknown[] } }>(
          WorkloadRebalancerType,
          'web-again',
        ),
      (o) => o.status?.finishTime !== undefined,
    );
    assert.deepEqual(done.status?.observedWorkloads, [
      {
        workload: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NSA, name: 'absent' },
        result: 'Failed',
        reason: 'ReferencedBindingNotFound',
      },
      {
        workload: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NSA, name: 'web' },
        result: 'Successful',
      },
    ]);
    await eventually(
      'web: available in cluster3',
      () => copy('cluster3', 'web'),
      (d) => d?.status?.availableReplicas === spread.cluster3,
      120_000,
    );
  });

  test('application failover: a Deployment that never becomes ready in one member moves away', async () => {
    await host.create(PolicyTypes.PropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'flaky', namespace: NSA },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'flaky' }],
        placement: {
          clusterAffinity: { clusterNames: ['cluster1', 'cluster2'] },
          replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
        },
        failover: {
          application: {
            decisionConditions: { tolerationSeconds: 5 },
            purgeMode: 'Gracefully',
            gracePeriodSeconds: 120,
          },
        },
      },
    });
    // In cluster2 its pods ask for a node that does not exist: they stay Pending, the copy Unhealthy.
    await host.create(PolicyTypes.OverridePolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'OverridePolicy',
      metadata: { name: 'flaky', namespace: NSA },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'flaky' }],
        overrideRules: [
          {
            targetCluster: { clusterNames: ['cluster2'] },
            overriders: {
              plaintext: [
                { path: '/spec/template/spec/nodeSelector', operator: 'add', value: { 'no-such': 'node' } },
              ],
            },
          },
        ],
      },
    });
    await host.create(DEPLOY, deployment('flaky', 2));
    const failing = await eventually(
      'flaky Unhealthy in cluster2',
      () => binding('flaky'),
      (b) =>
        b.status?.aggregatedStatus?.some((i) => i.clusterName === 'cluster2' && i.health === 'Unhealthy') ===
        true,
      60_000,
    );
    assert.deepEqual(clustersOf(failing), { cluster1: 1, cluster2: 1 });
    const evicted = await eventually(
      'flaky evicted from cluster2',
      () => binding('flaky'),
      (b) => taskFor(b, 'cluster2') !== undefined,
      60_000,
    );
    const task = taskFor(evicted, 'cluster2');
    assert.equal(task?.reason, 'ApplicationFailure');
    assert.equal(task?.producer, 'resource-binding-application-failover-controller');
    assert.equal(task?.gracePeriodSeconds, 120);
    const moved = await eventually(
      'flaky: both replicas in cluster1, the task ended',
      () => binding('flaky'),
      (b) => b.spec.gracefulEvictionTasks === undefined && JSON.stringify(clustersOf(b)) === '{"cluster1":2}',
      120_000,
    );
    assert.deepEqual(clustersOf(moved), { cluster1: 2 });
    await eventually(
      'flaky: 2 available in cluster1',
      () => copy('cluster1', 'flaky'),
      (d) => d?.status?.availableReplicas === 2,
      60_000,
    );
    await eventually(
      'flaky: the copy in cluster2 is removed',
      () => copy('cluster2', 'flaky'),
      (d) => d === undefined,
      60_000,
    );
  });
});
