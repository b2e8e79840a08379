// Pull mode end to end: `kubefedctl join cluster1 --mode pull` run as the CLI, kubefed-agent as its own
// process with the hub kubeconfig join made and the member credentials of the agent's own ServiceAccount
// (so the member RBAC join installs is what it runs under), the controller manager as its own process
// (cluster health from the agent's lease). The member runs workloads (kwok), so Deployments become ready.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { isClusterReady, KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import type { ManifestWork } from '../../src/api/ocm/work/v1/index.ts';
import { AMW_TYPE, MW_TYPE } from '../../src/engine/agent/applied-work.ts';
import {
  ApiError,
  CoreTypes,
  KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { loadKubeconfig, renderKubeconfig, restConfigForContext } from '../../src/kube/kubeconfig/index.ts';
import { AGENT_NAME, AGENT_NAMESPACE, HUB_KUBECONFIG_SECRET } from '../../src/kubefedctl/agent-install.ts';
import { type AgentProcess, startAgent } from '../../src/testing/agent-process.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { parsePrometheusText, type Sample } from '../../src/testing/prometheus.ts';
import { type ClusterObject, kubefedctl, NS, prepareHost } from './helpers.ts';

const C = 'cluster1';
const APP_NS = 'pull-app';
const MW = MW_TYPE;
const AMW = AMW_TYPE;
const DEPLOYMENTS: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
/** The agent's lease period in this test: the hub's grace is 5 × 1 s. */
const LEASE = '1s';
const AGENT_ARGS = [`--lease-duration=${LEASE}`, '--status-sync-interval=1s'];

type Work = ManifestWork;
const cond = (w: Work | undefined, type: string) => w?.status?.conditions?.find((c) => c.type === type);

function deployment(replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: APP_NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
    },
  };
}

function configMap(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: APP_NS }, data };
}

/** The member apiserver's writes (POST, PUT, PATCH, DELETE) per resource/subresource, from its /metrics. */
async function memberWrites(member: KubeClient): Promise<Map<string, number>> {
  const res = await member.requestRaw('GET', '/metrics');
  assert.equal(res.statusCode, 200);
  const out = new Map<string, number>();
  for (const s of parsePrometheusText(res.body).filter((x: Sample) => x.name === 'apiserver_request_total')) {
    if (!['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY'].includes(s.labels['verb'] ?? '')) continue;
    const key = `${s.labels['resource']}${s.labels['subresource'] ? `/${s.labels['subresource']}` : ''}`;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** What the agent would write: the applied kinds and its AppliedManifestWorks (not kwok's or the controllers'). */
const AGENT_RESOURCES = [
  'configmaps',
  'deployments',
  'namespaces',
  'appliedmanifestworks',
  'appliedmanifestworks/status',
];
function writesBetween(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of AGENT_RESOURCES) {
    const d = (after.get(r) ?? 0) - (before.get(r) ?? 0);
    if (d !== 0) out[r] = d;
  }
  return out;
}

function statusCode(e: unknown): number {
  return e instanceof ApiError ? e.statusCode : 0;
}

describe('pull mode: kubefedctl join --mode pull and kubefed-agent as its own process', () => {
  let fed: Federation;
  let host: KubeClient;
  let member: KubeClient;
  let hubAsAgent: KubeClient;
  let cm: ControllerManagerProcess;
  let agent: AgentProcess | undefined;
  let hubKubeconfigPath: string;
  let memberKubeconfigPath: string;
  let joinOut: { code: number; stdout: string; stderr: string };
  let agentRuns = 0;

  const startTheAgent = async () => {
    agent = await startAgent({
      hubKubeconfig: hubKubeconfigPath,
      memberKubeconfig: memberKubeconfigPath,
      clusterName: C,
      logFile: join(fed.dir, `kubefed-agent-${++agentRuns}.log`),
      args: AGENT_ARGS,
    });
  };
  const work = (name: string) => host.get<Work>(MW, name, C);
  const waitForWork = async (name: string, what: string, check: (w: Work) => boolean, timeoutMs = 60_000) => {
    let last: Work | undefined;
    await waitFor(
      `ManifestWork ${name} ${what}`,
      async () => {
        last = await work(name).catch(() => undefined);
        return last !== undefined && check(last);
      },
      {
        timeoutMs,
        intervalMs: 250,
        describe: () => `${JSON.stringify(last?.status ?? null)}\n${agent?.process.tail() ?? ''}`,
      },
    );
    return last as Work;
  };
  const waitForReady = (ready: boolean, timeoutMs = 60_000) =>
    waitFor(
      `KubeFedCluster ${C} ${ready ? 'Ready' : 'not Ready'}`,
      async () => {
        const kfc = await host.get<ClusterObject>(KubeFedClusterType, C, NS);
        return isClusterReady(kfc.status?.conditions) === ready;
      },
      { timeoutMs, intervalMs: 250 },
    );

  before(async () => {
    fed = await startFederation({ members: [C], workloads: true, hostControllers: 'tokens' });
    host = fed.host.client();
    member = fed.cluster(C).client();
    await prepareHost(host);
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager.log'),
    });
    joinOut = await kubefedctl([
      'join',
      C,
      '--mode=pull',
      `--cluster-context=${C}`,
      '--host-cluster-context=host',
      `--kubeconfig=${fed.kubeconfigPath}`,
      `--agent-lease-duration=${LEASE}`,
    ]);
    assert.equal(joinOut.code, 0, joinOut.stderr);
    // What the agent's pod would mount: the hub kubeconfig Secret join wrote into the member.
    const secret = await member.get<KubeObject & { data: Record<string, string> }>(
      CoreTypes.secrets,
      HUB_KUBECONFIG_SECRET,
      AGENT_NAMESPACE,
    );
    hubKubeconfigPath = join(fed.dir, 'hub-kubeconfig');
    writeFileSync(hubKubeconfigPath, Buffer.from(secret.data['kubeconfig'] ?? '', 'base64'), { mode: 0o600 });
    hubAsAgent = new KubeClient(restConfigForContext(loadKubeconfig({ kubeconfig: hubKubeconfigPath })), {
      name: 'hub-as-agent',
    });
    // The member credentials of the agent's own ServiceAccount, as its pod would have them.
    const tr = await member.request<{ status: { token: string } }>(
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
    memberKubeconfigPath = join(fed.dir, 'member-agent-kubeconfig');
    writeFileSync(
      memberKubeconfigPath,
      renderKubeconfig(
        [
          {
            name: C,
            server: fed.cluster(C).server,
            caData: fed.cluster(C).api.caData,
            token: tr.status.token,
          },
        ],
        C,
      ),
      { mode: 0o600 },
    );
    await startTheAgent();
  });

  after(async () => {
    await agent?.process.stop();
    await cm?.process.stop();
    await hubAsAgent?.close();
    await fed?.stop();
  });

  test('join made a Pull KubeFedCluster with no secretRef, and the agent install in the member', async () => {
    assert.match(joinOut.stdout, /Cluster "cluster1" joined in Pull mode\./);
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, C, NS);
    assert.equal(kfc.spec.syncMode, 'Pull');
    assert.equal(kfc.spec.secretRef, undefined);
    assert.equal(kfc.spec.apiEndpoint, fed.cluster(C).server);
    const d = await member.get(DEPLOYMENTS, AGENT_NAME, AGENT_NAMESPACE);
    assert.equal(d.metadata.name, AGENT_NAME);
  });

  test('the hub holds no credential of the member', async () => {
    const secrets = await host.listAll<KubeObject & { data?: Record<string, string> }>(CoreTypes.secrets);
    const memberAdmin = fed.cluster(C).api.adminToken;
    for (const s of secrets.items) {
      for (const [key, v] of Object.entries(s.data ?? {})) {
        const text = Buffer.from(v, 'base64').toString('utf8');
        assert.ok(
          !text.includes(memberAdmin),
          `${s.metadata.namespace}/${s.metadata.name} holds the member's admin token`,
        );
        if (key !== 'token') continue;
        // A token Secret on the hub must not authenticate to the member.
        const probe = new KubeClient(
          {
            ...restConfigForContext(loadKubeconfig({ kubeconfig: memberKubeconfigPath })),
            token: text,
            tokenFile: undefined,
          },
          { name: 'probe' },
        );
        const res = await probe.requestRaw('GET', '/api/v1/namespaces');
        await probe.close();
        assert.equal(
          res.statusCode,
          401,
          `${s.metadata.namespace}/${s.metadata.name} authenticates to the member`,
        );
      }
    }
  });

  test("the agent's hub token is confined to its own namespace's ManifestWorks and lease (real requests)", async () => {
    await host.create(CoreTypes.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'cluster2' },
    });
    assert.equal((await hubAsAgent.list(MW, { namespace: C })).kind, 'ManifestWorkList');
    const denied: Array<[string, () => Promise<unknown>]> = [
      ["another cluster's ManifestWorks", () => hubAsAgent.list(MW, { namespace: 'cluster2' })],
      ['ManifestWorks of every namespace', () => hubAsAgent.list(MW)],
      ['Secrets in its own namespace', () => hubAsAgent.list(CoreTypes.secrets, { namespace: C })],
      ['its own token Secret', () => hubAsAgent.get(CoreTypes.secrets, `${C}-agent-token`, C)],
      ['KubeFedClusters', () => hubAsAgent.list(KubeFedClusterType, { namespace: NS })],
      [
        'creating a ManifestWork',
        () =>
          hubAsAgent.create(MW, {
            apiVersion: 'work.open-cluster-management.io/v1',
            kind: 'ManifestWork',
            metadata: { name: 'x', namespace: C },
            spec: { workload: { manifests: [] } },
          }),
      ],
      ['other Leases', () => hubAsAgent.list(CoreTypes.leases, { namespace: C })],
    ];
    for (const [what, call] of denied) {
      const code = await call().then(() => 200, statusCode);
      assert.equal(code, 403, what);
    }
  });

  test('a ManifestWork (Namespace, Deployment, ConfigMap) is applied in the member: Applied, Available, feedback', async () => {
    await host.create(MW, {
      apiVersion: 'work.open-cluster-management.io/v1',
      kind: 'ManifestWork',
      metadata: { name: 'app', namespace: C },
      spec: {
        workload: {
          manifests: [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP_NS } },
            deployment(2),
            configMap('settings', { mode: 'pull' }),
          ],
        },
        manifestConfigs: [
          {
            resourceIdentifier: { group: 'apps', resource: 'deployments', name: 'web', namespace: APP_NS },
            feedbackRules: [
              { type: 'WellKnownStatus' },
              {
                type: 'JSONPaths',
                jsonPaths: [{ name: 'observedGeneration', path: '.status.observedGeneration' }],
              },
            ],
          },
        ],
      },
    } as KubeObject);
    const w = await waitForWork(
      'app',
      'Applied, Available, readyReplicas 2',
      (w) => {
        const ready = w.status?.resourceStatus?.manifests
          ?.find((m) => m.resourceMeta.kind === 'Deployment')
          ?.statusFeedback?.values?.find((v) => v.name === 'ReadyReplicas');
        return (
          cond(w, 'Applied')?.status === 'True' &&
          cond(w, 'Available')?.status === 'True' &&
          ready?.fieldValue.integer === 2
        );
      },
      120_000,
    );
    assert.equal(w.status?.resourceStatus?.manifests?.length, 3);
    const cm1 = await member.get<KubeObject & { data: Record<string, string> }>(
      CoreTypes.configMaps,
      'settings',
      APP_NS,
    );
    assert.deepEqual(cm1.data, { mode: 'pull' });
  });

  test('the KubeFedCluster is Ready from the lease, and not Ready once the agent stops for longer than the grace', async () => {
    await waitForReady(true);
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, C, NS);
    assert.equal(
      kfc.status?.conditions?.find((c) => c.type === 'Ready')?.message,
      'kubefed-agent renews its lease',
    );
    await agent?.process.stop();
    // 5 × 1 s grace, a 1 s health period.
    await waitForReady(false, 30_000);
    const down = await host.get<ClusterObject>(KubeFedClusterType, C, NS);
    assert.deepEqual(
      down.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
      [['Offline', 'True', 'ClusterNotReachable']],
    );
    await startTheAgent();
    await waitForReady(true, 30_000);
  });

  test('hub down for a minute: member objects deleted or edited by hand are corrected meanwhile, status catches up, no needless rewrites', async () => {
    const feedbackOf = (w: Work | undefined, name: string) =>
      w?.status?.resourceStatus?.manifests
        ?.find((m) => m.resourceMeta.kind === 'Deployment')
        ?.statusFeedback?.values?.find((v) => v.name === name)?.fieldValue.integer;
    const before = await waitForWork(
      'app',
      'with feedback',
      (w) => feedbackOf(w, 'observedGeneration') !== undefined,
    );
    await fed.host.stopApiServer();
    const outageStart = Date.now();
    try {
      // Deleted by hand while the hub is away: the agent restores it from the work it last read.
      await member.delete(CoreTypes.configMaps, 'settings', { namespace: APP_NS });
      // Scaled by hand: kubefed-ts corrects the in-place edit back to the manifest's 2 replicas (drift.ts), which
      // moves the Deployment's generation twice; the hub must see that later.
      await member.patch(DEPLOYMENTS, 'web', { spec: { replicas: 3 } }, { namespace: APP_NS });
      await waitFor(
        'the agent to restore the ConfigMap and the replicas while the hub is down',
        async () => {
          const cm = await member
            .get<KubeObject & { data: Record<string, string> }>(CoreTypes.configMaps, 'settings', APP_NS)
            .then(
              (c) => c.data['mode'] === 'pull',
              () => false,
            );
          const d = await member.get<KubeObject & { spec: { replicas: number } }>(DEPLOYMENTS, 'web', APP_NS);
          return cm && d.spec.replicas === 2;
        },
        { timeoutMs: 50_000, intervalMs: 250, describe: () => agent?.process.tail() ?? '' },
      );
      // Restored once; then, while the hub is still away, nothing more is written.
      await new Promise((r) => setTimeout(r, 2_000));
      const quietStart = await memberWrites(member);
      await new Promise((r) => setTimeout(r, 5_000));
      assert.deepEqual(
        writesBetween(quietStart, await memberWrites(member)),
        {},
        'writes while the hub is down',
      );
      const left = 60_000 - (Date.now() - outageStart);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      assert.ok(agent?.process.running, 'the agent kept running through the hub outage');
    } finally {
      await fed.host.startApiServer();
    }
    type Live = KubeObject & { status?: { observedGeneration?: number; readyReplicas?: number } };
    let live: Live | undefined;
    await waitFor(
      'the Deployment to settle at 2 ready replicas',
      async () => {
        live = await member.get<Live>(DEPLOYMENTS, 'web', APP_NS);
        return (
          live.status?.readyReplicas === 2 && live.status.observedGeneration === live.metadata.generation
        );
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    const generation = live?.metadata.generation ?? 0;
    assert.ok(
      generation > (feedbackOf(before, 'observedGeneration') ?? 0),
      'the generation moved during the outage',
    );
    await waitForWork(
      'app',
      `feedback observedGeneration ${generation} and ReadyReplicas 2`,
      (w) => feedbackOf(w, 'observedGeneration') === generation && feedbackOf(w, 'ReadyReplicas') === 2,
      180_000,
    );
    await waitForReady(true, 60_000);
    // Back in touch with the hub: nothing to rewrite in the member.
    const settled = await memberWrites(member);
    await new Promise((r) => setTimeout(r, 5_000));
    assert.deepEqual(writesBetween(settled, await memberWrites(member)), {}, 'writes after the hub returned');
  });

  test('kill -9 mid-apply and restart: converges, nothing duplicated; a restart with nothing changed writes nothing', async () => {
    const N = 150;
    await host.create(MW, {
      apiVersion: 'work.open-cluster-management.io/v1',
      kind: 'ManifestWork',
      metadata: { name: 'many', namespace: C },
      spec: {
        workload: {
          manifests: Array.from({ length: N }, (_, i) => ({
            ...configMap(`many-${String(i).padStart(3, '0')}`, { i: String(i) }),
            metadata: {
              name: `many-${String(i).padStart(3, '0')}`,
              namespace: APP_NS,
              labels: { set: 'many' },
            },
          })),
        },
      },
    } as KubeObject);
    let count = 0;
    await waitFor(
      'the agent to be in the middle of applying',
      async () => {
        count = (await member.list(CoreTypes.configMaps, { namespace: APP_NS, labelSelector: 'set=many' }))
          .items.length;
        return count > 0;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    agent?.process.killNow();
    await agent?.process.exited;
    const atKill = (await member.list(CoreTypes.configMaps, { namespace: APP_NS, labelSelector: 'set=many' }))
      .items.length;
    assert.ok(atKill < N, `killed mid-apply (${atKill} of ${N} existed)`);
    await startTheAgent();
    const w = await waitForWork(
      'many',
      'Applied',
      (w) => cond(w, 'Applied')?.status === 'True' && w.status?.resourceStatus?.manifests?.length === N,
      120_000,
    );
    assert.equal(w.status?.resourceStatus?.manifests?.length, N);
    const cms = await member.listAll<KubeObject>(CoreTypes.configMaps, {
      namespace: APP_NS,
      labelSelector: 'set=many',
    });
    assert.equal(cms.items.length, N);
    const amws = await member.listAll<
      KubeObject & {
        spec: { manifestWorkName: string };
        status?: { appliedResources?: Array<{ name: string }> };
      }
    >(AMW);
    const many = amws.items.filter((a) => a.spec.manifestWorkName === 'many');
    assert.equal(many.length, 1, 'one AppliedManifestWork for the work');
    const applied = many[0]?.status?.appliedResources ?? [];
    assert.equal(new Set(applied.map((r) => r.name)).size, applied.length, 'no resource listed twice');
    assert.equal(applied.length, N);
    for (const cmObj of cms.items) {
      const refs = (cmObj.metadata.ownerReferences ?? []) as Array<{ kind?: string }>;
      const owners = refs.filter((o) => o.kind === 'AppliedManifestWork');
      assert.equal(owners.length, 1, `${cmObj.metadata.name} has one AppliedManifestWork owner`);
    }

    // A restart with nothing changed: the member sees no write from the new agent.
    await new Promise((r) => setTimeout(r, 3_000));
    await agent?.process.stop();
    const beforeRestart = await memberWrites(member);
    await startTheAgent();
    await waitForReady(true);
    await new Promise((r) => setTimeout(r, 6_000));
    assert.deepEqual(
      writesBetween(beforeRestart, await memberWrites(member)),
      {},
      'writes after a restart with nothing changed',
    );
  });

  test('without --cluster-context join prints the install (stdout holds only YAML); unjoin then leaves the member alone', async () => {
    const args = ['--host-cluster-context=host', `--kubeconfig=${fed.kubeconfigPath}`];
    // The hub was down for a minute in an earlier test: its token controller must be back before a join.
    await fed.host.waitForTokenController();
    const r = await kubefedctl([
      'join',
      'edge1',
      '--mode=pull',
      '--api-endpoint=https://edge1.example:6443',
      ...args,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as KubeObject);
    assert.deepEqual(
      docs.map((d) => d.kind),
      [
        'Namespace',
        'CustomResourceDefinition',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'ClusterRole',
        'ClusterRoleBinding',
        'Secret',
        'Deployment',
      ],
    );
    assert.match(r.stderr, /joined in Pull mode; apply the manifests above/);
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'edge1', NS);
    assert.deepEqual(kfc.spec, { apiEndpoint: 'https://edge1.example:6443', syncMode: 'Pull' });
    // The printed hub kubeconfig works: the agent's token reads its own namespace only.
    const secret = docs.find((d) => d.kind === 'Secret') as KubeObject & {
      stringData: Record<string, string>;
    };
    const file = join(fed.dir, 'edge1-hub-kubeconfig');
    writeFileSync(file, secret.stringData['kubeconfig'] ?? '', { mode: 0o600 });
    const edge = new KubeClient(restConfigForContext(loadKubeconfig({ kubeconfig: file })), {
      name: 'edge1',
    });
    try {
      assert.equal((await edge.list(MW, { namespace: 'edge1' })).items.length, 0);
      assert.equal(await edge.list(MW, { namespace: C }).then(() => 200, statusCode), 403);
    } finally {
      await edge.close();
    }
    const u = await kubefedctl(['unjoin', 'edge1', ...args]);
    assert.equal(u.code, 0, u.stderr);
    assert.match(u.stdout, /kubefed-agent is still installed in cluster edge1: pass --cluster-context/);
    assert.equal(await host.get(KubeFedClusterType, 'edge1', NS).then(() => 200, statusCode), 404);
    assert.equal(
      await host
        .get(CoreTypes.namespaces, 'edge1')
        .then((n) => (n.metadata.deletionTimestamp ? 404 : 200), statusCode),
      404,
    );
  });

  test('unjoin removes the hub side of the Pull cluster', async () => {
    await agent?.process.stop();
    const r = await kubefedctl([
      'unjoin',
      C,
      '--host-cluster-context=host',
      `--cluster-context=${C}`,
      `--kubeconfig=${fed.kubeconfigPath}`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const gone = async (type: ResourceType, name: string, namespace?: string) =>
      host.get(type, name, namespace).then(
        () => false,
        (e: unknown) => statusCode(e) === 404,
      );
    assert.ok(await gone(KubeFedClusterType, C, NS));
    assert.ok(await gone(CoreTypes.serviceAccounts, `${C}-agent`, C));
    assert.ok(await gone(CoreTypes.roleBindings, 'kubefed-agent:work', C));
    assert.ok(await gone(CoreTypes.secrets, `${C}-agent-token`, C));
    // The agent's token no longer opens anything.
    assert.notEqual(await hubAsAgent.list(MW, { namespace: C }).then(() => 200, statusCode), 200);
    assert.equal(await member.get(DEPLOYMENTS, AGENT_NAME, AGENT_NAMESPACE).then(() => 200, statusCode), 404);
  });
});
