import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import { CoreTypes, isNotFound, type KubeClient } from '../../src/kube/client/index.ts';
import { binary } from '../../src/testing/binaries.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  type ClusterObject,
  condition,
  kubefedctl,
  NS,
  startControlPlane,
  waitForCluster,
} from './helpers.ts';

const exists = async (c: KubeClient, type: Parameters<KubeClient['get']>[0], name: string, ns?: string) => {
  try {
    await c.get(type, name, ns);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
};

describe('cluster registration and health against real apiservers', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  const kc = () => ['--kubeconfig', fed.kubeconfigPath, '--host-cluster-context', 'host'];

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    ({ host, cm } = await startControlPlane(fed));
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('join creates exactly the objects KubeFed creates, in the member and in the host', async () => {
    for (const name of ['cluster1', 'cluster2']) {
      // --provider (kubefed-ts addition) only for cluster2: cluster1 is exactly KubeFed's join.
      const r = await kubefedctl([
        'join',
        name,
        ...(name === 'cluster2' ? ['--provider', 'aws'] : []),
        ...kc(),
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    const member = fed.cluster('cluster1').client();
    const sa = await member.get(CoreTypes.serviceAccounts, 'cluster1-host', NS);
    assert.equal(sa.metadata.annotations?.['kubernetes.io/enforce-mountable-secrets'], 'true');
    assert.equal(sa.automountServiceAccountToken, false);
    const tokenSecret = await member.get(CoreTypes.secrets, 'cluster1-host', NS);
    assert.equal(tokenSecret.type, 'kubernetes.io/service-account-token');
    assert.equal(tokenSecret.metadata.annotations?.['kubernetes.io/service-account.name'], 'cluster1-host');
    const role = await member.get(CoreTypes.clusterRoles, 'kubefed-controller-manager:cluster1-host');
    assert.deepEqual(role.rules, [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['get'] },
    ]);
    const binding = await member.get(
      CoreTypes.clusterRoleBindings,
      'kubefed-controller-manager:cluster1-host',
    );
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'cluster1-host', namespace: NS }]);
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kubefed-controller-manager:cluster1-host',
    });

    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', NS);
    assert.equal(kfc.spec.apiEndpoint, fed.cluster('cluster1').server);
    assert.equal(kfc.spec.provider, undefined);
    const kfc2 = await host.get<ClusterObject>(KubeFedClusterType, 'cluster2', NS);
    assert.equal(kfc2.spec.provider, 'aws');
    assert.equal(
      Buffer.from(kfc.spec.caBundle ?? '', 'base64').toString(),
      fed.cluster('cluster1').api.caData.toString(),
    );
    const secretName = kfc.spec.secretRef?.name ?? '';
    assert.match(secretName, /^cluster1-[a-z0-9]{5}$/, 'generated from generateName "cluster1-"');
    const hostSecret = await host.get<{ metadata: object; data?: Record<string, string> }>(
      CoreTypes.secrets,
      secretName,
      NS,
    );
    assert.deepEqual(Object.keys(hostSecret.data ?? {}), ['token']);
    assert.equal(hostSecret.data?.token, (tokenSecret.data as Record<string, string>).token);
    // Only KubeFed's objects: one KubeFedCluster and one credentials Secret per member on the host.
    const kfcs = await host.list(KubeFedClusterType, { namespace: NS });
    assert.deepEqual(kfcs.items.map((c) => c.metadata.name).sort(), ['cluster1', 'cluster2']);
  });

  test('both members become Ready within two health periods, with their version', async () => {
    for (const name of ['cluster1', 'cluster2']) {
      const c = await waitForCluster(
        host,
        name,
        'Ready',
        (x) => condition(x, 'Ready')?.status === 'True',
        10_000,
      );
      assert.equal(condition(c, 'Ready')?.reason, 'ClusterReady');
      assert.equal(c.status?.kubernetesVersion, 'v1.36.3');
    }
    const metrics = await (await fetch(`${cm.metricsUrl}/metrics`)).text();
    assert.match(metrics, /^kubefedcluster_total\{state="ready",cluster="cluster1"\} 1$/m);
    assert.match(metrics, /^kubefedcluster_total\{state="offline",cluster="cluster1"\} 0$/m);
    const table = execFileSync(
      binary('kubectl'),
      ['--kubeconfig', fed.kubeconfigPath, '-n', NS, 'get', 'kubefedclusters'],
      {
        encoding: 'utf8',
      },
    );
    const lines = table.trim().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+AGE\s+READY\s+KUBERNETES-VERSION$/);
    assert.match(lines[1] ?? '', /^cluster1\s+\S+\s+True\s+v1\.36\.3$/);
    assert.match(lines[2] ?? '', /^cluster2\s+\S+\s+True\s+v1\.36\.3$/);
  });

  test('a stopped member goes Offline/ClusterNotReachable after the failure threshold and comes back', async () => {
    const c2 = fed.cluster('cluster2');
    await c2.stopApiServer();
    const offline = await waitForCluster(
      host,
      'cluster2',
      'Offline',
      (x) => condition(x, 'Offline')?.status === 'True',
      20_000,
    );
    assert.equal(condition(offline, 'Offline')?.reason, 'ClusterNotReachable');
    assert.match(condition(offline, 'Offline')?.message ?? '', /^cluster is not reachable: /);
    assert.equal(condition(offline, 'Ready'), undefined, 'KubeFed reports only the Offline condition');
    // The other member is unaffected and the controller keeps running.
    const c1 = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', NS);
    assert.equal(condition(c1, 'Ready')?.status, 'True');
    assert.ok(cm.process.running, 'controller manager still running');

    await c2.startApiServer();
    await waitForCluster(
      host,
      'cluster2',
      'Ready again',
      (x) => condition(x, 'Ready')?.status === 'True',
      20_000,
    );
    assert.ok(cm.process.running);
  });

  test('a malformed apiEndpoint or a missing Secret gives ConfigMalformed, and other clusters stay Ready', async () => {
    const base = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', NS);
    await host.create(KubeFedClusterType, {
      apiVersion: base.apiVersion,
      kind: base.kind,
      metadata: { name: 'bad-endpoint', namespace: NS },
      // A path without a scheme: client-go (and so KubeFed) cannot tell it from a host.
      spec: { ...base.spec, apiEndpoint: '127.0.0.1:6443/some/path' },
    });
    await host.create(KubeFedClusterType, {
      apiVersion: base.apiVersion,
      kind: base.kind,
      metadata: { name: 'no-secret', namespace: NS },
      spec: { ...base.spec, secretRef: { name: 'does-not-exist' } },
    });
    const bad = await waitForCluster(host, 'bad-endpoint', 'ConfigMalformed', (x) =>
      Boolean(condition(x, 'ConfigMalformed')),
    );
    assert.equal(condition(bad, 'ConfigMalformed')?.status, 'True');
    assert.equal(condition(bad, 'ConfigMalformed')?.reason, 'ClusterConfigMalformed');
    assert.match(condition(bad, 'ConfigMalformed')?.message ?? '', /host must be a URL or a host:port pair/);
    const noSecret = await waitForCluster(host, 'no-secret', 'ConfigMalformed', (x) =>
      Boolean(condition(x, 'ConfigMalformed')),
    );
    assert.match(condition(noSecret, 'ConfigMalformed')?.message ?? '', /secret "does-not-exist" not found/);
    for (const name of ['cluster1', 'cluster2']) {
      const c = await host.get<ClusterObject>(KubeFedClusterType, name, NS);
      assert.equal(condition(c, 'Ready')?.status, 'True', `${name} unaffected`);
    }
    const events = await host.list(CoreTypes.events, {
      namespace: NS,
      fieldSelector: 'involvedObject.name=no-secret',
    });
    assert.ok(
      events.items.some((e) => e.reason === 'MalformedClusterConfig'),
      'a MalformedClusterConfig event is recorded',
    );
    await host.delete(KubeFedClusterType, 'bad-endpoint', { namespace: NS });
    await host.delete(KubeFedClusterType, 'no-secret', { namespace: NS });
  });

  test('unjoin removes everything join created', async () => {
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'cluster1', NS);
    const r = await kubefedctl(['unjoin', 'cluster1', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    const member = fed.cluster('cluster1').client();
    assert.equal(await exists(member, CoreTypes.serviceAccounts, 'cluster1-host', NS), false);
    assert.equal(await exists(member, CoreTypes.secrets, 'cluster1-host', NS), false);
    assert.equal(
      await exists(member, CoreTypes.clusterRoles, 'kubefed-controller-manager:cluster1-host'),
      false,
    );
    assert.equal(
      await exists(member, CoreTypes.clusterRoleBindings, 'kubefed-controller-manager:cluster1-host'),
      false,
    );
    const ns = await member
      .get(CoreTypes.namespaces, NS)
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    assert.ok(!ns || ns.metadata.deletionTimestamp, 'the KubeFed namespace is deleted in the member');
    assert.equal(await exists(host, KubeFedClusterType, 'cluster1', NS), false);
    assert.equal(await exists(host, CoreTypes.secrets, kfc.spec.secretRef?.name ?? '', NS), false);
  });

  test('unjoin --force cleans the host side when the member is unreachable', async () => {
    const kfc = await host.get<ClusterObject>(KubeFedClusterType, 'cluster2', NS);
    await fed.cluster('cluster2').stopApiServer();
    try {
      const refused = await kubefedctl(['unjoin', 'cluster2', ...kc()]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /^Error: cannot reach cluster "cluster2".*--force/);
      assert.equal(refused.stderr.trim().split('\n').length, 1, 'one line');
      assert.equal(
        await exists(host, KubeFedClusterType, 'cluster2', NS),
        true,
        'nothing removed without --force',
      );

      const forced = await kubefedctl(['unjoin', 'cluster2', '--force', ...kc()]);
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(forced.stderr, /skipping the member side/);
      assert.equal(await exists(host, KubeFedClusterType, 'cluster2', NS), false);
      assert.equal(await exists(host, CoreTypes.secrets, kfc.spec.secretRef?.name ?? '', NS), false);
    } finally {
      await fed.cluster('cluster2').startApiServer();
    }
  });
});
