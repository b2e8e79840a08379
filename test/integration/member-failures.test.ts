import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CoreTypes,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { scrape, value } from '../../src/testing/prometheus.ts';
import {
  createFederatedNamespace,
  enableType,
  eventReasons,
  eventually,
  FED_GROUP,
  FED_VERSION,
  type FedObject,
  fedType,
  getOrUndefined,
  propagation,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { NS, waitForCluster } from './helpers.ts';

const NSX = 'failures';
const API = `${FED_GROUP}/${FED_VERSION}`;

/** A CRD like the etcd operator's, with the `etcd` short name. */
const ETCD_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'etcdclusters.etcd.database.coreos.com' },
  spec: {
    group: 'etcd.database.coreos.com',
    names: {
      kind: 'EtcdCluster',
      listKind: 'EtcdClusterList',
      plural: 'etcdclusters',
      singular: 'etcdcluster',
      shortNames: ['etcd'],
    },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1beta2',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { size: { type: 'integer' }, version: { type: 'string' } },
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};
const ETCD: ResourceType = {
  group: 'etcd.database.coreos.com',
  version: 'v1beta2',
  plural: 'etcdclusters',
  namespaced: true,
  kind: 'EtcdCluster',
};
const FETCD = fedType('FederatedEtcdCluster', 'federatedetcdclusters');

async function establish(c: KubeClient): Promise<void> {
  await c.create(CoreTypes.crds, ETCD_CRD as unknown as KubeObject);
  await eventually(
    'CRD established',
    () =>
      c.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(
        CoreTypes.crds,
        ETCD_CRD.metadata.name,
      ),
    (o) => Boolean(o.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')),
  );
}

/** Far beyond how long any deletion here takes: deletion must not wait for a member that is not ready. */
const DELETION_TIMEOUT = '--member-deletion-timeout=10m';

describe('isolation of broken members, CRD federation and deletion with a member down', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let c2: KubeClient;
  let c3: KubeClient;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2', 'cluster3'] });
    ({ host, cm } = await startPropagation(fed, { args: [DELETION_TIMEOUT] }));
    c1 = fed.cluster('cluster1').client();
    c2 = fed.cluster('cluster2').client();
    c3 = fed.cluster('cluster3').client();
    await createFederatedNamespace(host, NSX);
    await eventually(
      'namespace everywhere',
      async () => Promise.all([c1, c2, c3].map((c) => getOrUndefined(c, T.namespaces, NSX))),
      (v) => v.every(Boolean),
    );
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  const pendingRecords = async () =>
    (
      await host.list<KubeObject & { data?: Record<string, string> }>(T.configmaps, {
        namespace: NS,
        labelSelector: 'kubefed.io/pending-deletion=true',
      })
    ).items;

  test('a CRD enabled with kubefedctl propagates with overrides; a member without the CRD gets its own status', async () => {
    // The CRD exists in the host and cluster1/cluster2 but not in cluster3.
    await Promise.all([establish(host), establish(c1), establish(c2)]);
    await enableType(fed, host, 'etcdclusters', 'etcdclusters.etcd.database.coreos.com');
    const crd = await host.get<KubeObject & { spec: { names: { shortNames?: string[] } } }>(
      CoreTypes.crds,
      'federatedetcdclusters.types.kubefed.io',
    );
    assert.deepEqual(crd.spec.names.shortNames, ['fetcd']);

    await host.create(FETCD, {
      apiVersion: API,
      kind: 'FederatedEtcdCluster',
      metadata: { name: 'etcd1', namespace: NSX },
      spec: {
        template: { spec: { size: 3, version: '3.5' } },
        placement: { clusterSelector: {} },
        overrides: [{ clusterName: 'cluster2', clusterOverrides: [{ path: '/spec/size', value: 5 }] }],
      },
    });
    type Etcd = KubeObject & { spec: { size: number } };
    const [e1, e2] = await eventually(
      'EtcdClusters in cluster1 and cluster2',
      async () => [
        await getOrUndefined<Etcd>(c1, ETCD, 'etcd1', NSX),
        await getOrUndefined<Etcd>(c2, ETCD, 'etcd1', NSX),
      ],
      (v) => v.every(Boolean),
    );
    assert.equal(e1?.spec.size, 3);
    assert.equal(e2?.spec.size, 5);
    const fo = await eventually(
      'cluster3 reported on its own',
      () => host.get<FedObject>(FETCD, 'etcd1', NSX),
      (o) =>
        JSON.stringify(o.status?.clusters?.map((c) => [c.name, c.status ?? '', c.message ?? ''])) ===
        JSON.stringify([
          ['cluster1', '', ''],
          ['cluster2', '', ''],
          [
            'cluster3',
            'TypeNotServed',
            'the cluster does not serve etcdclusters.etcd.database.coreos.com/v1beta2',
          ],
        ]),
    );
    assert.equal(propagation(fo)?.reason, 'CheckClusters');

    // Installing the CRD in cluster3 later converges without any restart.
    await establish(c3);
    await eventually(
      'cluster3 catches up',
      () => getOrUndefined<Etcd>(c3, ETCD, 'etcd1', NSX),
      (v) => v?.spec.size === 3,
      60_000,
    );

    // Orphaning deletion leaves the members' objects, unlabelled.
    await host.patch(
      FETCD,
      'etcd1',
      { metadata: { annotations: { 'kubefed.io/orphan': 'true' } } },
      { namespace: NSX },
    );
    await host.delete(FETCD, 'etcd1', { namespace: NSX });
    await eventually(
      'federated object gone',
      () => getOrUndefined(host, FETCD, 'etcd1', NSX),
      (v) => v === undefined,
    );
    for (const c of [c1, c2, c3]) {
      const left = await c.get(ETCD, 'etcd1', NSX);
      assert.equal(left.metadata.labels?.['kubefed.io/managed'], undefined);
    }
  });

  test('a stopped member: ClusterNotReady for it, the others keep propagating, deletion does not wait for it and is carried out when it returns, across a controller restart', async () => {
    const fcm = (name: string, data: Record<string, string>) =>
      host.create(T.fcm, {
        apiVersion: API,
        kind: 'FederatedConfigMap',
        metadata: { name, namespace: NSX },
        spec: { template: { data }, placement: { clusterSelector: {} } },
      });
    // Copies in cluster3 before it stops: "doomed" is deleted while it is down; "reborn" is deleted and
    // created again (a new uid) before it returns.
    await fcm('doomed', { a: '1' });
    await fcm('reborn', { a: '1' });
    const [, rebornCopy] = await eventually(
      'copies in cluster3',
      async () => [
        await getOrUndefined(c3, T.configmaps, 'doomed', NSX),
        await getOrUndefined(c3, T.configmaps, 'reborn', NSX),
      ],
      (v) => v.every(Boolean),
    );
    await fed.cluster('cluster3').stopApiServer();
    try {
      await waitForCluster(
        host,
        'cluster3',
        'not Ready',
        (c) => !c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'),
      );
      await fcm('while-down', { a: '1' });
      await eventually(
        'the two live members get it',
        async () => [
          await getOrUndefined(c1, T.configmaps, 'while-down', NSX),
          await getOrUndefined(c2, T.configmaps, 'while-down', NSX),
        ],
        (v) => v.every(Boolean),
      );
      const fo = await eventually(
        'ClusterNotReady for cluster3',
        () => host.get<FedObject>(T.fcm, 'while-down', NSX),
        (o) =>
          Boolean(o.status?.clusters?.some((c) => c.name === 'cluster3' && c.status === 'ClusterNotReady')),
      );
      assert.equal(propagation(fo)?.reason, 'CheckClusters');

      // cluster3 is in the placement and not ready. The bound (--member-deletion-timeout) is 10 minutes
      // here: each object is gone long before it, as soon as cluster1 and cluster2 dropped their copies.
      const uids = new Map<string, string>();
      for (const name of ['doomed', 'reborn', 'while-down']) {
        uids.set(name, (await host.get(T.fcm, name, NSX)).metadata.uid ?? '');
        await host.delete(T.fcm, name, { namespace: NSX });
      }
      for (const name of ['doomed', 'reborn', 'while-down']) {
        await eventually(
          `${name} released without waiting for cluster3`,
          () => getOrUndefined(host, T.fcm, name, NSX),
          (v) => v === undefined,
          60_000,
        );
        for (const c of [c1, c2]) assert.equal(await getOrUndefined(c, T.configmaps, name, NSX), undefined);
        const reasons = await eventReasons(host, NSX, name);
        assert.ok(reasons.includes('DeletionPending'), reasons.join(','));
        assert.ok(!reasons.includes('DeletionAbandoned'), reasons.join(','));
      }
      const records = await pendingRecords();
      assert.deepEqual(records.map((r) => [r.data?.cluster, r.data?.name, r.data?.federatedUid]).sort(), [
        ['cluster3', 'doomed', uids.get('doomed')],
        ['cluster3', 'reborn', uids.get('reborn')],
        ['cluster3', 'while-down', uids.get('while-down')],
      ]);
      // The copy's uid was seen before cluster3 stopped: the record names exactly that object.
      assert.equal(records.find((r) => r.data?.name === 'reborn')?.data?.memberUid, rebornCopy?.metadata.uid);
      await eventually(
        'the pending deletions counted per member',
        () => scrape(cm.metricsUrl),
        (s) => value(s, 'pending_member_deletions', { cluster: 'cluster3' }) === 3,
      );

      // A new object of the same name: it owns whatever cluster3 holds from now on.
      await fcm('reborn', { a: '2' });
      await fcm('after-return', { a: '1' });

      // The records are on the host: a new controller manager (a restart, or a new leader) carries them out.
      await cm.process.stop();
      cm = await startKubefedControllerManager({
        kubeconfig: fed.kubeconfigPath,
        context: 'host',
        namespace: NS,
        logFile: join(fed.dir, 'kubefed-controller-manager-2.log'),
        args: [DELETION_TIMEOUT],
      });
    } finally {
      await fed.cluster('cluster3').startApiServer();
    }
    await waitForCluster(
      host,
      'cluster3',
      'Ready again',
      (c) => Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      60_000,
    );
    await eventually(
      'the copy of the deleted object is deleted in cluster3, not unlabelled',
      () => getOrUndefined(c3, T.configmaps, 'doomed', NSX),
      (v) => v === undefined,
      90_000,
    );
    await eventually('every record carried out', pendingRecords, (v) => v.length === 0, 60_000);
    type Cm = KubeObject & { data?: Record<string, string> };
    const reborn = await eventually(
      'the recreated object owns the copy in cluster3',
      () => getOrUndefined<Cm>(c3, T.configmaps, 'reborn', NSX),
      (v) => v?.data?.a === '2',
      60_000,
    );
    // Updated in place, never deleted: the pending deletion of the old object left it alone.
    assert.equal(reborn?.metadata.uid, rebornCopy?.metadata.uid);
    assert.equal(reborn?.metadata.labels?.['kubefed.io/managed'], 'true');
    assert.equal(await getOrUndefined(c3, T.configmaps, 'while-down', NSX), undefined);
    const doomedReasons = await eventReasons(host, NSX, 'doomed');
    assert.ok(doomedReasons.includes('PendingDeletionCompleted'), doomedReasons.join(','));
    assert.ok((await eventReasons(host, NSX, 'reborn')).includes('PendingDeletionDropped'));
    await eventually(
      'converges when the member returns',
      () => getOrUndefined(c3, T.configmaps, 'after-return', NSX),
      (v) => Boolean(v),
      90_000,
    );
    await eventually(
      'Propagation=True again',
      () => host.get<FedObject>(T.fcm, 'after-return', NSX),
      (o) => propagation(o)?.status === 'True',
      60_000,
    );
  });
});

describe('a hung member (frozen apiserver) does not hold up the others', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2', 'cluster3'] });
    // Slow health checks, so the frozen member still counts as Ready while objects are propagated.
    ({ host, cm } = await startPropagation(fed, {
      config: {
        clusterHealthCheck: { period: '30s', timeout: '3s', failureThreshold: 3, successThreshold: 1 },
        leaderElect: { leaseDuration: '4s', renewDeadline: '3s', retryPeriod: '1s', resourceLock: 'leases' },
      },
    }));
    await createFederatedNamespace(host, NSX);
    await eventually(
      'namespace everywhere',
      async () => Promise.all(fed.members.map((m) => getOrUndefined(m.client(), T.namespaces, NSX))),
      (v) => v.every(Boolean),
    );
  });
  after(async () => {
    fed?.cluster('cluster3').api.freeze(false);
    await cm?.process.stop();
    await fed?.stop();
  });

  test('objects reach the live members while the hung one is skipped, then converge when it thaws', async () => {
    const c1 = fed.cluster('cluster1').client();
    const c3 = fed.cluster('cluster3').client();
    fed.cluster('cluster3').api.freeze(true);
    const names = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
    try {
      for (const name of names) {
        await host.create(T.fcm, {
          apiVersion: API,
          kind: 'FederatedConfigMap',
          metadata: { name, namespace: NSX },
          spec: { template: { data: { a: '1' } }, placement: { clusterSelector: {} } },
        });
      }
      // One worker, six objects, each member request bounded by 10 s: waiting on the hung member for every
      // object would take a minute; skipping it after the first timeout takes seconds.
      await eventually(
        'every object in cluster1',
        () => Promise.all(names.map((n) => getOrUndefined(c1, T.configmaps, n, NSX))),
        (v) => v.every(Boolean),
        30_000,
      );
      const last = await eventually(
        'the hung member reported on its own',
        () => host.get<FedObject>(T.fcm, 'h6', NSX),
        (o) =>
          Boolean(o.status?.clusters?.some((c) => c.name === 'cluster3' && c.status === 'CreationTimedOut')),
      );
      assert.equal(last.status?.clusters?.find((c) => c.name === 'cluster1')?.status, undefined);
    } finally {
      fed.cluster('cluster3').api.freeze(false);
    }
    await eventually(
      'the thawed member converges',
      () => Promise.all(names.map((n) => getOrUndefined(c3, T.configmaps, n, NSX))),
      (v) => v.every(Boolean),
      90_000,
    );
  });
});
