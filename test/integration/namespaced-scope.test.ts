import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  API_VERSION,
  FederatedTypeConfigType,
  KUBEFED_CONFIG_KIND,
  KubeFedClusterType,
  KubeFedConfigType,
} from '../../src/api/core/v1beta1/index.ts';
import { defaultKubeFedConfigSpec } from '../../src/config/index.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { MEMBER_RBAC_ANNOTATION, scopedRbacRules } from '../../src/kubefedctl/scoped-rbac.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { scrape, value } from '../../src/testing/prometheus.ts';
import {
  eventually,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  propagation,
  T,
} from './federation-helpers.ts';
import { type ClusterObject, FAST_CONFIG, kubefedctl } from './helpers.ts';

/** The control plane's namespace (KubeFed namespace) and a namespace it must leave alone. */
const A = 'team-a';
const B = 'team-b';

const fcm = (name: string, namespace: string): KubeObject =>
  federatedConfigMap(name, namespace, { from: namespace });

describe('a namespaced control plane (KubeFedConfig scope Namespaced)', () => {
  let fed: Federation;
  let host: KubeClient;
  let member: KubeClient;
  let cm: ControllerManagerProcess | undefined;
  /** resourceVersions of everything created in namespace B, which nothing may write to. */
  const untouched = new Map<string, { type: typeof T.fcm; name: string; rv: string }>();

  before(async () => {
    fed = await startFederation({ members: ['cluster1'] });
    host = fed.host.client();
    member = fed.cluster('cluster1').client();
    await installControlPlane(host, A, { defaultTypes: true });
    await host.create(KubeFedConfigType, {
      apiVersion: API_VERSION,
      kind: KUBEFED_CONFIG_KIND,
      metadata: { name: 'kubefed', namespace: A },
      spec: defaultKubeFedConfigSpec({ ...FAST_CONFIG, scope: 'Namespaced' }, 'Namespaced'),
    });
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: A,
      logFile: join(fed.dir, 'kubefed-controller-manager.log'),
    });
    const r = await kubefedctl([
      'join',
      'cluster1',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
      '--kubefed-namespace',
      A,
    ]);
    assert.equal(r.code, 0, r.stderr);
    await waitForClusterIn(host, A, 'cluster1');
    // The same namespace exists in the member, so a propagation there would succeed if it were attempted.
    for (const c of [host, member]) {
      await c.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: B } });
    }
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('federated objects in the control-plane namespace propagate; the same objects elsewhere are ignored', async () => {
    // In B: a twin of an object in A, an object only in B, and a KubeFedCluster (with its Secret)
    // registering the same member under another name.
    for (const name of ['shared', 'only-b']) {
      const o = await host.create(T.fcm, fcm(name, B));
      untouched.set(`fcm/${name}`, { type: T.fcm, name, rv: o.metadata.resourceVersion ?? '' });
    }
    const joined = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', A);
    const secretName = joined.spec?.secretRef?.name ?? '';
    const secret = await host.get<KubeObject & { data?: Record<string, string> }>(
      CoreTypes.secrets,
      secretName,
      A,
    );
    await host.create(CoreTypes.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'rogue-secret', namespace: B },
      data: secret.data,
    });
    const rogue = await host.create<ClusterObject>(KubeFedClusterType, {
      apiVersion: API_VERSION,
      kind: 'KubeFedCluster',
      metadata: { name: 'rogue', namespace: B },
      spec: { ...joined.spec, secretRef: { name: 'rogue-secret' } },
    } as ClusterObject);
    untouched.set('kfc/rogue', {
      type: KubeFedClusterType as typeof T.fcm,
      name: 'rogue',
      rv: rogue.metadata.resourceVersion ?? '',
    });

    await host.create(T.fcm, fcm('shared', A));
    const propagated = await eventually(
      'shared in A propagated',
      () => host.get<FedObject>(T.fcm, 'shared', A),
      (o) => propagation(o)?.status === 'True' && (o.status?.clusters?.length ?? 0) > 0,
      60_000,
    );
    // Placement "every cluster" means the clusters registered in A: the one in B is not one of them.
    assert.deepEqual(
      propagated.status?.clusters?.map((c) => c.name),
      ['cluster1'],
    );
    const copy = await getOrUndefined<KubeObject & { data?: Record<string, string> }>(
      member,
      T.configmaps,
      'shared',
      A,
    );
    assert.equal(copy?.data?.from, A);

    // Give the controllers time to (wrongly) act on B: several health periods and reconciles.
    await new Promise((r) => setTimeout(r, 6000));
    for (const [what, u] of untouched) {
      const now = await host.get<FedObject>(u.type, u.name, B);
      assert.equal(now.metadata.resourceVersion, u.rv, `${what} in ${B} was written to`);
      assert.equal(now.status, undefined, `${what} in ${B} got a status`);
      assert.deepEqual(now.metadata.finalizers ?? [], [], `${what} in ${B} got a finalizer`);
    }
    for (const name of ['shared', 'only-b']) {
      assert.equal(await getOrUndefined(member, T.configmaps, name, B), undefined, `${name} reached ${B}`);
    }
    const events = await host.list<KubeObject & { reason?: string }>(CoreTypes.events, { namespace: B });
    assert.deepEqual(
      events.items.map((e) => e.reason),
      [],
      'no events on objects in B',
    );

    // The rogue registration is not probed either: no health series for it.
    assert.ok(cm);
    const s = await scrape(cm.metricsUrl);
    assert.equal(value(s, 'kubefedcluster_total', { cluster: 'rogue' }), undefined);
    assert.equal(value(s, 'kubefedcluster_total', { state: 'ready', cluster: 'cluster1' }), 1);
    assert.equal(value(s, 'joined_cluster_total'), 1);
  });

  test('cluster-scoped types are not propagated by a namespaced control plane', async () => {
    type Ftc = KubeObject & { status?: { observedGeneration?: number; propagationController?: string } };
    // The controller has looked at the FTC (status written for its generation) and decided not to run it.
    const observed = (name: string) =>
      eventually(
        `FTC ${name} observed`,
        () => host.get<Ftc>(FederatedTypeConfigType, name, A),
        (f) => f.status?.observedGeneration === f.metadata.generation,
      );
    for (const name of ['clusterroles.rbac.authorization.k8s.io', 'namespaces']) {
      assert.equal((await observed(name)).status?.propagationController, 'NotRunning', name);
    }
    assert.equal((await observed('configmaps')).status?.propagationController, 'Running');
  });

  test('join --scoped-rbac keeps the namespaced Role, narrowed to the namespaced types enabled', async () => {
    const r = await kubefedctl([
      'join',
      'cluster1',
      '--scoped-rbac',
      '--error-on-existing=false',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
      '--kubefed-namespace',
      A,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const ftcs = await host.listAll(FederatedTypeConfigType, { namespace: A });
    const want = scopedRbacRules(ftcs.items, 'Namespaced');
    const role = await member.get(CoreTypes.roles, 'kubefed-controller-manager:cluster1-host', A);
    assert.deepEqual(role.rules, want.rules);
    assert.ok(!JSON.stringify(role.rules).includes('namespaces'), 'cluster-scoped targets are not granted');
    const health = await member.get(
      CoreTypes.clusterRoles,
      `kubefed-controller-manager:${A}:healthcheck-cluster1-host`,
    );
    assert.deepEqual(health.rules, want.healthCheckRules);
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', A);
    assert.equal(kfc.metadata.annotations?.[MEMBER_RBAC_ANNOTATION], 'scoped');

    await host.create(T.fcm, fcm('after-scoping', A));
    await eventually(
      'after-scoping propagated',
      () => getOrUndefined(member, T.configmaps, 'after-scoping', A),
      (c) => c !== undefined,
    );
    await waitForClusterIn(host, A, 'cluster1');
    assert.ok(cm);
    const s = await scrape(cm.metricsUrl);
    assert.equal(value(s, 'rest_client_requests_total', { cluster: 'cluster1', code: '403' }), undefined);
  });
});

async function waitForClusterIn(host: KubeClient, namespace: string, name: string): Promise<void> {
  await eventually(
    `KubeFedCluster ${namespace}/${name} Ready`,
    () => host.get<ClusterObject>(KubeFedClusterType, name, namespace),
    (c) => Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
  );
}
