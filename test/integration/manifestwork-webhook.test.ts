// OCM's ManifestWork API served by a real kube-apiserver: the CRDs accept OCM's documentation examples, and
// the webhook (registered like the chart does) denies what OCM's denies, with OCM's messages, including the
// executor check, which asks the apiserver a SubjectAccessReview for the requesting user.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { installControlPlane } from '../../src/install/control-plane.ts';
import type { KubeClient } from '../../src/kube/client/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { binary } from '../../src/testing/binaries.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { freePort, waitFor } from '../../src/testing/ports.ts';
import { ManagedProcess } from '../../src/testing/process.ts';
import { generateWebhookCertificates, webhookConfigurations } from '../../src/webhook/index.ts';
import { manifestSize } from '../../src/webhook/validation/manifestwork.ts';
import { type CliResult, NS } from './helpers.ts';

const MW_WEBHOOK = 'manifestworkvalidators.admission.work.open-cluster-management.io';
const MWRS_WEBHOOK = 'manifestworkreplicasetvalidators.admission.work.open-cluster-management.io';
const SAMPLES = join(REPO_ROOT, 'config/samples/ocm');

function httpsGet(port: number, path: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

describe('OCM ManifestWork API and webhook in a real kube-apiserver', () => {
  let fed: Federation;
  let host: KubeClient;
  let webhook: ManagedProcess | undefined;
  let fileCount = 0;

  const kubectl = (args: string[]): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = spawn(binary('kubectl'), [
        '--kubeconfig',
        fed.kubeconfigPath,
        '--context',
        'host',
        ...args,
      ]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? 1, stdout, stderr });
      });
      child.stdin.end();
    });
  const write = (objects: object | object[]): string => {
    const file = join(fed.dir, `mw-${++fileCount}.yaml`);
    const docs = Array.isArray(objects) ? objects : [objects];
    writeFileSync(file, docs.map((o) => stringify(o)).join('---\n'));
    return file;
  };
  const apply = (objects: object | object[], extra: string[] = []): Promise<CliResult> =>
    kubectl(['apply', '-f', write(objects), ...extra]);
  const assertAccepted = (r: CliResult) => assert.equal(r.code, 0, `kubectl failed:\n${r.stderr}`);
  const assertDenied = (r: CliResult, webhookName: string, message: string) => {
    assert.notEqual(r.code, 0, `kubectl should fail; stdout:\n${r.stdout}`);
    const line = `admission webhook "${webhookName}" denied the request: ${message}`;
    assert.ok(
      r.stderr.split('\n').some((l) => l.endsWith(line)),
      `expected a line ending in\n  ${line}\ngot:\n${r.stderr}`,
    );
  };
  const work = (name: string, manifests: object[], extra: object = {}) => ({
    apiVersion: 'work.open-cluster-management.io/v1',
    kind: 'ManifestWork',
    metadata: { name, namespace: 'cluster1' },
    spec: { workload: { manifests }, ...extra },
  });
  const configMap = (name: string, data: Record<string, string> = { a: 'b' }) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data,
  });

  before(async () => {
    fed = await startFederation({ members: [] });
    host = fed.host.client();
    await installControlPlane(host, NS, { defaultTypes: false });
    for (const ns of ['cluster1', 'ocm-ns']) assertAccepted(await kubectl(['create', 'namespace', ns]));

    const certDir = join(fed.dir, 'serving-cert');
    mkdirSync(certDir, { recursive: true });
    const certs = generateWebhookCertificates({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    writeFileSync(join(certDir, 'tls.key'), certs.key, { mode: 0o600 });
    writeFileSync(join(certDir, 'tls.crt'), certs.cert);
    const port = await freePort();
    const proc = ManagedProcess.start(
      'kubefed-admission-webhook',
      process.execPath,
      [
        join(REPO_ROOT, 'src/cmd/webhook.ts'),
        `--secure-port=${port}`,
        `--cert-dir=${certDir}`,
        '--bind-address=127.0.0.1',
        // The executor check asks the hub: the webhook needs its kubeconfig.
        `--kubeconfig=${fed.kubeconfigPath}`,
        '--v=1',
      ],
      { logFile: join(fed.dir, 'kubefed-admission-webhook.log') },
    );
    webhook = proc;
    await waitFor(
      'the webhook to serve /readyz',
      async () => {
        if (!proc.running) throw new Error(`kubefed-admission-webhook exited:\n${proc.tail()}`);
        return (await httpsGet(port, '/readyz', certs.caCert)) === 200;
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );
    const { validating } = webhookConfigurations({
      caBundle: Buffer.from(certs.caCert).toString('base64'),
      url: `https://127.0.0.1:${port}`,
    });
    assertAccepted(await apply(validating));
    await waitFor(
      'the apiserver to call the ManifestWork webhook',
      async () =>
        (await apply(work('probe', []), ['--dry-run=server'])).stderr.includes('denied the request'),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  });

  after(async () => {
    await webhook?.stop();
    await host?.close();
    await fed?.stop();
  });

  test("OCM's documentation examples (config/samples/ocm) are accepted as written", async () => {
    const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.yaml'));
    assert.ok(files.length >= 6);
    for (const f of files) {
      const r = await kubectl(['apply', '--validate=strict', '-f', join(SAMPLES, f)]);
      assertAccepted(r);
      assert.doesNotMatch(r.stderr, /unknown field/, f);
    }
    const got = await kubectl(['-n', 'cluster1', 'get', 'manifestworks', '-o', 'name']);
    assertAccepted(got);
    for (const name of [
      'hello-work-demo',
      'temp-job-with-cleanup',
      'hello-work-replica-patch',
      'example-job',
    ]) {
      assert.match(got.stdout, new RegExp(`manifestwork.work.open-cluster-management.io/${name}\\b`));
    }
    // Served as OCM's CRD: the default rollout strategy and cascade deletion policy are filled in.
    const mwrs = await kubectl(['-n', 'ocm-ns', 'get', 'mwrs', 'mwrset-cronjob', '-o', 'json']);
    assertAccepted(mwrs);
    const spec = JSON.parse(mwrs.stdout).spec;
    assert.equal(spec.cascadeDeletionPolicy, 'Background');
    assert.equal(spec.placementRefs[0].rolloutStrategy.type, 'All');
    assert.equal(spec.manifestWorkTemplate.deleteOption.propagationPolicy, 'SelectivelyOrphan');
  });

  test('a valid work is admitted; an empty, oversize, duplicate or generateName one is denied with OCM’s message', async () => {
    assertAccepted(await apply(work('valid', [configMap('cm1'), configMap('cm2')])));
    assertDenied(await apply(work('empty', [])), MW_WEBHOOK, 'manifests should not be empty');

    // 600 000 bytes of data: over OCM's default 500 KiB; the size is counted as OCM counts it.
    const big = configMap('big', { blob: 'x'.repeat(600_000) });
    // `create`, not `apply`: apply's last-applied annotation would itself be over the apiserver's 256 KiB.
    assertDenied(
      await kubectl(['create', '-f', write(work('oversize', [big]))]),
      MW_WEBHOOK,
      `the size of manifests is ${manifestSize(big)} bytes which exceeds the 512000 limit`,
    );
    assertDenied(
      await apply(work('duplicate', [configMap('cm'), configMap('cm', { c: 'd' })])),
      MW_WEBHOOK,
      'duplicate manifest for resource default/cm with resource type v1.ConfigMap',
    );
    const generated = {
      ...configMap('named'),
      metadata: { name: 'named', generateName: 'g-', namespace: 'default' },
    };
    assertDenied(
      await apply(work('generate-name', [generated])),
      MW_WEBHOOK,
      'generateName must not be set in manifest',
    );
    // An update that makes the work invalid is denied too; its status is not the webhook's business.
    assertDenied(
      await apply(work('valid', [configMap('cm1'), configMap('cm1')])),
      MW_WEBHOOK,
      'duplicate manifest for resource default/cm1 with resource type v1.ConfigMap',
    );
  });

  test('an executor is admitted only for a user who may execute-as it (SubjectAccessReview on the hub)', async () => {
    // alice may write ManifestWorks in cluster1, but not yet name the executor default/executor1.
    assertAccepted(
      await apply([
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'manifestwork-editor', namespace: 'cluster1' },
          rules: [
            {
              apiGroups: ['work.open-cluster-management.io'],
              resources: ['manifestworks'],
              verbs: ['get', 'list', 'create', 'update', 'patch'],
            },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'alice-manifestwork-editor', namespace: 'cluster1' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'manifestwork-editor' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
        },
      ]),
    );
    const executor = {
      subject: { type: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'executor1' } },
    };
    const withExecutor = work('alice-work', [configMap('alice-cm')], { executor });
    assertDenied(
      await apply(withExecutor, ['--as=alice']),
      MW_WEBHOOK,
      'user alice cannot manipulate the Manifestwork with executor default/executor1 in namespace cluster1',
    );
    // Without an executor alice needs nothing more.
    assertAccepted(await apply(work('alice-plain', [configMap('alice-cm')]), ['--as=alice']));

    // The documentation's Role (config/samples/ocm/manifestwork-executor.yaml, applied above) bound to alice.
    assertAccepted(
      await apply({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'alice-executor1', namespace: 'cluster1' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cluster1-executor1' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      }),
    );
    await waitFor('alice to be allowed to execute as default/executor1', async () => {
      const r = await apply(withExecutor, ['--as=alice']);
      return r.code === 0;
    });
    // Another executor is still refused.
    const other = {
      subject: { type: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'other' } },
    };
    assertDenied(
      await apply(work('alice-work', [configMap('alice-cm')], { executor: other }), ['--as=alice']),
      MW_WEBHOOK,
      'user alice cannot manipulate the Manifestwork with executor default/other in namespace cluster1',
    );
  });

  test('a ManifestWorkReplicaSet template is checked like a work; placementRefs are the CRD’s', async () => {
    const mwrs = (name: string, manifests: object[], placementRefs: object[] = [{ name: 'p' }]) => ({
      apiVersion: 'work.open-cluster-management.io/v1alpha1',
      kind: 'ManifestWorkReplicaSet',
      metadata: { name, namespace: 'ocm-ns' },
      spec: { placementRefs, manifestWorkTemplate: { workload: { manifests } } },
    });
    assertDenied(await apply(mwrs('empty', [])), MWRS_WEBHOOK, 'Workload manifests should not be empty');
    assertDenied(
      await apply(mwrs('dup', [configMap('x'), configMap('x')])),
      MWRS_WEBHOOK,
      'duplicate manifest for resource default/x with resource type v1.ConfigMap',
    );
    const noRefs = await apply(mwrs('no-refs', [configMap('x')], []));
    assert.notEqual(noRefs.code, 0);
    assert.match(
      noRefs.stderr,
      /spec\.placementRefs: Invalid value: 0: spec\.placementRefs in body should have at least 1 items/,
    );
    assertAccepted(await apply(mwrs('ok', [configMap('x')])));
  });

  test('the CRD refuses a CEL condition rule without a condition, and a field manager not starting with work-agent', async () => {
    const config = (rule: object) => ({
      manifestConfigs: [
        {
          resourceIdentifier: { group: '', resource: 'configmaps', namespace: 'default', name: 'cm1' },
          ...rule,
        },
      ],
    });
    const cel = await apply(
      work(
        'cel',
        [configMap('cm1')],
        config({ conditionRules: [{ type: 'CEL', condition: '', celExpressions: ['true'] }] }),
      ),
    );
    assert.notEqual(cel.code, 0);
    assert.match(cel.stderr, /Condition is required for CEL rules/);
    const manager = await apply(
      work(
        'manager',
        [configMap('cm1')],
        config({ updateStrategy: { type: 'ServerSideApply', serverSideApply: { fieldManager: 'someone' } } }),
      ),
    );
    assert.notEqual(manager.code, 0);
    assert.match(manager.stderr, /fieldManager in body should match '\^work-agent'/);
  });
});
