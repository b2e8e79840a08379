// Fleet scheduling of native resources (issue 15): dynamic weights by the members' room, Aggregated, spread
// constraints over regions and cluster taints against policy tolerations, on kwok members whose nodes are
// sized so that one replica's request fits 6, 12 and 18 times. One federation for the file.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType } from '../../src/api/core/v1beta1/resource-types.ts';
import {
  CoreTypes,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { BindingTypes } from '../../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { eventually, getOrUndefined, startPropagation } from './federation-helpers.ts';
import { NS } from './helpers.ts';

const NSA = 'apps';
const DEPLOY: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
const MEMBERS = ['cluster1', 'cluster2', 'cluster3'];
// One replica asks for 1 CPU (dynamic weights) or 1Gi (Aggregated): the members fit 6, 12 and 18 of either.
const SIZE: Record<string, number> = { cluster1: 6, cluster2: 12, cluster3: 18 };
const REGION: Record<string, string> = { cluster1: 'region-a', cluster2: 'region-b', cluster3: 'region-c' };
const CORDON = { key: 'example.io/maintenance', value: 'true', effect: 'NoSchedule' };

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
type Target = { name: string; replicas?: number };
type Binding = KubeObject & {
  spec: { clusters?: Target[]; replicaRequirements?: { resourceRequest?: Record<string, string> } };
  status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
};

function deployment(name: string, replicas: number, requests: Record<string, string>): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NSA, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/app:1', resources: { requests } }] },
      },
    },
  };
}

function configMap(name: string): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NSA }, data: { k: 'v' } } as Obj;
}

function pp(name: string, kind: 'Deployment' | 'ConfigMap', placement: Record<string, unknown>): Obj {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: NSA },
    spec: {
      resourceSelectors: [{ apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1', kind, name }],
      placement,
    },
  };
}

const divided = (preference: 'Weighted' | 'Aggregated') => ({
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: preference,
    ...(preference === 'Weighted' ? { weightPreference: { dynamicWeight: 'AvailableReplicas' } } : {}),
  },
});

const scheduled = (b: Binding | undefined) =>
  b?.status?.conditions?.find((c) => c.type === 'Scheduled' && c.status === 'True') !== undefined;

describe('native scheduling: capacity, spread and taints', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  const binding = (name: string) => getOrUndefined<Binding>(host, BindingTypes.ResourceBinding, name, NSA);
  const memberReplicas = async (name: string) => {
    const out: Record<string, number> = {};
    for (const m of MEMBERS) {
      const d = await getOrUndefined<Obj>(fed.cluster(m).client(), DEPLOY, name, NSA);
      if (d) out[m] = d.spec?.replicas as number;
    }
    return out;
  };
  const memberConfigMaps = async (name: string) => {
    const out: string[] = [];
    for (const m of MEMBERS)
      if (await getOrUndefined(fed.cluster(m).client(), CoreTypes.configMaps, name, NSA)) out.push(m);
    return out;
  };
  const placed = (b: Binding | undefined) =>
    Object.fromEntries((b?.spec.clusters ?? []).map((t) => [t.name, t.replicas]));
  const names = (b: Binding | undefined) => (b?.spec.clusters ?? []).map((t) => t.name);

  before(async () => {
    fed = await startFederation({
      members: MEMBERS,
      workloads: true,
      hostControllers: 'federation-apiserver',
      nodes: (c) => [
        {
          name: `${c}-node`,
          labels: { 'topology.kubernetes.io/region': REGION[c] ?? '' },
          allocatable: { cpu: String(SIZE[c]), memory: `${SIZE[c]}Gi`, pods: '110' },
        },
      ],
    });
    ({ host, cm } = await startPropagation(fed));
    await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NSA } });
    // The regions come from the members' node labels into KubeFedCluster status.region.
    for (const m of MEMBERS)
      await eventually(
        `${m} has its region`,
        () => host.get<KubeObject & { status?: { region?: string } }>(KubeFedClusterType, m, NS),
        (c) => c.status?.region === REGION[m],
      );
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('dynamic weights divide by room (2/4/6 of 12), and scaling to 18 keeps the existing replicas', async () => {
    await host.create(PolicyTypes.PropagationPolicy, pp('dyn', 'Deployment', divided('Weighted')));
    await host.create(DEPLOY, deployment('dyn', 12, { cpu: '1' }));
    const b = await eventually(
      'dyn scheduled',
      () => binding('dyn-deployment'),
      (x) => scheduled(x) && names(x).length === 3,
      60_000,
    );
    assert.deepEqual(b?.spec.replicaRequirements, { resourceRequest: { cpu: '1' } });
    assert.deepEqual(placed(b), { cluster1: 2, cluster2: 4, cluster3: 6 });
    await eventually(
      'members run 2/4/6',
      () => memberReplicas('dyn'),
      (r) => r.cluster1 === 2 && r.cluster2 === 4 && r.cluster3 === 6,
    );
    // Wait for the pods to take their room, so that the next estimate is the steady one.
    await eventually(
      'the 12 pods run',
      () => host.get<Obj>(DEPLOY, 'dyn', NSA),
      (o) => o.status?.readyReplicas === 12,
      120_000,
    );

    const live = await host.get<Obj>(DEPLOY, 'dyn', NSA);
    await host.update(DEPLOY, { ...live, spec: { ...live.spec, replicas: 18 } });
    const scaled = await eventually(
      'dyn scaled to 18',
      () => binding('dyn-deployment'),
      (x) => (x?.spec.clusters ?? []).reduce((s, t) => s + (t.replicas ?? 0), 0) === 18,
      60_000,
    );
    assert.deepEqual(placed(scaled), { cluster1: 3, cluster2: 6, cluster3: 9 });
    await eventually(
      'members run 3/6/9',
      () => memberReplicas('dyn'),
      (r) => r.cluster1 === 3 && r.cluster2 === 6 && r.cluster3 === 9,
    );
  });

  test('Aggregated packs the replicas onto the fewest clusters their room allows', async () => {
    await host.create(PolicyTypes.PropagationPolicy, pp('agg', 'Deployment', divided('Aggregated')));
    // 24 of 1Gi: cluster3 (18) and cluster2 (12) together, cluster1 not at all.
    await host.create(DEPLOY, deployment('agg', 24, { memory: '1Gi' }));
    const b = await eventually('agg scheduled', () => binding('agg-deployment'), scheduled, 60_000);
    assert.deepEqual(placed(b), { cluster2: 9, cluster3: 15 });
    await eventually(
      'members run 9 and 15',
      () => memberReplicas('agg'),
      (r) => r.cluster2 === 9 && r.cluster3 === 15 && r.cluster1 === undefined,
    );
    // Once the pods take their room the estimate changes; the steady placement does not.
    await eventually(
      'the 24 pods run',
      () => host.get<Obj>(DEPLOY, 'agg', NSA),
      (o) => o.status?.readyReplicas === 24,
      120_000,
    );
    assert.deepEqual(placed(await binding('agg-deployment')), { cluster2: 9, cluster3: 15 });
  });

  test('more replicas than room: Unschedulable, and nothing placed', async () => {
    await host.create(PolicyTypes.PropagationPolicy, pp('huge', 'Deployment', divided('Weighted')));
    await host.create(DEPLOY, deployment('huge', 5, { cpu: '100' }));
    const b = await eventually(
      'huge unschedulable',
      () => binding('huge-deployment'),
      (x) =>
        x?.status?.conditions?.some((c) => c.type === 'Scheduled' && c.reason === 'Unschedulable') === true,
      60_000,
    );
    const cond = b?.status?.conditions?.find((c) => c.type === 'Scheduled');
    assert.equal(cond?.status, 'False');
    assert.equal(cond?.message, 'Clusters available replicas 0 are not enough to schedule.');
    assert.deepEqual(b?.spec.clusters ?? [], []);
  });

  test('spread over regions with minGroups 2; an unsatisfiable spread is reported and nothing half-applied', async () => {
    const spread = (minGroups: number) => ({
      spreadConstraints: [
        { spreadByField: 'region', minGroups, maxGroups: 3 },
        { spreadByField: 'cluster', minGroups: 2, maxGroups: 3 },
      ],
    });
    await host.create(PolicyTypes.PropagationPolicy, pp('spread', 'ConfigMap', spread(2)));
    await host.create(CoreTypes.configMaps, configMap('spread'));
    const b = await eventually('spread scheduled', () => binding('spread-configmap'), scheduled, 60_000);
    const chosen = names(b);
    assert.ok(chosen.length >= 2 && chosen.length <= 3, JSON.stringify(chosen));
    assert.equal(new Set(chosen.map((c) => REGION[c])).size, chosen.length, 'one cluster per region');
    await eventually(
      'copies where scheduled',
      () => memberConfigMaps('spread'),
      (m) => m.join() === chosen.join(),
    );

    const policy = await host.get<Obj>(PolicyTypes.PropagationPolicy, 'spread', NSA);
    await host.update(PolicyTypes.PropagationPolicy, {
      ...policy,
      spec: { ...policy.spec, placement: spread(4) },
    });
    const failed = await eventually(
      'spread unschedulable',
      () => binding('spread-configmap'),
      (x) =>
        x?.status?.conditions?.some((c) => c.type === 'Scheduled' && c.reason === 'Unschedulable') === true,
      60_000,
    );
    assert.equal(
      failed?.status?.conditions?.find((c) => c.type === 'Scheduled')?.message,
      'failed to select clusters: the number of feasible region is less than spreadConstraint.MinGroups',
    );
    assert.deepEqual(names(failed), chosen, 'the last placement stays');
    assert.deepEqual(await memberConfigMaps('spread'), chosen);
  });

  test('a NoSchedule taint keeps new placement off a cluster but keeps its copies; a toleration lets a policy in', async () => {
    const everywhere = { clusterAffinity: { clusterNames: MEMBERS } };
    await host.create(PolicyTypes.PropagationPolicy, pp('before', 'ConfigMap', everywhere));
    await host.create(CoreTypes.configMaps, configMap('before'));
    await eventually(
      'before on all three',
      () => binding('before-configmap'),
      (x) => names(x).length === 3,
      60_000,
    );

    await host.patch(KubeFedClusterType, 'cluster1', { spec: { taints: [CORDON] } }, { namespace: NS });
    // A policy for cluster1 alone shows when the scheduler sees the taint.
    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('probe', 'ConfigMap', { clusterAffinity: { clusterNames: ['cluster1'] } }),
    );
    await host.create(CoreTypes.configMaps, configMap('probe'));
    const probe = await eventually(
      'probe does not fit',
      () => binding('probe-configmap'),
      (x) =>
        x?.status?.conditions?.some((c) => c.type === 'Scheduled' && c.reason === 'NoClusterFit') === true,
      60_000,
    );
    assert.equal(
      probe?.status?.conditions?.find((c) => c.type === 'Scheduled')?.message,
      '0/3 clusters are available: 1 cluster(s) had untolerated taint {example.io/maintenance=true:NoSchedule}, 2 cluster(s) did not match the placement cluster affinity constraint',
    );

    await host.create(PolicyTypes.PropagationPolicy, pp('after', 'ConfigMap', everywhere));
    await host.create(CoreTypes.configMaps, configMap('after'));
    const afterB = await eventually('after scheduled', () => binding('after-configmap'), scheduled, 60_000);
    assert.deepEqual(names(afterB), ['cluster2', 'cluster3']);

    await host.create(
      PolicyTypes.PropagationPolicy,
      pp('tolerant', 'ConfigMap', {
        ...everywhere,
        clusterTolerations: [{ key: CORDON.key, operator: 'Exists', effect: 'NoSchedule' }],
      }),
    );
    await host.create(CoreTypes.configMaps, configMap('tolerant'));
    const tolerant = await eventually(
      'tolerant scheduled',
      () => binding('tolerant-configmap'),
      scheduled,
      60_000,
    );
    assert.deepEqual(names(tolerant), MEMBERS);
    await eventually(
      'tolerant copies everywhere',
      () => memberConfigMaps('tolerant'),
      (m) => m.length === 3,
    );

    // The copies placed before the taint stay (the scheduler re-examined every binding on the cluster change).
    assert.deepEqual(names(await binding('before-configmap')), MEMBERS);
    assert.deepEqual(await memberConfigMaps('before'), MEMBERS);
    assert.deepEqual(await memberConfigMaps('after'), ['cluster2', 'cluster3']);
    await host.patch(KubeFedClusterType, 'cluster1', { spec: { taints: [] } }, { namespace: NS });
  });
});
