import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { FederatedTypeConfigType, KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import {
  ApiError,
  CoreTypes,
  KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { restConfigFromParts } from '../../src/kube/kubeconfig/index.ts';
import {
  MEMBER_RBAC_ANNOTATION,
  MEMBER_SERVICE_ACCOUNT_ANNOTATION,
  type PolicyRule,
  scopedRbacRules,
} from '../../src/kubefedctl/scoped-rbac.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { scrape, value } from '../../src/testing/prometheus.ts';
import {
  createFederatedNamespace,
  eventually,
  FED_GROUP,
  FED_VERSION,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  propagation,
  T,
} from './federation-helpers.ts';
import { type ClusterObject, kubefedctl, NS, startControlPlane, waitForCluster } from './helpers.ts';

const APP = 'scoped-app';
const ROLE = 'kubefed-controller-manager:cluster1-host';
const FULL_ROLE = 'kubefed-controller-manager:cluster2-host';
const serviceAccounts: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'serviceaccounts',
  namespaced: true,
  kind: 'ServiceAccount',
};

/** The status code of a request (200 when it succeeds), so that a refusal is asserted, not assumed. */
async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (e) {
    if (e instanceof ApiError) return e.statusCode;
    throw e;
  }
}

/** The resources of a group the role lets the controller write (what is propagated). */
const resourcesOf = (rules: PolicyRule[] | undefined, group: string): string[] =>
  (rules ?? [])
    .filter((r) => r.apiGroups?.includes(group) && r.verbs.includes('create'))
    .flatMap((r) => r.resources ?? []);

describe('join --scoped-rbac: least-privilege member credentials in push mode', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let member: KubeClient;
  /** A client with exactly the credentials the controller manager uses for cluster1. */
  let asController: KubeClient;
  const kc = () => ['--kubeconfig', fed.kubeconfigPath, '--host-cluster-context', 'host'];
  const role = async () =>
    (await member.get<KubeObject & { rules?: PolicyRule[] }>(CoreTypes.clusterRoles, ROLE)).rules;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    ({ host, cm } = await startControlPlane(fed));
    member = fed.cluster('cluster1').client();
    for (const type of ['namespaces', 'configmaps']) {
      const r = await kubefedctl(['enable', type, ...kc()]);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(async () => {
    await asController?.close();
    await cm?.process.stop();
    await fed?.stop();
  });

  test("join grants only the enabled types and records the mode; a default join keeps KubeFed's role", async () => {
    const scoped = await kubefedctl(['join', 'cluster1', '--scoped-rbac', ...kc()]);
    assert.equal(scoped.code, 0, scoped.stderr);
    const full = await kubefedctl(['join', 'cluster2', ...kc()]);
    assert.equal(full.code, 0, full.stderr);

    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', NS);
    const secret = await host.get<KubeObject & { data?: Record<string, string> }>(
      CoreTypes.secrets,
      kfc.spec.secretRef?.name ?? '',
      NS,
    );
    asController = new KubeClient(
      restConfigFromParts({
        name: 'cluster1-as-controller',
        server: kfc.spec.apiEndpoint,
        caData: Buffer.from(kfc.spec.caBundle ?? '', 'base64'),
        token: Buffer.from(secret.data?.token ?? '', 'base64').toString(),
      }),
      { name: 'cluster1-as-controller' },
    );

    const ftcs = await host.listAll(FederatedTypeConfigType, { namespace: NS });
    assert.deepEqual(await role(), scopedRbacRules(ftcs.items, 'Cluster').rules);
    assert.deepEqual(resourcesOf(await role(), ''), ['configmaps', 'namespaces']);
    assert.ok(!JSON.stringify(await role()).includes('*'));
    const c2 = fed.cluster('cluster2').client();
    assert.deepEqual((await c2.get(CoreTypes.clusterRoles, FULL_ROLE)).rules, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['get'] },
    ]);

    assert.equal(kfc.metadata.annotations?.[MEMBER_RBAC_ANNOTATION], 'scoped');
    assert.equal(kfc.metadata.annotations?.[MEMBER_SERVICE_ACCOUNT_ANNOTATION], 'cluster1-host');
    const kfc2 = await host.get<ClusterObject>(KubeFedClusterType, 'cluster2', NS);
    assert.equal(kfc2.metadata.annotations?.[MEMBER_RBAC_ANNOTATION], undefined);
  });

  test('with it the controller manager reports the cluster Ready and propagates ConfigMaps', async () => {
    await waitForCluster(host, 'cluster1', 'Ready', (c) =>
      Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
    );
    await createFederatedNamespace(host, APP, ['cluster1']);
    await host.create(T.fcm, federatedConfigMap('settings', APP, { mode: 'scoped' }, ['cluster1']));
    const copy = await eventually(
      'the ConfigMap in cluster1',
      () =>
        getOrUndefined<KubeObject & { data?: Record<string, string> }>(member, T.configmaps, 'settings', APP),
      (c) => c?.data?.mode === 'scoped',
    );
    assert.equal(copy?.metadata.labels?.['kubefed.io/managed'], 'true');
    const fcm = await eventually(
      'FederatedConfigMap propagated',
      () => host.get<FedObject>(T.fcm, 'settings', APP),
      (o) => propagation(o)?.status === 'True',
    );
    assert.deepEqual(fcm.status?.clusters, [{ name: 'cluster1' }]);
  });

  test('the member refuses those credentials for everything not enabled', async () => {
    // They work for what is enabled, so the refusals below are the role's, not a bad token's.
    assert.equal(await statusOf(asController.list(T.configmaps, { namespace: APP })), 200);
    assert.equal(await statusOf(asController.list(CoreTypes.nodes)), 200);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'stolen', namespace: APP } };
    assert.equal(await statusOf(asController.list(T.secrets, { namespace: APP })), 403);
    assert.equal(await statusOf(asController.list(T.secrets, { namespace: NS })), 403);
    assert.equal(await statusOf(asController.create(T.secrets, secret)), 403);
    assert.equal(await statusOf(asController.list(T.deployments, { namespace: APP })), 403);
    assert.equal(await statusOf(asController.list(CoreTypes.clusterRoles)), 403);
    // Nor can it widen its own role: RBAC refuses escalation.
    const own = await member.get(CoreTypes.clusterRoles, ROLE);
    const widened = { ...own, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] };
    assert.equal(await statusOf(asController.update(CoreTypes.clusterRoles, widened)), 403);
  });

  test('the controller manager met no refusal from the scoped member (its request metrics)', async () => {
    const m = await scrape(cm.metricsUrl);
    assert.ok((value(m, 'rest_client_requests_total', { cluster: 'cluster1', code: '200' }) ?? 0) > 0);
    assert.equal(value(m, 'rest_client_requests_total', { cluster: 'cluster1', code: '403' }), undefined);
  });

  test('enable grants a new type to the scoped member before its FTC is written, and it propagates', async () => {
    const r = await kubefedctl(['enable', 'secrets', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Updated the scoped RBAC of cluster "cluster1"/);
    assert.doesNotMatch(r.stdout, /cluster2/, 'a default-joined member is not touched');
    assert.deepEqual(resourcesOf(await role(), ''), ['configmaps', 'namespaces', 'secrets']);
    const fullRole = await fed
      .cluster('cluster2')
      .client()
      .get<KubeObject & { rules?: PolicyRule[] }>(CoreTypes.clusterRoles, FULL_ROLE);
    assert.deepEqual(fullRole.rules?.[0], { apiGroups: ['*'], resources: ['*'], verbs: ['*'] });

    await host.create(T.fsecret, {
      apiVersion: `${FED_GROUP}/${FED_VERSION}`,
      kind: 'FederatedSecret',
      metadata: { name: 'creds', namespace: APP },
      spec: { template: { stringData: { k: 'v' } }, placement: { clusters: [{ name: 'cluster1' }] } },
    });
    await eventually(
      'the Secret in cluster1',
      () => getOrUndefined(member, T.secrets, 'creds', APP),
      (s) => s !== undefined,
    );
    assert.equal(await statusOf(asController.list(T.secrets, { namespace: APP })), 200);
  });

  test('a member enable cannot reach fails the command, naming it; the FTC stays; sync-rbac finishes the job', async () => {
    // A kubeconfig with the host only: the operator has no credentials for cluster1 here.
    const doc = parseYaml(readFileSync(fed.kubeconfigPath, 'utf8')) as Record<
      string,
      Array<{ name: string }>
    >;
    const hostOnly = join(fed.dir, 'host-only.kubeconfig');
    writeFileSync(
      hostOnly,
      toYaml({
        ...doc,
        contexts: doc.contexts?.filter((c) => c.name === 'host'),
      }),
    );
    const r = await kubefedctl(['enable', 'serviceaccounts', '--kubeconfig', hostOnly]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      /could not update the scoped RBAC of cluster "cluster1" \(context "cluster1"\): no context/,
    );
    assert.match(r.stderr, /^Error: .*cluster cluster1 was not updated.*kubefedctl sync-rbac/m);
    assert.ok(
      await getOrUndefined(host, FederatedTypeConfigType, 'serviceaccounts', NS),
      'the enable is kept',
    );
    assert.ok(!resourcesOf(await role(), '').includes('serviceaccounts'));
    // Meanwhile the member refuses the controller manager the new type (its sync controller runs).
    await eventually(
      'a 403 from cluster1 in the controller manager',
      async () =>
        value(await scrape(cm.metricsUrl), 'rest_client_requests_total', {
          cluster: 'cluster1',
          code: '403',
        }),
      (n) => (n ?? 0) > 0,
    );

    const wrongContext = await kubefedctl(['sync-rbac', 'cluster1', '--cluster-context', 'nope', ...kc()]);
    assert.equal(wrongContext.code, 1);
    assert.match(wrongContext.stderr, /no context "nope"/);
    const notScoped = await kubefedctl(['sync-rbac', 'cluster2', ...kc()]);
    assert.equal(notScoped.code, 1);
    assert.match(notScoped.stderr, /cluster "cluster2" was joined with KubeFed's full-access role/);

    const dry = await kubefedctl(['sync-rbac', 'cluster1', '--dry-run', ...kc()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Would update the scoped RBAC of cluster "cluster1"/);
    assert.ok(!resourcesOf(await role(), '').includes('serviceaccounts'), 'dry run wrote nothing');

    const sync = await kubefedctl(['sync-rbac', 'cluster1', ...kc()]);
    assert.equal(sync.code, 0, sync.stderr);
    assert.match(sync.stdout, /Updated the scoped RBAC of cluster "cluster1"/);
    assert.ok(resourcesOf(await role(), '').includes('serviceaccounts'));
    assert.equal(await statusOf(asController.list(serviceAccounts, { namespace: APP })), 200);
    const again = await kubefedctl(['sync-rbac', ...kc()]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /The scoped RBAC of cluster "cluster1" is up to date/);
  });

  test('disable takes the type away from the scoped member again', async () => {
    const r = await kubefedctl(['disable', 'secrets', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!resourcesOf(await role(), '').includes('secrets'));
    assert.equal(await statusOf(asController.list(T.secrets, { namespace: APP })), 403);
  });

  test('unjoin removes what the scoped join created', async () => {
    const r = await kubefedctl(['unjoin', 'cluster1', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    for (const [type, name, ns] of [
      [CoreTypes.clusterRoleBindings, ROLE, undefined],
      [CoreTypes.clusterRoles, ROLE, undefined],
      [CoreTypes.serviceAccounts, 'cluster1-host', NS],
      [CoreTypes.secrets, 'cluster1-host', NS],
    ] as const) {
      assert.equal(await getOrUndefined(member, type, name, ns), undefined, `${type.kind} ${name}`);
    }
    assert.equal(await getOrUndefined(host, KubeFedClusterType, 'cluster1', NS), undefined);
    // Refused: 403 while the apiserver's token cache still knows the deleted service account, then 401.
    assert.ok([401, 403].includes(await statusOf(asController.list(T.configmaps, { namespace: APP }))));
  });
});
