import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PropagatedVersionType } from '../../src/api/core/v1alpha1/index.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { scrape, value } from '../../src/testing/prometheus.ts';
import {
  createFederatedNamespace,
  eventReasons,
  eventually,
  FED_GROUP,
  FED_VERSION,
  type FedObject,
  getOrUndefined,
  propagation,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { NS } from './helpers.ts';

const NSX = 'test-namespace';
const API = `${FED_GROUP}/${FED_VERSION}`;

interface RecordedVersions {
  templateVersion: string;
  overridesVersion: string;
  clusterVersions?: Array<{ clusterName: string; version: string }>;
}
type VersionedObject = KubeObject & { status?: { propagatedVersion?: RecordedVersions } };

describe('propagation of federated objects to real member apiservers', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let c2: KubeClient;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    ({ host, cm } = await startPropagation(fed));
    c1 = fed.cluster('cluster1').client();
    c2 = fed.cluster('cluster2').client();
    await createFederatedNamespace(host, NSX, ['cluster2', 'cluster1']);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  // First in the file, so that no other test's object is still being reconciled while this one counts.
  test('a new object is reconciled once: our own status and member writes come back as no change', async () => {
    const N = 10;
    const reconciles = async () =>
      value(await scrape(cm.metricsUrl), 'controller_runtime_reconcile_total', {
        controller: 'federatedconfigmap',
      }) ?? 0;
    // Wait out the start-up reconciles (joins, caches loading): the counter holds still for 3 s.
    let before = await reconciles();
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await reconciles();
      quiet = now === before ? quiet + 1 : 0;
      before = now;
    }
    const names = Array.from({ length: N }, (_, i) => `once-${i}`);
    for (const name of names) {
      await host.create(T.fcm, {
        apiVersion: API,
        kind: 'FederatedConfigMap',
        metadata: { name, namespace: NSX },
        spec: { template: { data: { name } }, placement: { clusterSelector: {} } },
      });
    }
    for (const name of names) {
      await eventually(
        `${name}: Propagation=True with both clusters`,
        () => host.get<FedObject>(T.fcm, name, NSX),
        (o) => propagation(o)?.status === 'True' && o.status?.clusters?.length === 2,
      );
    }
    // Member events are reconciled after a 2 s delay: give any echo of our member writes time to show.
    await new Promise((r) => setTimeout(r, 4000));
    const counted = (await reconciles()) - before;
    // Each object is reconciled once: finalizer, member creates, status. Before, every one of those writes
    // came back as a watch event and a reconcile that found nothing to do (3.6 per object here). The slack
    // is for a reconcile from elsewhere (a member's health probe flapping on a loaded machine).
    assert.ok(counted >= N, `${counted} reconciles for ${N} new objects`);
    assert.ok(
      counted < 1.5 * N,
      `${counted} reconciles for ${N} new objects: our own writes were reconciled`,
    );
    for (const name of names) await host.delete(T.fcm, name, { namespace: NSX });
  });

  test("KubeFed's worked example: FederatedDeployment with overrides for cluster2", async () => {
    await eventually(
      'namespace in both members',
      async () => [await getOrUndefined(c1, T.namespaces, NSX), await getOrUndefined(c2, T.namespaces, NSX)],
      (v) => v.every((n) => n?.metadata.labels?.['kubefed.io/managed'] === 'true'),
    );

    await host.create(T.fdeploy, {
      apiVersion: API,
      kind: 'FederatedDeployment',
      metadata: { name: 'test-deployment', namespace: NSX },
      spec: {
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'nginx' } },
            template: {
              metadata: { labels: { app: 'nginx' } },
              spec: { containers: [{ image: 'nginx', name: 'nginx' }] },
            },
          },
        },
        placement: { clusters: [{ name: 'cluster2' }, { name: 'cluster1' }] },
        overrides: [
          {
            clusterName: 'cluster2',
            clusterOverrides: [
              { path: '/spec/replicas', value: 5 },
              { path: '/spec/template/spec/containers/0/image', value: 'nginx:1.17.0-alpine' },
              { op: 'add', path: '/metadata/annotations', value: { foo: 'bar' } },
              { op: 'remove', path: '/metadata/annotations/foo' },
            ],
          },
        ],
      },
    });
    type Deploy = KubeObject & {
      spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
    };
    const [d1, d2] = await eventually(
      'Deployments in both members',
      async () => [
        await getOrUndefined<Deploy>(c1, T.deployments, 'test-deployment', NSX),
        await getOrUndefined<Deploy>(c2, T.deployments, 'test-deployment', NSX),
      ],
      (v) => v.every(Boolean),
    );
    assert.ok(d1 && d2);
    assert.equal(d1.apiVersion, 'apps/v1');
    assert.deepEqual(d1.metadata.labels, { app: 'nginx', 'kubefed.io/managed': 'true' });
    assert.equal(d1.metadata.annotations?.foo, undefined);
    assert.equal(d1.spec.replicas, 3);
    assert.equal(d1.spec.template.spec.containers[0]?.image, 'nginx');
    assert.equal(d2.spec.replicas, 5);
    assert.equal(d2.spec.template.spec.containers[0]?.image, 'nginx:1.17.0-alpine');
    assert.equal(d2.metadata.annotations?.foo, undefined);
    assert.deepEqual(d2.metadata.labels, { app: 'nginx', 'kubefed.io/managed': 'true' });

    const fd = await eventually(
      'Propagation=True',
      () => host.get<FedObject>(T.fdeploy, 'test-deployment', NSX),
      (o) => propagation(o)?.status === 'True' && o.status?.observedGeneration === 1,
    );
    assert.ok(fd.metadata.finalizers?.includes('kubefed.io/sync-controller'));
    assert.deepEqual(
      fd.status?.clusters?.map((c) => c.name),
      ['cluster1', 'cluster2'],
    );
    assert.ok(fd.status?.clusters?.every((c) => c.status === undefined));
    // The member versions are recorded in the status (KubeFed: a PropagatedVersion object).
    const versions = (fd as VersionedObject).status?.propagatedVersion;
    assert.match(versions?.templateVersion ?? '', /^[0-9a-f]{32}$/);
    assert.match(versions?.overridesVersion ?? '', /^[0-9a-f]{32}$/);
    assert.deepEqual(versions?.clusterVersions, [
      { clusterName: 'cluster1', version: 'gen:1' },
      { clusterName: 'cluster2', version: 'gen:1' },
    ]);
    assert.equal(
      await getOrUndefined(host, PropagatedVersionType, 'deployment-test-deployment', NSX),
      undefined,
    );
  });

  test('an override {path: /data, value: {A: null}} removes key A in that cluster only', async () => {
    await host.create(T.fsecret, {
      apiVersion: API,
      kind: 'FederatedSecret',
      metadata: { name: 'test-secret', namespace: NSX },
      spec: {
        template: {
          data: { A: Buffer.from('a').toString('base64'), B: Buffer.from('b').toString('base64') },
        },
        placement: { clusterSelector: {} },
        overrides: [{ clusterName: 'cluster2', clusterOverrides: [{ path: '/data', value: { A: null } }] }],
      },
    });
    type Secret = KubeObject & { data?: Record<string, string> };
    const [s1, s2] = await eventually(
      'Secrets in both members',
      async () => [
        await getOrUndefined<Secret>(c1, T.secrets, 'test-secret', NSX),
        await getOrUndefined<Secret>(c2, T.secrets, 'test-secret', NSX),
      ],
      (v) => v.every(Boolean),
    );
    assert.deepEqual(Object.keys(s1?.data ?? {}).sort(), ['A', 'B']);
    assert.deepEqual(Object.keys(s2?.data ?? {}), []);
  });

  test('drift in a member is reverted; a resync with nothing changed writes nothing', async () => {
    const cm1 = {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'drift', namespace: NSX },
      spec: { template: { data: { k: 'v' } }, placement: { clusterSelector: {} } },
    };
    await host.create(T.fcm, cm1);
    type Cm = KubeObject & { data?: Record<string, string> };
    await eventually(
      'ConfigMaps in both members',
      async () => [
        await getOrUndefined<Cm>(c1, T.configmaps, 'drift', NSX),
        await getOrUndefined<Cm>(c2, T.configmaps, 'drift', NSX),
      ],
      (v) => v.every((x) => x?.data?.k === 'v'),
    );

    // Edited in cluster1: reverted.
    const live = await c1.get<Cm>(T.configmaps, 'drift', NSX);
    await c1.update(T.configmaps, { ...live, data: { k: 'edited' } });
    await eventually(
      'edit reverted',
      () => c1.get<Cm>(T.configmaps, 'drift', NSX),
      (o) => o.data?.k === 'v',
      20_000,
    );
    // Deleted in cluster2: recreated.
    await c2.delete(T.configmaps, 'drift', { namespace: NSX });
    await eventually(
      'deletion reverted',
      () => getOrUndefined<Cm>(c2, T.configmaps, 'drift', NSX),
      (o) => o?.data?.k === 'v',
      20_000,
    );
    await eventually(
      'Propagation=True',
      () => host.get<FedObject>(T.fcm, 'drift', NSX),
      (o) => propagation(o)?.status === 'True',
    );

    // Nothing changed: a reconcile (triggered by an unrelated label on the federated object) writes nothing.
    const before1 = (await c1.get(T.configmaps, 'drift', NSX)).metadata.resourceVersion;
    const before2 = (await c2.get(T.configmaps, 'drift', NSX)).metadata.resourceVersion;
    const fcm = await host.get<FedObject>(T.fcm, 'drift', NSX);
    await host.patch(T.fcm, 'drift', { metadata: { labels: { touched: 'yes' } } }, { namespace: NSX });
    // A template change afterwards proves reconciles ran in between (each key is processed in order).
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal((await c1.get(T.configmaps, 'drift', NSX)).metadata.resourceVersion, before1);
    assert.equal((await c2.get(T.configmaps, 'drift', NSX)).metadata.resourceVersion, before2);
    assert.ok(fcm.status);
    await host.patch(T.fcm, 'drift', { spec: { template: { data: { k: 'v2' } } } }, { namespace: NSX });
    await eventually(
      'template change propagated',
      () => c2.get<Cm>(T.configmaps, 'drift', NSX),
      (o) => o.data?.k === 'v2',
    );
  });

  test('placement change removes the object from a cluster; deletion cleans up every member', async () => {
    await host.create(T.fcm, {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'moving', namespace: NSX },
      spec: {
        template: { data: { a: '1' } },
        placement: { clusters: [{ name: 'cluster1' }, { name: 'cluster2' }] },
      },
    });
    await eventually(
      'in both',
      async () => [
        await getOrUndefined(c1, T.configmaps, 'moving', NSX),
        await getOrUndefined(c2, T.configmaps, 'moving', NSX),
      ],
      (v) => v.every(Boolean),
    );
    await host.patch(
      T.fcm,
      'moving',
      { spec: { placement: { clusters: [{ name: 'cluster1' }] } } },
      { namespace: NSX },
    );
    await eventually(
      'removed from cluster2',
      () => getOrUndefined(c2, T.configmaps, 'moving', NSX),
      (v) => v === undefined,
    );
    const fo = await eventually(
      'status lists cluster1 only',
      () => host.get<FedObject>(T.fcm, 'moving', NSX),
      (o) => JSON.stringify(o.status?.clusters) === JSON.stringify([{ name: 'cluster1' }]),
    );
    assert.equal(propagation(fo)?.status, 'True');
    await host.delete(T.fcm, 'moving', { namespace: NSX });
    await eventually(
      'federated object gone',
      () => getOrUndefined(host, T.fcm, 'moving', NSX),
      (v) => v === undefined,
    );
    assert.equal(await getOrUndefined(c1, T.configmaps, 'moving', NSX), undefined);
  });

  test('orphaning deletion and deleteoption', async () => {
    await host.create(T.fcm, {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'orphaned', namespace: NSX, annotations: { 'kubefed.io/orphan': 'true' } },
      spec: { template: { data: { a: '1' } }, placement: { clusterSelector: {} } },
    });
    await eventually(
      'in both',
      async () => [
        await getOrUndefined(c1, T.configmaps, 'orphaned', NSX),
        await getOrUndefined(c2, T.configmaps, 'orphaned', NSX),
      ],
      (v) => v.every(Boolean),
    );
    await host.delete(T.fcm, 'orphaned', { namespace: NSX });
    await eventually(
      'federated object gone',
      () => getOrUndefined(host, T.fcm, 'orphaned', NSX),
      (v) => v === undefined,
    );
    for (const c of [c1, c2]) {
      const left = await c.get(T.configmaps, 'orphaned', NSX);
      assert.equal(left.metadata.labels?.['kubefed.io/managed'], undefined, 'left unlabelled');
    }
  });

  test('a labelled member object without a federated object loses its managed label', async () => {
    await c1.create(T.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stray', namespace: NSX, labels: { 'kubefed.io/managed': 'true' } },
      data: { x: 'y' },
    });
    await eventually(
      'unlabelled',
      () => c1.get(T.configmaps, 'stray', NSX),
      (o) => o.metadata.labels?.['kubefed.io/managed'] === undefined,
    );
  });

  test('adoption of a pre-existing object, and kubefed.io/managed=false is respected', async () => {
    await c1.create(T.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'preexisting', namespace: NSX },
      data: { old: 'x' },
    });
    await c2.create(T.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'preexisting', namespace: NSX, labels: { 'kubefed.io/managed': 'false' } },
      data: { mine: 'keep' },
    });
    await host.create(T.fcm, {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'preexisting', namespace: NSX },
      spec: { template: { data: { new: 'y' } }, placement: { clusterSelector: {} } },
    });
    type Cm = KubeObject & { data?: Record<string, string> };
    await eventually(
      'adopted in cluster1',
      () => c1.get<Cm>(T.configmaps, 'preexisting', NSX),
      (o) => o.data?.new === 'y' && o.metadata.labels?.['kubefed.io/managed'] === 'true',
    );
    const fo = await eventually(
      'ManagedLabelFalse for cluster2',
      () => host.get<FedObject>(T.fcm, 'preexisting', NSX),
      (o) =>
        Boolean(o.status?.clusters?.some((c) => c.name === 'cluster2' && c.status === 'ManagedLabelFalse')),
    );
    assert.equal(propagation(fo)?.reason, 'CheckClusters');
    assert.deepEqual((await c2.get<Cm>(T.configmaps, 'preexisting', NSX)).data, { mine: 'keep' });
  });

  test('a namespace that is not federated: NamespaceNotFederated', async () => {
    await host.create(T.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'not-federated' },
    });
    await host.create(T.fcm, {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'lonely', namespace: 'not-federated' },
      spec: { template: { data: { a: '1' } }, placement: { clusterSelector: {} } },
    });
    const fo = await eventually(
      'NamespaceNotFederated',
      () => host.get<FedObject>(T.fcm, 'lonely', 'not-federated'),
      (o) => propagation(o)?.reason === 'NamespaceNotFederated',
    );
    assert.equal(propagation(fo)?.status, 'False');
  });

  test('bad input gets a documented status and an event, and nothing crashes', async () => {
    const base = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name, namespace: NSX },
      spec: { template: { data: { a: '1' } }, placement: { clusterSelector: {} }, ...spec },
    });
    await host.create(
      T.fcm,
      base('bad-path', {
        overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ op: 'remove', path: '/data/missing' }] }],
      }),
    );
    await host.create(
      T.fcm,
      base('forbidden-path', {
        overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ path: '/metadata/name', value: 'x' }] }],
      }),
    );
    await host.create(
      T.fcm,
      base('dup-cluster', {
        overrides: [
          { clusterName: 'cluster1', clusterOverrides: [{ path: '/data/a', value: '2' }] },
          { clusterName: 'cluster1', clusterOverrides: [{ path: '/data/a', value: '3' }] },
        ],
      }),
    );
    await host.create(
      T.fcm,
      base('unknown-cluster', { placement: { clusters: [{ name: 'cluster1' }, { name: 'nowhere' }] } }),
    );
    await host.create(T.fcm, {
      ...base('annotated', {}),
      spec: {
        template: { metadata: { annotations: { a: 'b' } }, data: { a: '1' } },
        placement: { clusterSelector: {} },
      },
    });
    const status = (name: string) => host.get<FedObject>(T.fcm, name, NSX);
    const bad = await eventually(
      'bad path: ApplyOverridesFailed for cluster1 only',
      () => status('bad-path'),
      (o) =>
        JSON.stringify(o.status?.clusters?.map((c) => [c.name, c.status ?? ''])) ===
        JSON.stringify([
          ['cluster1', 'ApplyOverridesFailed'],
          ['cluster2', ''],
        ]),
    );
    assert.equal(propagation(bad)?.reason, 'CheckClusters');
    // kubefed-ts: the entry says why.
    assert.match(bad.status?.clusters?.[0]?.message ?? '', /\/data\/missing/);
    assert.equal(bad.status?.clusters?.[1]?.message, undefined);
    for (const name of ['forbidden-path', 'dup-cluster']) {
      await eventually(
        `${name}: ApplyOverridesFailed for every cluster`,
        () => status(name),
        (o) =>
          o.status?.clusters?.length === 2 &&
          o.status.clusters.every((c) => c.status === 'ApplyOverridesFailed'),
      );
      assert.ok((await eventReasons(host, NSX, name)).includes('ApplyOverridesFailed'));
    }
    const unknown = await eventually(
      'unknown cluster ignored',
      () => status('unknown-cluster'),
      (o) => propagation(o)?.status === 'True',
    );
    assert.deepEqual(unknown.status?.clusters, [{ name: 'cluster1' }]);
    assert.ok((await eventReasons(host, NSX, 'unknown-cluster')).includes('UnknownClusters'));
    await eventually(
      'annotations dropped with an event',
      () => eventReasons(host, NSX, 'annotated'),
      (r) => r.includes('AnnotationsNotSupported'),
    );
    assert.equal((await c1.get(T.configmaps, 'annotated', NSX)).metadata.annotations?.a, undefined);
    // A selector the API server accepts but that is invalid leaves the members alone (no deletion).
    await eventually(
      'unknown-cluster copy in cluster1',
      () => getOrUndefined(c1, T.configmaps, 'unknown-cluster', NSX),
      Boolean,
    );
    await host.patch(
      T.fcm,
      'unknown-cluster',
      {
        spec: {
          placement: {
            clusters: null,
            clusterSelector: { matchExpressions: [{ key: 'region', operator: 'in', values: ['eu'] }] },
          },
        },
      },
      { namespace: NSX },
    );
    const invalid = await eventually(
      'ComputePlacementFailed',
      () => status('unknown-cluster'),
      (o) => propagation(o)?.reason === 'ComputePlacementFailed',
    );
    assert.equal(propagation(invalid)?.status, 'False');
    assert.ok((await eventReasons(host, NSX, 'unknown-cluster')).includes('ComputePlacementFailed'));
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok(await getOrUndefined(c1, T.configmaps, 'unknown-cluster', NSX), 'member copy kept');
    // Still alive and propagating.
    assert.ok(cm.process.running);
  });
  // Last: it restarts the controller manager with the KubeFed-compatible backend.
  test('--propagated-versions=true: PropagatedVersions as KubeFed writes them, taken over from the status without a member write', async () => {
    type Version = KubeObject & { status?: RecordedVersions };
    const rvs = async () =>
      Promise.all(
        [c1, c2].map(
          async (c) => (await c.get(T.deployments, 'test-deployment', NSX)).metadata.resourceVersion,
        ),
      );
    const before = await rvs();
    const recorded = (await host.get<VersionedObject>(T.fdeploy, 'test-deployment', NSX)).status
      ?.propagatedVersion;
    await cm.process.stop();
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      name: 'kubefed-controller-manager-pv',
      logFile: join(fed.dir, 'kubefed-controller-manager-pv.log'),
      args: ['--member-deletion-timeout=8s', '--propagated-versions=true'],
    });
    // An object propagated before: its PropagatedVersion is written from the status, the members are not.
    const pv = await eventually(
      'PropagatedVersion deployment-test-deployment',
      () => getOrUndefined<Version>(host, PropagatedVersionType, 'deployment-test-deployment', NSX),
      (v) => (v?.status?.clusterVersions?.length ?? 0) === 2,
    );
    assert.deepEqual(pv?.status, recorded);
    assert.ok(pv?.status?.clusterVersions?.every((c) => c.version === 'gen:1'));
    assert.equal((pv?.metadata.ownerReferences?.[0] as { name?: string })?.name, 'test-deployment');
    assert.deepEqual(await rvs(), before, 'member copies not written');

    // A new object: a PropagatedVersion and no status.propagatedVersion, as KubeFed.
    await host.create(T.fcm, {
      apiVersion: API,
      kind: 'FederatedConfigMap',
      metadata: { name: 'versions-as-objects', namespace: NSX },
      spec: {
        template: { data: { a: '1' } },
        placement: { clusters: [{ name: 'cluster1' }, { name: 'cluster2' }] },
      },
    });
    const cmPv = await eventually(
      'PropagatedVersion configmap-versions-as-objects',
      () => getOrUndefined<Version>(host, PropagatedVersionType, 'configmap-versions-as-objects', NSX),
      (v) => (v?.status?.clusterVersions?.length ?? 0) === 2,
    );
    assert.deepEqual(
      cmPv?.status?.clusterVersions?.map((c) => c.clusterName),
      ['cluster1', 'cluster2'],
    );
    assert.ok(cmPv?.status?.clusterVersions?.every((c) => c.version.startsWith('rv:')));
    const fcm = await eventually(
      'Propagation=True',
      () => host.get<FedObject & VersionedObject>(T.fcm, 'versions-as-objects', NSX),
      (o) => propagation(o)?.status === 'True',
    );
    assert.equal(fcm.status?.propagatedVersion, undefined);
  });
});
