import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { ReplicaSchedulingPreferenceType } from '../../src/api/scheduling/v1alpha1/index.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventReasons,
  eventually,
  FED_GROUP,
  FED_VERSION,
  getOrUndefined,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { kubefedctl, waitForCluster } from './helpers.ts';

const NSX = 'sched';
const MEMBERS = ['ap-northeast', 'us-east', 'us-west'];
type Deploy = KubeObject & { spec: { replicas: number }; status?: { availableReplicas?: number } };
type Rsp = KubeObject & {
  status?: {
    replicas?: Record<string, number>;
    clusters?: string[];
    totalScheduled?: number;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
};

const RSP = {
  apiVersion: 'scheduling.kubefed.io/v1alpha1',
  kind: 'ReplicaSchedulingPreference',
  metadata: { name: 'web', namespace: NSX },
  spec: {
    targetKind: 'FederatedDeployment',
    totalReplicas: 15,
    clusters: {
      '*': { weight: 2, maxReplicas: 12 },
      'ap-northeast': { minReplicas: 1, maxReplicas: 3, weight: 1 },
    },
  },
};

function deployment(name: string) {
  return {
    apiVersion: `${FED_GROUP}/${FED_VERSION}`,
    kind: 'FederatedDeployment',
    metadata: { name, namespace: NSX },
    spec: {
      template: {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
      placement: { clusterSelector: {} },
    },
  };
}

describe('replica scheduling with ReplicaSchedulingPreference on kwok-backed members', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  const member = (n: string) => fed.cluster(n).client();
  const replicasIn = async (name: string, members = MEMBERS) =>
    Object.fromEntries(
      await Promise.all(
        members.map(async (m) => [
          m,
          (await getOrUndefined<Deploy>(member(m), T.deployments, name, NSX))?.spec.replicas ?? 0,
        ]),
      ),
    ) as Record<string, number>;

  before(async () => {
    fed = await startFederation({ members: MEMBERS, workloads: true });
    ({ host, cm } = await startPropagation(fed));
    await createFederatedNamespace(host, NSX);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('totalReplicas 15 with weights and limits: ap-northeast 3, us-east 6, us-west 6, available', async () => {
    await host.create(T.fdeploy, deployment('web'));
    await host.create(ReplicaSchedulingPreferenceType, RSP);
    await eventually(
      '3/6/6 in the members',
      () => replicasIn('web'),
      (r) => r['ap-northeast'] === 3 && r['us-east'] === 6 && r['us-west'] === 6,
      60_000,
    );
    await eventually(
      'available everywhere',
      () => Promise.all(MEMBERS.map((m) => getOrUndefined<Deploy>(member(m), T.deployments, 'web', NSX))),
      (v) => v.every((d) => d !== undefined && d.status?.availableReplicas === d.spec.replicas),
      60_000,
    );
    const rsp = await eventually(
      'RSP status',
      () => host.get<Rsp>(ReplicaSchedulingPreferenceType, 'web', NSX),
      (o) => o.status?.totalScheduled === 15,
    );
    assert.deepEqual(rsp.status?.replicas, { 'ap-northeast': 3, 'us-east': 6, 'us-west': 6 });
    assert.deepEqual(rsp.status?.clusters, MEMBERS);
    assert.equal(rsp.status?.conditions?.[0]?.status, 'True');
    // Once the aggregated health has caught up, nothing changes any more: neither the RSP nor the
    // FederatedDeployment is written again.
    await eventually(
      'aggregate shows 15 ready in 3 healthy clusters',
      () => host.get<KubeObject & { status?: { aggregate?: Record<string, number> } }>(T.fdeploy, 'web', NSX),
      (o) => o.status?.aggregate?.readyReplicas === 15 && o.status.aggregate.healthyClusters === 3,
      60_000,
    );
    const rv = async () => [
      (await host.get(ReplicaSchedulingPreferenceType, 'web', NSX)).metadata.resourceVersion,
      (await host.get(T.fdeploy, 'web', NSX)).metadata.resourceVersion,
    ];
    const before = await rv();
    await new Promise((r) => setTimeout(r, 4000));
    assert.deepEqual(await rv(), before, 'no writes at steady state');

    // kubefedctl plan computes the same from the same inputs.
    const dir = mkdtempSync(join(tmpdir(), 'rsp-'));
    writeFileSync(join(dir, 'rsp.yaml'), stringify(RSP));
    const r = await kubefedctl([
      'plan',
      '-f',
      join(dir, 'rsp.yaml'),
      '--clusters',
      MEMBERS.join(','),
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      plan: { 'ap-northeast': 3, 'us-east': 6, 'us-west': 6 },
      overflow: {},
    });
    // --live reads the same inputs from the federation (ready clusters, running replicas) and agrees too.
    const live = await kubefedctl([
      'plan',
      '-f',
      join(dir, 'rsp.yaml'),
      '--live',
      '-o',
      'json',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(live.code, 0, live.stderr);
    assert.deepEqual(JSON.parse(live.stdout), {
      plan: { 'ap-northeast': 3, 'us-east': 6, 'us-west': 6 },
      overflow: {},
    });
  });

  test('a stopped member loses its replicas to the others; they come back when it returns', async () => {
    await fed.cluster('us-west').stopApiServer();
    try {
      await waitForCluster(
        host,
        'us-west',
        'not Ready',
        (c) => !c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'),
      );
      const rsp = await eventually(
        'us-west dropped from the plan',
        () => host.get<Rsp>(ReplicaSchedulingPreferenceType, 'web', NSX),
        (o) => JSON.stringify(o.status?.clusters) === JSON.stringify(['ap-northeast', 'us-east']),
        60_000,
      );
      assert.deepEqual(rsp.status?.replicas, { 'ap-northeast': 3, 'us-east': 12 });
      await eventually(
        'us-east runs 12',
        () => replicasIn('web', ['ap-northeast', 'us-east']),
        (r) => r['us-east'] === 12 && r['ap-northeast'] === 3,
        60_000,
      );
    } finally {
      await fed.cluster('us-west').startApiServer();
    }
    await waitForCluster(
      host,
      'us-west',
      'Ready again',
      (c) => Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      60_000,
    );
    const back = await eventually(
      'us-west back in the plan',
      () => host.get<Rsp>(ReplicaSchedulingPreferenceType, 'web', NSX),
      (o) => (o.status?.replicas?.['us-west'] ?? 0) > 0 && o.status?.totalScheduled === 15,
      90_000,
    );
    assert.deepEqual(back.status?.clusters, MEMBERS);
    const r = back.status?.replicas ?? {};
    assert.ok((r['ap-northeast'] ?? 0) <= 3 && (r['us-east'] ?? 0) <= 12, JSON.stringify(r));
    await eventually(
      'members follow the plan',
      () => replicasIn('web'),
      (m) =>
        JSON.stringify(m) ===
        JSON.stringify({
          'ap-northeast': r['ap-northeast'],
          'us-east': r['us-east'],
          'us-west': r['us-west'],
        }),
      60_000,
    );
  });

  test('pods unschedulable in one member move replicas elsewhere', async () => {
    await host.create(T.fdeploy, {
      ...deployment('picky'),
      spec: {
        ...deployment('picky').spec,
        overrides: [
          {
            clusterName: 'us-east',
            clusterOverrides: [
              { op: 'add', path: '/spec/template/spec/nodeSelector', value: { disk: 'ssd' } },
            ],
          },
        ],
      },
    });
    await host.create(ReplicaSchedulingPreferenceType, {
      ...RSP,
      metadata: { name: 'picky', namespace: NSX },
      spec: {
        targetKind: 'FederatedDeployment',
        totalReplicas: 6,
        rebalance: true,
        clusters: { 'us-east': { weight: 1 }, 'us-west': { weight: 1 } },
      },
    });
    await eventually(
      '3/3 planned',
      () => replicasIn('picky'),
      (r) => r['us-east'] === 3 && r['us-west'] === 3,
      60_000,
    );
    // us-east's kwok nodes have no disk=ssd label: after 60 s unschedulable, its capacity is known as 0.
    const rsp = await eventually(
      'replicas shift to us-west',
      () => host.get<Rsp>(ReplicaSchedulingPreferenceType, 'picky', NSX),
      (o) => o.status?.replicas?.['us-west'] === 6,
      150_000,
    );
    assert.ok(rsp.status);
    await eventually(
      'us-west runs 6',
      () => replicasIn('picky'),
      (r) => r['us-west'] === 6,
      60_000,
    );
  });

  test('bad input: a clear status and an event, no crash', async () => {
    const bad = async (name: string, spec: Record<string, unknown>) => {
      await host.create(ReplicaSchedulingPreferenceType, {
        ...RSP,
        metadata: { name, namespace: NSX },
        spec,
      });
      const o = await eventually(
        `${name}: InvalidSpec`,
        () => host.get<Rsp>(ReplicaSchedulingPreferenceType, name, NSX),
        (x) => x.status?.conditions?.[0]?.reason === 'InvalidSpec',
      );
      assert.equal(o.status?.conditions?.[0]?.status, 'False');
      assert.ok((await eventReasons(host, NSX, name)).includes('InvalidSpec'));
      return o.status?.conditions?.[0]?.message ?? '';
    };
    assert.match(await bad('kind', { targetKind: 'FederatedReplicaset', totalReplicas: 3 }), /targetKind/);
    assert.match(
      await bad('negative', { targetKind: 'FederatedDeployment', totalReplicas: -1 }),
      /totalReplicas/,
    );
    assert.match(
      await bad('minmax', {
        targetKind: 'FederatedDeployment',
        totalReplicas: 3,
        clusters: { 'us-east': { minReplicas: 5, maxReplicas: 2 } },
      }),
      /minReplicas/,
    );
    assert.ok(cm.process.running);
  });
});
