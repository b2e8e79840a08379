// The other front ends over pull mode: a FederatedConfigMap and a policy-placed Deployment bound for a Pull
// cluster reach it through its agent (the engine writes ManifestWorks in the hub namespace named after the
// cluster and reads their status back), beside a Push member that works as before. Host + 2 kwok members, the
// controller manager as its own process; cluster1 joins with `kubefedctl join --mode pull`, and kubefed-agent
// runs as its own process under the member RBAC join installed.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ManifestWork } from '../../src/api/ocm/work/v1/index.ts';
import { OWNER_ANNOTATION } from '../../src/engine/ownership.ts';
import { MANIFEST_WORK_TYPE, manifestWorkName, WORK_SOURCE_LABEL } from '../../src/engine/pull/names.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import {
  CoreTypes,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { renderKubeconfig } from '../../src/kube/kubeconfig/index.ts';
import { AGENT_NAME, AGENT_NAMESPACE, HUB_KUBECONFIG_SECRET } from '../../src/kubefedctl/agent-install.ts';
import { PullWorks } from '../../src/members/pull-works.ts';
import { MANAGED_LABEL } from '../../src/propagation/constants.ts';
import { BindingTypes } from '../../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../../src/sources/policy/policies.ts';
import { type AgentProcess, startAgent } from '../../src/testing/agent-process.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventually,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  T,
} from './federation-helpers.ts';
import { kubefedctl, NS, prepareHost, waitForCluster } from './helpers.ts';

const PULL = 'cluster1';
const PUSH = 'cluster2';
const FNS = 'pull-fed';
const APPS = 'pull-apps';
const DEPLOY: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
type Obj = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};
type WorkObject = ManifestWork & KubeObject;
type Binding = KubeObject & {
  status?: {
    aggregatedStatus?: Array<{
      clusterName: string;
      applied?: boolean;
      appliedMessage?: string;
      health?: string;
    }>;
  };
};

function deployment(name: string, replicas: number): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: APPS, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/team/web:1.0' }] },
      },
    },
  };
}

describe('Federated<Kind> and policy-placed objects over a Pull cluster', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let pull: KubeClient;
  let push: KubeClient;
  let agent: AgentProcess | undefined;

  const work = (name: string) => getOrUndefined<WorkObject>(host, MANIFEST_WORK_TYPE, name, PULL);

  before(async () => {
    fed = await startFederation({
      members: [PULL, PUSH],
      workloads: true,
      hostControllers: 'federation-apiserver',
    });
    host = fed.host.client();
    await prepareHost(host);
    await installControlPlane(host, NS, { defaultTypes: true });
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager.log'),
      args: ['--member-deletion-timeout=8s'],
    });
    const joined = await kubefedctl([
      'join',
      PUSH,
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(joined.code, 0, joined.stderr);
    // As a user does: join installs the agent's RBAC (and Deployment) in the member and gives it a hub token.
    const pulled = await kubefedctl([
      'join',
      PULL,
      '--mode=pull',
      `--cluster-context=${PULL}`,
      '--host-cluster-context=host',
      `--kubeconfig=${fed.kubeconfigPath}`,
      '--agent-lease-duration=2s',
    ]);
    assert.equal(pulled.code, 0, pulled.stderr);
    pull = fed.cluster(PULL).client();
    push = fed.cluster(PUSH).client();
    // The agent as its own process with what its pod would mount: the hub kubeconfig join wrote into the
    // member, and a token of the agent's own ServiceAccount there (so it runs under the RBAC join installed).
    const secret = await pull.get<KubeObject & { data: Record<string, string> }>(
      CoreTypes.secrets,
      HUB_KUBECONFIG_SECRET,
      AGENT_NAMESPACE,
    );
    const hubKubeconfig = join(fed.dir, 'hub-kubeconfig');
    writeFileSync(hubKubeconfig, Buffer.from(secret.data['kubeconfig'] ?? '', 'base64'), { mode: 0o600 });
    const tr = await pull.request<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${AGENT_NAMESPACE}/serviceaccounts/${AGENT_NAME}/token`,
      {
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 7200 },
        },
      },
    );
    const memberKubeconfig = join(fed.dir, 'member-agent-kubeconfig');
    const m = fed.cluster(PULL);
    writeFileSync(
      memberKubeconfig,
      renderKubeconfig(
        [{ name: PULL, server: m.server, caData: m.api.caData, token: tr.status.token }],
        PULL,
      ),
      { mode: 0o600 },
    );
    agent = await startAgent({
      hubKubeconfig,
      memberKubeconfig,
      clusterName: PULL,
      logFile: join(fed.dir, 'kubefed-agent.log'),
      args: ['--lease-duration=2s', '--status-sync-interval=2s'],
    });
    for (const c of [PULL, PUSH]) {
      await waitForCluster(host, c, 'Ready', (k) =>
        Boolean(k.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
      );
    }
  });
  after(async () => {
    await agent?.process.stop();
    await cm?.process.stop();
    await fed?.stop();
  });

  test('the Pull cluster holds no member credential on the hub', async () => {
    const kfc = await host.get<KubeObject & { spec: { syncMode?: string; secretRef?: unknown } }>(
      { group: 'core.kubefed.io', version: 'v1beta1', plural: 'kubefedclusters', namespaced: true },
      PULL,
      NS,
    );
    assert.equal(kfc.spec.syncMode, 'Pull');
    assert.equal(kfc.spec.secretRef, undefined);
  });

  test('a FederatedConfigMap reaches the Pull member through a ManifestWork, and the Push member directly; status.clusters says OK for both', async () => {
    await createFederatedNamespace(host, FNS);
    await host.create(T.fcm, federatedConfigMap('cfg', FNS, { k: 'v1' }));
    for (const c of [pull, push]) {
      await eventually(
        'cfg in a member',
        () => getOrUndefined<Obj>(c, T.configmaps, 'cfg', FNS),
        (o) => o?.data?.k === 'v1' && o.metadata.labels?.[MANAGED_LABEL] === 'true',
        60_000,
      );
    }
    const name = manifestWorkName({
      source: 'federated',
      kind: 'FederatedConfigMap',
      namespace: FNS,
      name: 'cfg',
    });
    const mw = await work(name);
    assert.ok(mw, 'the ManifestWork in the hub namespace of the Pull cluster');
    assert.equal(mw.metadata.labels?.[WORK_SOURCE_LABEL], 'federated');
    assert.equal(mw.metadata.annotations?.[OWNER_ANNOTATION], `federated:FederatedConfigMap:${FNS}/cfg`);
    assert.equal(mw.spec.manifestConfigs?.[0]?.updateStrategy?.type, 'ServerSideApply');
    // The Push member got no ManifestWork.
    assert.equal(await getOrUndefined(host, MANIFEST_WORK_TYPE, name, PUSH), undefined);
    const status = await eventually(
      'status.clusters OK for both',
      () => getOrUndefined<FedObject>(host, T.fcm, 'cfg', FNS),
      (o) => {
        const cl = o?.status?.clusters ?? [];
        return cl.length === 2 && cl.every((c) => c.status === undefined);
      },
      60_000,
    );
    assert.deepEqual(
      status?.status?.clusters?.map((c) => c.name),
      [PULL, PUSH],
    );

    // An update reaches the Pull member; once it has, the work is not written again.
    const fcm = await host.get<FedObject>(T.fcm, 'cfg', FNS);
    await host.update(T.fcm, { ...fcm, spec: { ...fcm.spec, template: { data: { k: 'v2' } } } });
    await eventually(
      'v2 in the Pull member',
      () => getOrUndefined<Obj>(pull, T.configmaps, 'cfg', FNS),
      (o) => o?.data?.k === 'v2',
      60_000,
    );
    const settled = await eventually(
      'the agent reported the new generation',
      () => work(name),
      (w) =>
        w?.status?.conditions?.some(
          (c) =>
            c.type === 'Applied' && c.status === 'True' && c.observedGeneration === w.metadata.generation,
        ) === true,
    );
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(
      (await work(name))?.metadata.resourceVersion,
      settled?.metadata.resourceVersion,
      'no needless hub write',
    );

    // Deleted: both copies go, the work goes, the federated object goes.
    await host.delete(T.fcm, 'cfg', { namespace: FNS });
    for (const c of [pull, push]) {
      await eventually(
        'cfg gone from a member',
        () => getOrUndefined(c, T.configmaps, 'cfg', FNS),
        (o) => o === undefined,
        60_000,
      );
    }
    await eventually(
      'the ManifestWork gone',
      () => work(name),
      (w) => w === undefined,
      60_000,
    );
    await eventually(
      'the FederatedConfigMap gone',
      () => getOrUndefined(host, T.fcm, 'cfg', FNS),
      (o) => o === undefined,
      60_000,
    );
  });

  test('an orphaning deletion leaves the copies in both members, released (no managed label), and the work goes', async () => {
    const fcm = federatedConfigMap('kept', FNS, { k: 'v' });
    fcm.metadata.annotations = { 'kubefed.io/orphan': 'true' };
    await host.create(T.fcm, fcm);
    for (const c of [pull, push]) {
      await eventually(
        'kept in a member',
        () => getOrUndefined<Obj>(c, T.configmaps, 'kept', FNS),
        (o) => o?.metadata.labels?.[MANAGED_LABEL] === 'true',
        60_000,
      );
    }
    const name = manifestWorkName({
      source: 'federated',
      kind: 'FederatedConfigMap',
      namespace: FNS,
      name: 'kept',
    });
    await eventually(
      'the agent reported the work',
      () => work(name),
      (w) => w?.status?.conditions?.some((c) => c.type === 'Applied' && c.status === 'True') === true,
    );
    await host.delete(T.fcm, 'kept', { namespace: FNS });
    await eventually(
      'the FederatedConfigMap gone',
      () => getOrUndefined(host, T.fcm, 'kept', FNS),
      (o) => o === undefined,
      60_000,
    );
    await eventually(
      'the ManifestWork gone',
      () => work(name),
      (w) => w === undefined,
      60_000,
    );
    for (const c of [pull, push]) {
      const o = await getOrUndefined<Obj>(c, T.configmaps, 'kept', FNS);
      assert.equal(o?.data?.k, 'v', 'the copy stays');
      assert.equal(o?.metadata.labels?.[MANAGED_LABEL], undefined, 'released');
    }
  });

  test('a policy-placed Deployment reaches the Pull member; its binding shows the kwok pods ready there, and deleting it removes both copies', async () => {
    await host.create(CoreTypes.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: APPS },
    });
    await host.create(PolicyTypes.PropagationPolicy, {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: APPS },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: { clusterAffinity: { clusterNames: [PULL, PUSH] } },
      },
    });
    await host.create(DEPLOY, deployment('web', 2));
    for (const c of [pull, push]) {
      await eventually(
        'web in a member',
        () => getOrUndefined<Obj>(c, DEPLOY, 'web', APPS),
        (o) => o?.spec?.replicas === 2,
        90_000,
      );
    }
    const rb = await eventually(
      'both clusters applied and healthy in the binding',
      () => getOrUndefined<Binding>(host, BindingTypes.ResourceBinding, 'web-deployment', APPS),
      (b) => {
        const items = b?.status?.aggregatedStatus ?? [];
        return items.length === 2 && items.every((i) => i.applied === true && i.health === 'Healthy');
      },
      120_000,
    );
    assert.deepEqual(
      rb?.status?.aggregatedStatus?.map((i) => i.clusterName),
      [PULL, PUSH],
    );
    await eventually(
      'the fleet status on the template counts the Pull member’s kwok pods',
      () => getOrUndefined<Obj>(host, DEPLOY, 'web', APPS),
      (o) => o?.status?.readyReplicas === 4,
      90_000,
    );

    await host.delete(DEPLOY, 'web', { namespace: APPS });
    for (const c of [pull, push]) {
      await eventually(
        'web gone from a member',
        () => getOrUndefined(c, DEPLOY, 'web', APPS),
        (o) => o === undefined,
        90_000,
      );
    }
  });
  test("the engine's own ManifestWork writes are not told to the works' listeners; someone else's change is", async () => {
    // A hub namespace no agent reads, so that the only other writer is this test.
    const ns = 'pull-own-writes';
    await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const works = new PullWorks({ host });
    const heard: string[] = [];
    // The works of the tests before (in the Pull cluster's namespace) are heard too, as the cache loads.
    works.addListener({ onWork: (c, w) => c === ns && heard.push(w.metadata.resourceVersion ?? '') });
    works.start();
    try {
      await eventually(
        'the works loaded',
        async () => works.hasSynced(),
        (s) => s,
      );
      const name = 'own-writes';
      const spec = (v: string) => ({
        workload: {
          manifests: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } },
          ],
        },
      });
      let written = await works.ownWrite(ns, name, undefined, () =>
        host.create<WorkObject>(MANIFEST_WORK_TYPE, {
          apiVersion: 'work.open-cluster-management.io/v1',
          kind: 'ManifestWork',
          metadata: { name, namespace: ns, labels: { [WORK_SOURCE_LABEL]: 'test' } },
          spec: spec('0'),
        }),
      );
      const own = [written.metadata.resourceVersion];
      // Writes in a row, as the engine makes them on every change: over loopback the watch event of a write
      // often arrives before its response, the case a cache that only records answered writes misses.
      for (let i = 1; i <= 5; i++) {
        const previous = written;
        written = await works.ownWrite(ns, name, previous.metadata.resourceVersion, () =>
          host.update<WorkObject>(MANIFEST_WORK_TYPE, { ...previous, spec: spec(String(i)) }),
        );
        own.push(written.metadata.resourceVersion);
        // The next read sees the write at once.
        assert.equal(works.get(ns, name)?.metadata.resourceVersion, written.metadata.resourceVersion);
      }
      // A status report, as an agent makes it: a change this process did not make through the works.
      const reported = await host.update<WorkObject>(
        MANIFEST_WORK_TYPE,
        {
          ...written,
          status: {
            conditions: [
              {
                type: 'Applied',
                status: 'True',
                reason: 'AppliedManifestWorkComplete',
                message: 'Apply manifest work complete',
                observedGeneration: written.metadata.generation ?? 0,
                lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              },
            ],
          },
        },
        { subresource: 'status' },
      );
      await eventually(
        'the listener hears of the report',
        async () => heard,
        (h) => h.includes(reported.metadata.resourceVersion ?? ''),
      );
      assert.deepEqual(heard, [reported.metadata.resourceVersion], `own writes: ${JSON.stringify(own)}`);
    } finally {
      await works.stop();
      await host.delete(CoreTypes.namespaces, ns);
    }
  });
});
