import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KubeFedClusterType } from '../../src/api/core/v1beta1/index.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { TOKEN_REQUESTED_ANNOTATION, waitForToken } from '../../src/kubefedctl/join.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { eventually, getOrUndefined } from './federation-helpers.ts';
import { kubefedctl, NS, prepareHost } from './helpers.ts';

/** Everything in the host's KubeFed namespace that join could have written. */
async function hostState(host: KubeClient): Promise<string[]> {
  const [clusters, secrets] = await Promise.all([
    host.list(KubeFedClusterType, { namespace: NS }),
    host.list(CoreTypes.secrets, { namespace: NS }),
  ]);
  return [
    ...clusters.items.map((c) => `kfc/${c.metadata.name}`),
    ...secrets.items.map((s) => `secret/${s.metadata.name}`),
  ].sort();
}

function assertOneLineError(r: { code: number; stderr: string; stdout: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0, 'non-zero exit');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0] ?? '', /^Error: /);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/, 'no stack trace');
}

describe('kubefedctl join with bad input', () => {
  let fed: Federation;
  let host: KubeClient;
  const kc = () => ['--kubeconfig', fed.kubeconfigPath, '--host-cluster-context', 'host'];

  before(async () => {
    // cluster2 never gets a token controller problem: it is stopped to play the unreachable member.
    fed = await startFederation({ members: ['cluster1', 'cluster2'] });
    host = fed.host.client();
  });
  after(async () => {
    await fed?.stop();
  });

  test('a host without a KubeFed control plane is reported as KubeFed reports it', async () => {
    const r = await kubefedctl(['join', 'cluster1', ...kc()]);
    assertOneLineError(
      r,
      /A KubeFedConfig named "kubefed" was not found in namespace "kube-federation-system"\. Is a KubeFed control plane running in this namespace\?/,
    );
    const member = fed.cluster('cluster1').client();
    const sas = await member.list(CoreTypes.serviceAccounts, { namespace: NS }).catch(() => ({ items: [] }));
    assert.equal(sas.items.length, 0, 'nothing created in the member either');
  });

  test('an unknown cluster context fails with one line and writes nothing', async () => {
    await prepareHost(host);
    const before = await hostState(host);
    const r = await kubefedctl(['join', 'nosuch', ...kc()]);
    assertOneLineError(r, /context "nosuch" does not exist/);
    assert.deepEqual(await hostState(host), before);
  });

  test('an unreachable member fails with one line and leaves nothing half-created on the host', async () => {
    const before = await hostState(host);
    await fed.cluster('cluster2').stopApiServer();
    const r = await kubefedctl(['join', 'cluster2', ...kc()]);
    assertOneLineError(r, /cannot reach cluster "cluster2"/);
    assert.deepEqual(await hostState(host), before);
  });

  test('an existing registration is refused under --error-on-existing (the default)', async () => {
    const ok = await kubefedctl(['join', 'cluster1', ...kc()]);
    assert.equal(ok.code, 0, ok.stderr);
    const before = await hostState(host);
    const again = await kubefedctl(['join', 'cluster1', ...kc()]);
    assertOneLineError(again, /already exists/);
    assert.deepEqual(await hostState(host), before);
    // Without it, join converges on the same objects instead of failing.
    const converge = await kubefedctl(['join', 'cluster1', '--error-on-existing=false', ...kc()]);
    assert.equal(converge.code, 0, converge.stderr);
    const clusters = await host.list(KubeFedClusterType, { namespace: NS });
    assert.deepEqual(
      clusters.items.map((c) => c.metadata.name),
      ['cluster1'],
    );
  });

  test('--dry-run prints the objects and writes nothing', async () => {
    const r = await kubefedctl(['unjoin', 'cluster1', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    const before = await hostState(host);
    const dry = await kubefedctl(['join', 'cluster1', '--dry-run', ...kc()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /kind: ServiceAccount/);
    assert.match(dry.stdout, /kind: KubeFedCluster/);
    assert.deepEqual(await hostState(host), before);
    const member = fed.cluster('cluster1').client();
    const sas = await member.list(CoreTypes.serviceAccounts, { namespace: NS }).catch(() => ({ items: [] }));
    assert.ok(!sas.items.some((s) => s.metadata.name === 'cluster1-host'));
  });

  test('a host context name with ":" needs --host-cluster-name', async () => {
    const r = await kubefedctl([
      'join',
      'cluster1',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'a:b',
    ]);
    assertOneLineError(r, /contains "\/" or ":".*--host-cluster-name/);
  });
});

describe('kubefedctl join waits out a token controller that drops its Secret', () => {
  let fed: Federation;
  let member: KubeClient;
  before(async () => {
    // No token controller in the member: the test plays its part (deleting, then filling the Secret).
    fed = await startFederation({ members: ['cluster1'], memberControllers: 'none' });
    member = fed.cluster('cluster1').client();
  });
  after(async () => {
    await fed?.stop();
  });

  test('a token Secret deleted during the wait is created again, one left without a token is touched, and the token once filled is returned', async () => {
    const ns = 'default';
    await member.create(CoreTypes.serviceAccounts, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'probe', namespace: ns },
    });
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'probe',
        namespace: ns,
        annotations: { 'kubernetes.io/service-account.name': 'probe' },
      },
      type: 'kubernetes.io/service-account-token',
    };
    const first = await member.create(CoreTypes.secrets, secret);
    const wait = waitForToken(member, 'probe', ns, {
      timeoutMs: 60_000,
      account: 'service account default/probe in cluster cluster1',
      pollMs: 200,
      secret,
    });
    wait.catch(() => undefined);
    // As kube-controller-manager's syncSecret does when it cannot find the account.
    await member.delete(CoreTypes.secrets, 'probe', { namespace: ns });
    await eventually(
      'the Secret created again',
      () => getOrUndefined(member, CoreTypes.secrets, 'probe', ns),
      (s) => s !== undefined && s.metadata.uid !== first.metadata.uid,
    );
    await eventually(
      'the Secret touched while it has no token',
      () => getOrUndefined(member, CoreTypes.secrets, 'probe', ns),
      (s) => s?.metadata.annotations?.[TOKEN_REQUESTED_ANNOTATION] !== undefined,
    );
    const token = Buffer.from('probe-token').toString('base64');
    await member.patch(CoreTypes.secrets, 'probe', { data: { token } }, { namespace: ns });
    assert.equal((await wait).data?.token, token);
  });
});
