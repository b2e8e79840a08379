import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/paths.ts';
import { binDir } from '../../src/testing/binaries.ts';
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

describe('the README commands', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'kubefed-ts-local-up-')), 'federation');
  after(async () => {
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

  test('local-up brings up a host and two members, joined and Ready; local-down removes it all', async () => {
    const up = await kubefedctl(['local-up', '--dir', dir]);
    assert.equal(up.code, 0, up.stderr);
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

    const pids = readFileSync(join(dir, 'pids'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Number(l.split(' ')[0]));
    const down = await kubefedctl(['local-down', '--dir', dir]);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(existsSync(dir), false);
    for (const pid of pids) {
      let state = '';
      try {
        state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] ?? '';
      } catch {
        // Gone.
      }
      assert.ok(state === '' || state === 'Z', `process ${pid} stopped (state ${state})`);
    }
  });
});
