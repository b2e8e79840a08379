import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { PropagatedVersionType } from '../../src/api/core/v1alpha1/index.ts';
import {
  FEDERATION_APISERVER_CONTROLLERS,
  workloadControllersEnabled,
} from '../../src/install/federation-apiserver.ts';
import { CoreTypes, KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { loadKubeconfig, restConfigForContext } from '../../src/kube/kubeconfig/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { MANAGED_LABEL } from '../../src/propagation/constants.ts';
import { binDir } from '../../src/testing/binaries.ts';
import { eventually, type FedObject, getOrUndefined, T } from './federation-helpers.ts';
import { kubefedctl } from './helpers.ts';

const renamingFederatedConfigMap = {
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedConfigMap',
  metadata: { name: 'renamed', namespace: 'test-namespace' },
  spec: {
    template: { data: { a: 'b' } },
    placement: { clusters: [{ name: 'cluster1' }] },
    overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ path: '/metadata/name', value: 'other' }] }],
  },
};

/** Admin clients for the contexts of a local-up kubeconfig; close() closes them all. */
function clientsOf(kubeconfig: string) {
  const cfg = loadKubeconfig({ kubeconfig });
  const made: KubeClient[] = [];
  return {
    client(context: string): KubeClient {
      const c = new KubeClient(restConfigForContext(cfg, context), { name: context });
      made.push(c);
      return c;
    },
    close: () => Promise.all(made.map((c) => c.close())),
  };
}

/** The pids local-up recorded, and a check that every one of them has stopped. */
function recordedPids(dir: string): number[] {
  return readFileSync(join(dir, 'pids'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => Number(l.split(' ')[0]));
}

function assertStopped(pids: number[]): void {
  for (const pid of pids) {
    let state = '';
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] ?? '';
    } catch {
      // Gone.
    }
    assert.ok(state === '' || state === 'Z', `process ${pid} stopped (state ${state})`);
  }
}

const gone = (o: unknown) => o === undefined;

/** The --controllers of the kube-controller-manager local-up started for a cluster (read from /proc). */
function controllersOf(dir: string, cluster: string): string | undefined {
  const kubeconfig = `--kubeconfig=${join(dir, 'clusters', cluster, 'admin.kubeconfig')}`;
  for (const pid of recordedPids(dir)) {
    let args: string[] = [];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args[0]?.endsWith('kube-controller-manager') && args.includes(kubeconfig))
      return args.find((a) => a.startsWith('--controllers='))?.slice('--controllers='.length);
  }
  assert.fail(`no kube-controller-manager of ${cluster} among the recorded pids`);
}

describe('the README commands', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kubefed-ts-local-up-')), 'federation');
  let clients: ReturnType<typeof clientsOf> | undefined;
  after(async () => {
    await clients?.close();
    await kubefedctl(['local-down', '--dir', dir]);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  test('a second run of the binary installer reuses the cache and builds nothing', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile('bash', [join(REPO_ROOT, 'hack/install-k8s-binaries.sh')], (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout, stderr }),
        );
      },
    );
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Kubernetes v[\d.]+: cached/);
    assert.match(stderr, /etcd v[\d.]+: cached/);
    assert.match(stderr, /kwok v[\d.]+: cached/);
    assert.doesNotMatch(stderr, /building/);
    const bin = stdout.trim().split('\n').at(-1) ?? '';
    for (const b of [
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kubectl',
      'etcd',
      'kwok',
      'kwokctl',
    ]) {
      assert.ok(existsSync(join(bin, b)), `${b} in ${bin}`);
    }
  });

  test('local-up brings up a host and two members, joined and Ready, with the sample propagated', async () => {
    const up = await kubefedctl(['local-up', '--dir', dir]);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /The host is a federation API server: .*templates that nothing runs there/);
    assert.doesNotMatch(up.stdout, /Warning/);
    assert.match(up.stdout, /^cluster1\s+\S+\s+True\s+v1\.36\.3$/m);
    assert.match(up.stdout, /^cluster2\s+\S+\s+True\s+v1\.36\.3$/m);
    // The embedded sample (KubeFed's example/sample1) is propagated: 3 replicas in cluster1, 5 in cluster2.
    assert.match(up.stdout, /Propagated FederatedDeployment test-namespace\/test-deployment/);
    assert.match(up.stdout, /Propagated FederatedConfigMap test-namespace\/test-configmap/);
    const [, inCluster1 = '', inCluster2 = ''] = up.stdout.split(/^In cluster[12]:$/m);
    assert.match(inCluster1, /^deployment\.apps\/test-deployment\s+\d\/3\s/m);
    assert.match(inCluster2, /^deployment\.apps\/test-deployment\s+\d\/5\s/m);
    assert.match(inCluster2, /^configmap\/test-configmap\s/m);
    const kubeconfig = readFileSync(join(dir, 'kubeconfig'), 'utf8');
    for (const ctx of ['host', 'cluster1', 'cluster2'])
      assert.match(kubeconfig, new RegExp(`name: ${ctx}\\n`));

    // The admission webhooks run too: an override of /metadata/name is refused at apply time.
    assert.match(up.stdout, /Started kubefed-admission-webhook on https:\/\/127\.0\.0\.1:\d+/);
    const refused = spawnSync(
      join(binDir(), 'kubectl'),
      ['--kubeconfig', join(dir, 'kubeconfig'), '--context', 'host', 'apply', '-f', '-'],
      { input: JSON.stringify(renamingFederatedConfigMap), encoding: 'utf8' },
    );
    assert.notEqual(refused.status, 0, refused.stdout);
    assert.match(
      refused.stderr,
      /admission webhook "federated\.types\.kubefed\.io" denied the request: spec\.overrides\[0\]\.clusterOverrides\[0\]\.path: Forbidden/,
    );

    const again = await kubefedctl(['local-up', '--dir', dir]);
    assert.notEqual(again.code, 0, 'a second local-up on a running federation is refused');
    assert.match(again.stderr, /already running/);
  });

  test("the host is a federation API server: no nodes, no workload controller, Karmada's list", async () => {
    clients ??= clientsOf(join(dir, 'kubeconfig'));
    const nodes = await clients.client('host').list(CoreTypes.nodes);
    assert.deepEqual(nodes.items, []);
    const controllers = controllersOf(dir, 'host');
    assert.equal(controllers, FEDERATION_APISERVER_CONTROLLERS.join(','));
    assert.deepEqual(workloadControllersEnabled(controllers), []);
    // A member, by contrast, runs them all.
    assert.ok(workloadControllersEnabled(controllersOf(dir, 'cluster1')).includes('deployment-controller'));
  });

  test("the host's garbage collector removes a deleted federated object's PropagatedVersion", async () => {
    clients ??= clientsOf(join(dir, 'kubeconfig'));
    const host = clients.client('host');
    const members = ['cluster1', 'cluster2'].map((m) => clients?.client(m) as KubeClient);
    const fcm = await eventually(
      'the versions of test-configmap recorded in its status',
      () =>
        host.get<FedObject & { status?: { propagatedVersion?: { clusterVersions?: unknown[] } } }>(
          T.fcm,
          'test-configmap',
          'test-namespace',
        ),
      (o) => o.status?.propagatedVersion?.clusterVersions?.length === 2,
    );
    // By default the controller writes no PropagatedVersion; one KubeFed (or --propagated-versions=true) left
    // is owned by the federated object, so the host's GC follows it.
    assert.equal(
      await getOrUndefined(host, PropagatedVersionType, 'configmap-test-configmap', 'test-namespace'),
      undefined,
    );
    await host.create(PropagatedVersionType, {
      apiVersion: 'core.kubefed.io/v1alpha1',
      kind: 'PropagatedVersion',
      metadata: {
        name: 'configmap-test-configmap',
        namespace: 'test-namespace',
        ownerReferences: [
          {
            apiVersion: 'types.kubefed.io/v1beta1',
            kind: 'FederatedConfigMap',
            name: 'test-configmap',
            uid: fcm.metadata.uid ?? '',
          },
        ],
      },
      spec: {},
    });
    await host.delete(T.fcm, 'test-configmap', { namespace: 'test-namespace' });
    for (const m of members) {
      await eventually(
        `test-configmap deleted from ${m.name}`,
        () => getOrUndefined(m, T.configmaps, 'test-configmap', 'test-namespace'),
        gone,
      );
    }
    await eventually(
      'the FederatedConfigMap released',
      () => getOrUndefined(host, T.fcm, 'test-configmap', 'test-namespace'),
      gone,
    );
    await eventually(
      'its PropagatedVersion collected',
      () => getOrUndefined(host, PropagatedVersionType, 'configmap-test-configmap', 'test-namespace'),
      gone,
    );
  });

  test('deleting a host namespace removes its federated objects and their member copies', async () => {
    assert.ok(clients);
    const host = clients.client('host');
    const members = ['cluster1', 'cluster2'].map((m) => clients?.client(m) as KubeClient);
    for (const m of members) {
      const copy = await getOrUndefined(m, T.deployments, 'test-deployment', 'test-namespace');
      assert.equal(copy?.metadata.labels?.[MANAGED_LABEL], 'true', `test-deployment in ${m.name}`);
    }
    await host.delete(T.namespaces, 'test-namespace');
    // The host's namespace controller deletes the federated objects, the sync controller deletes their
    // member copies (the FederatedNamespace: the member namespaces) and releases its finalizers, and only
    // then can the namespace go.
    await eventually(
      'the host namespace test-namespace to be gone',
      () => getOrUndefined(host, T.namespaces, 'test-namespace'),
      gone,
      60_000,
    );
    for (const m of members) {
      await eventually(
        `namespace test-namespace gone from ${m.name}`,
        () => getOrUndefined(m, T.namespaces, 'test-namespace'),
        gone,
        60_000,
      );
    }
  });

  test('local-down stops every process local-up started and removes its directory', async () => {
    await clients?.close();
    clients = undefined;
    const pids = recordedPids(dir);
    const down = await kubefedctl(['local-down', '--dir', dir]);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(existsSync(dir), false);
    assertStopped(pids);
  });
});

describe('local-up --host-as-member', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kubefed-ts-local-up-host-')), 'federation');
  let clients: ReturnType<typeof clientsOf> | undefined;
  after(async () => {
    await clients?.close();
    await kubefedctl(['local-down', '--dir', dir]);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  test('joins the host as the member "host" and propagates into it, beside the federated objects', async () => {
    const up = await kubefedctl(['local-up', '--dir', dir, '--members', 'cluster1', '--host-as-member']);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /Joined host\n/);
    assert.match(up.stdout, /Warning: --host-as-member: .*run on the host too/);
    assert.doesNotMatch(up.stdout, /The host is a federation API server/);
    assert.match(up.stdout, /^host\s+\S+\s+True\s+v1\.36\.3$/m);
    assert.match(up.stdout, /^cluster1\s+\S+\s+True\s+v1\.36\.3$/m);
    // The host runs workloads like any member: the sample's Deployment (3 replicas) comes up there too.
    const [, inHost = ''] = up.stdout.split(/^In host:$/m);
    assert.match(inHost, /^deployment\.apps\/test-deployment\s+\d\/3\s/m);
    clients = clientsOf(join(dir, 'kubeconfig'));
    const host = clients.client('host');
    const copy = await eventually(
      'the ConfigMap test-configmap in the host',
      () =>
        getOrUndefined<KubeObject & { data?: Record<string, string> }>(
          host,
          T.configmaps,
          'test-configmap',
          'test-namespace',
        ),
      (c) => c?.metadata.labels?.[MANAGED_LABEL] === 'true',
    );
    // The sample's template, config/samples/local-up.yaml.
    assert.deepEqual(copy?.data, { greeting: 'hello from the host' });
    // The host's own namespace is adopted (labelled), never recreated.
    const ns = await host.get(T.namespaces, 'test-namespace');
    assert.equal(ns.metadata.labels?.[MANAGED_LABEL], 'true');
    await eventually(
      'FederatedConfigMap status for host and cluster1',
      () => host.get<FedObject>(T.fcm, 'test-configmap', 'test-namespace'),
      (o) =>
        JSON.stringify(o.status?.clusters?.map((c) => [c.name, c.status ?? ''])) ===
        JSON.stringify([
          ['cluster1', ''],
          ['host', ''],
        ]),
    );

    await clients.close();
    clients = undefined;
    const pids = recordedPids(dir);
    const down = await kubefedctl(['local-down', '--dir', dir]);
    assert.equal(down.code, 0, down.stderr);
    assertStopped(pids);
  });
});
