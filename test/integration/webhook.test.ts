import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { KubeFedConfigType } from '../../src/api/core/v1beta1/index.ts';
import { defaultKubeFedConfigSpec, KNOWN_FEATURE_GATES } from '../../src/config/index.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { SYNC_FINALIZER } from '../../src/propagation/constants.ts';
import { binary } from '../../src/testing/binaries.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { freePort, waitFor } from '../../src/testing/ports.ts';
import { ManagedProcess } from '../../src/testing/process.ts';
import {
  generateWebhookCertificates,
  type WebhookCertificates,
  webhookConfigurations,
} from '../../src/webhook/index.ts';
import { apiserverWrites, writesBetween } from './federation-helpers.ts';
import { type CliResult, NS } from './helpers.ts';

const APP_NS = 'webhook-test';

/** GET over HTTPS on a fresh connection, trusting only `ca`; resolves the status code or rejects. */
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

/** Writes tls.crt/tls.key the way the kubelet updates a Secret volume: each file replaced whole. */
function writeServingCert(dir: string, certs: WebhookCertificates): void {
  for (const [name, pem] of [
    ['tls.key', certs.key],
    ['tls.crt', certs.cert],
  ] as const) {
    writeFileSync(join(dir, `.${name}.tmp`), pem, { mode: 0o600 });
    renameSync(join(dir, `.${name}.tmp`), join(dir, name));
  }
}

describe('admission webhooks registered in a real kube-apiserver', () => {
  let fed: Federation;
  let host: KubeClient;
  let webhook: ManagedProcess | undefined;
  let manager: ControllerManagerProcess | undefined;
  let port: number;
  let certDir: string;
  let certs: WebhookCertificates;
  let fileCount = 0;

  const kubectl = (args: string[], stdin?: string): Promise<CliResult> =>
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
      child.stdin.end(stdin ?? '');
    });

  /** `kubectl apply -f <file>` of objects written as YAML, as a user would. */
  const apply = (objects: object | object[], extra: string[] = []): Promise<CliResult> => {
    const file = join(fed.dir, `manifest-${++fileCount}.yaml`);
    const docs = Array.isArray(objects) ? objects : [objects];
    writeFileSync(file, docs.map((o) => stringify(o)).join('---\n'));
    return kubectl(['apply', '-f', file, ...extra]);
  };

  /** Rejected by the named webhook with exactly this message, as kubectl prints it. */
  const assertDenied = (r: CliResult, webhookName: string, message: string) => {
    assert.notEqual(r.code, 0, `kubectl should fail; stdout:\n${r.stdout}`);
    const line = `admission webhook "${webhookName}" denied the request: ${message}`;
    assert.ok(
      r.stderr.split('\n').some((l) => l.endsWith(line)),
      `expected a line ending in\n  ${line}\ngot:\n${r.stderr}`,
    );
  };
  const assertAccepted = (r: CliResult) => assert.equal(r.code, 0, `kubectl failed:\n${r.stderr}`);

  const kubefedCluster = (name: string, apiEndpoint: string) => ({
    apiVersion: 'core.kubefed.io/v1beta1',
    kind: 'KubeFedCluster',
    metadata: { name, namespace: NS },
    spec: { apiEndpoint, secretRef: { name: `${name}-secret` } },
  });

  /** A FederatedConfigMap whose override the sync controller refuses; `finalizers` keep it after a delete. */
  const forbiddenOverrideConfigMap = (name: string, finalizers?: string[]) => ({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind: 'FederatedConfigMap',
    metadata: { name, namespace: APP_NS, ...(finalizers ? { finalizers } : {}) },
    spec: {
      template: { data: { a: 'b' } },
      placement: { clusters: [{ name: 'cluster1' }] },
      overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ path: '/kind', value: 'Secret' }] }],
    },
  });

  const registerWebhooks = async (caCert: string) => {
    const { validating, mutating } = webhookConfigurations({
      caBundle: Buffer.from(caCert).toString('base64'),
      url: `https://127.0.0.1:${port}`,
    });
    assertAccepted(await apply([validating, mutating]));
  };

  before(async () => {
    fed = await startFederation({ members: [] });
    host = fed.host.client();
    // CRDs, the KubeFed namespace and the ten default federated types (FederatedDeployment among them).
    await installControlPlane(host, NS, { defaultTypes: true });
    assertAccepted(await kubectl(['create', 'namespace', APP_NS]));

    // Stored before the webhooks exist, as on a host where they are installed later.
    assertAccepted(await apply(forbiddenOverrideConfigMap('stored-before', ['example.com/hold'])));

    certDir = join(fed.dir, 'serving-cert');
    mkdirSync(certDir, { recursive: true });
    certs = generateWebhookCertificates({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    writeServingCert(certDir, certs);
    port = await freePort();
    const proc = ManagedProcess.start(
      'kubefed-admission-webhook',
      process.execPath,
      [
        join(REPO_ROOT, 'src/cmd/webhook.ts'),
        `--secure-port=${port}`,
        `--cert-dir=${certDir}`,
        '--bind-address=127.0.0.1',
        // The host, for the FTC-gated sync finalizer at admission.
        `--kubeconfig=${fed.kubeconfigPath}`,
        `--kubefed-namespace=${NS}`,
        '--v=1',
      ],
      { logFile: join(fed.dir, 'kubefed-admission-webhook.log') },
    );
    webhook = proc;
    await waitFor(
      'the webhook to serve /readyz over HTTPS',
      async () => {
        if (!proc.running) throw new Error(`kubefed-admission-webhook exited:\n${proc.tail()}`);
        return (await httpsGet(port, '/readyz', certs.caCert)) === 200;
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );

    await registerWebhooks(certs.caCert);
    // The apiserver picks up new configurations through an informer: wait until they take effect.
    await waitFor(
      'the apiserver to call the webhooks',
      async () => {
        const r = await apply(kubefedCluster('probe', ''), ['--dry-run=server']);
        return r.stderr.includes('denied the request');
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  });

  after(async () => {
    await manager?.process.stop();
    await webhook?.stop();
    await host?.close();
    await fed?.stop();
  });

  test('KubeFedCluster: an empty apiEndpoint is denied, a valid cluster accepted', async () => {
    assertDenied(
      await apply(kubefedCluster('bad', '')),
      'kubefedclusters.core.kubefed.io',
      'spec.apiEndpoint: Required value',
    );
    assertDenied(
      await apply(kubefedCluster('bad', 'ftp://10.0.0.1:6443')),
      'kubefedclusters.core.kubefed.io',
      'spec.apiEndpoint: Unsupported value: "ftp": supported values: "http", "https"',
    );
    assertAccepted(await apply(kubefedCluster('cluster1', 'https://10.0.0.1:6443')));
    assertAccepted(await kubectl(['-n', NS, 'get', 'kubefedcluster', 'cluster1']));
  });

  test('FederatedTypeConfig: an empty federated group and a wrong name are denied, a valid one accepted', async () => {
    const ftc = (name: string, federatedGroup: string) => ({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'FederatedTypeConfig',
      metadata: { name, namespace: NS },
      spec: {
        targetType: {
          group: 'example.com',
          version: 'v1',
          kind: 'Widget',
          pluralName: 'widgets',
          scope: 'Namespaced',
        },
        propagation: 'Enabled',
        federatedType: {
          group: federatedGroup,
          version: 'v1beta1',
          kind: 'FederatedWidget',
          pluralName: 'federatedwidgets',
          scope: 'Namespaced',
        },
      },
    });
    assertDenied(
      await apply(ftc('widgets.example.com', '')),
      'federatedtypeconfigs.core.kubefed.io',
      'spec.federatedType.group: Required value',
    );
    assertDenied(
      await apply(ftc('widgets', 'types.kubefed.io')),
      'federatedtypeconfigs.core.kubefed.io',
      `name: Invalid value: "widgets": name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)'`,
    );
    assertAccepted(await apply(ftc('widgets.example.com', 'types.kubefed.io')));
  });

  test('KubeFedConfig: invalid values are denied; a partial config is defaulted on create; scope is immutable', async () => {
    const config = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'KubeFedConfig',
      metadata: { name, namespace: NS },
      spec,
    });
    // The CRD's enum catches this one before any validating webhook runs; the message has the same form.
    const unknown = await apply(
      config('kubefed', { scope: 'Cluster', syncController: { adoptResources: 'Unknown' } }),
    );
    assert.notEqual(unknown.code, 0);
    assert.match(
      unknown.stderr,
      /spec\.syncController\.adoptResources: Unsupported value: "Unknown": supported values: "Enabled", "Disabled"/,
    );
    // Rules the schema cannot express reach the webhook (after defaulting).
    assertDenied(
      await apply(
        config('kubefed', { scope: 'Cluster', featureGates: [{ name: 'Bogus', configuration: 'Enabled' }] }),
      ),
      'kubefedconfigs.core.kubefed.io',
      `spec.featureGates.name: Unsupported value: "Bogus": supported values: ${KNOWN_FEATURE_GATES.map((g) => JSON.stringify(g)).join(', ')}`,
    );
    assertDenied(
      await apply(
        config('kubefed', { scope: 'Cluster', leaderElect: { leaseDuration: '5s', renewDeadline: '10s' } }),
      ),
      'kubefedconfigs.core.kubefed.io',
      'spec.leaderElect.leaseDuration: Invalid value: "5s": leaseDuration must be greater than renewDeadline',
    );

    assertAccepted(await apply(config('kubefed', { scope: 'Cluster' })));
    const stored = await host.get<KubeObject & { spec: Record<string, unknown> }>(
      KubeFedConfigType,
      'kubefed',
      NS,
    );
    assert.deepEqual(stored.spec, defaultKubeFedConfigSpec({ scope: 'Cluster' }));
    const gates = (stored.spec['featureGates'] as Array<{ name: string }>).map((g) => g.name);
    assert.deepEqual(gates, [...KNOWN_FEATURE_GATES].sort());
    assert.equal(gates.length, KNOWN_FEATURE_GATES.length);

    assertDenied(
      await apply({ ...config('kubefed', { ...stored.spec, scope: 'Namespaced' }) }),
      'kubefedconfigs.core.kubefed.io',
      'spec.scope: Invalid value: "Namespaced": field is immutable',
    );
    // A user's own values are kept by defaulting.
    assertAccepted(
      await apply(config('other', { scope: 'Namespaced', clusterHealthCheck: { period: '1s' } })),
    );
    const other = await host.get<KubeObject & { spec: Record<string, Record<string, unknown>> }>(
      KubeFedConfigType,
      'other',
      NS,
    );
    assert.deepEqual(other.spec['clusterHealthCheck'], {
      period: '1s',
      failureThreshold: 3,
      successThreshold: 1,
      timeout: '3s',
    });
  });

  test('FederatedDeployment: an override of /metadata/name is denied, a valid one accepted', async () => {
    const fdeploy = (name: string, overridePath: string, annotations?: Record<string, string>) => ({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name, namespace: APP_NS },
      spec: {
        template: {
          metadata: { labels: { app: 'web' }, ...(annotations ? { annotations } : {}) },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'web', image: 'nginx' }] },
            },
          },
        },
        placement: { clusters: [{ name: 'cluster1' }] },
        overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ path: overridePath, value: 'x' }] }],
      },
    });
    assertDenied(
      await apply(fdeploy('web', '/metadata/name')),
      'federated.types.kubefed.io',
      'spec.overrides[0].clusterOverrides[0].path: Forbidden: /metadata/name may not be overridden: the name, namespace and kind of member objects come from the federated object',
    );
    const bad = fdeploy('web', '/spec/replicas');
    bad.spec.placement = { clusters: [{ name: 'cluster1' }, { name: 'cluster1' }] };
    assertDenied(
      await apply(bad),
      'federated.types.kubefed.io',
      'spec.placement.clusters[1].name: Duplicate value: "cluster1"',
    );
    assertAccepted(await apply(fdeploy('web', '/spec/template/spec/containers/0/image')));
    // Template annotations are accepted but dropped by the controller: kubectl shows the webhook's warning.
    const warned = await apply(fdeploy('web2', '/spec/replicas', { note: 'x' }));
    assertAccepted(warned);
    assert.match(warned.stderr, /Warning: spec\.template\.metadata\.annotations cannot be set via template/);
  });

  test('an object stored before the webhook can still be relabelled, finalized and deleted, but not changed', async () => {
    assertDenied(
      await apply(forbiddenOverrideConfigMap('new-one')),
      'federated.types.kubefed.io',
      'spec.overrides[0].clusterOverrides[0].path: Forbidden: /kind may not be overridden: the name, namespace and kind of member objects come from the federated object',
    );
    const changed = forbiddenOverrideConfigMap('stored-before', ['example.com/hold']);
    changed.spec.placement = { clusters: [{ name: 'cluster2' }] };
    assertDenied(
      await apply(changed),
      'federated.types.kubefed.io',
      'spec.overrides[0].clusterOverrides[0].path: Forbidden: /kind may not be overridden: the name, namespace and kind of member objects come from the federated object',
    );
    assertAccepted(await kubectl(['-n', APP_NS, 'label', 'federatedconfigmap', 'stored-before', 'team=a']));
    assertAccepted(
      await kubectl(['-n', APP_NS, 'delete', 'federatedconfigmap', 'stored-before', '--wait=false']),
    );
    assertAccepted(
      await kubectl([
        '-n',
        APP_NS,
        'patch',
        'federatedconfigmap',
        'stored-before',
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      ]),
    );
    await waitFor('the finalized object to be gone', async () => {
      const r = await kubectl(['-n', APP_NS, 'get', 'federatedconfigmap', 'stored-before']);
      return r.code !== 0 && r.stderr.includes('NotFound');
    });
  });

  test('PropagationPolicy: empty selectors and a bad label selector are denied; a created one gets its id and finalizer, the id is immutable', async () => {
    const policy = (name: string, resourceSelectors: object[]) => ({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: APP_NS },
      spec: { resourceSelectors, placement: { clusterAffinity: { clusterNames: ['member1'] } } },
    });
    // "empty is not allowed and doesn't mean match all": the CRD's minItems refuses it before any webhook.
    const empty = await apply(policy('empty', []));
    assert.notEqual(empty.code, 0);
    assert.match(empty.stderr, /spec\.resourceSelectors: Invalid value: .*should have at least 1 items/);
    assertDenied(
      await apply(
        policy('bad-selector', [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            labelSelector: { matchExpressions: [{ key: 'app', operator: 'In' }] },
          },
        ]),
      ),
      'propagationpolicy.karmada.io',
      "spec.resourceSelectors[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    );

    assertAccepted(await apply(policy('web', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }])));
    const got = await kubectl(['get', 'propagationpolicy', 'web', '-n', APP_NS, '-o', 'json']);
    assertAccepted(got);
    const stored = JSON.parse(got.stdout) as {
      metadata: { labels?: Record<string, string>; finalizers?: string[] };
      spec: { resourceSelectors: Array<{ namespace?: string }> };
    };
    const id = stored.metadata.labels?.['propagationpolicy.karmada.io/permanent-id'] ?? '';
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(stored.metadata.finalizers, ['karmada.io/propagation-policy-controller']);
    assert.equal(stored.spec.resourceSelectors[0]?.namespace, APP_NS);

    assertDenied(
      await kubectl([
        'label',
        'propagationpolicy',
        'web',
        '-n',
        APP_NS,
        '--overwrite',
        'propagationpolicy.karmada.io/permanent-id=mine',
      ]),
      'propagationpolicy.karmada.io',
      'label propagationpolicy.karmada.io/permanent-id is immutable, it can only be set by the system during creation',
    );
    // Other labels are the user's.
    assertAccepted(await kubectl(['label', 'propagationpolicy', 'web', '-n', APP_NS, 'team=a']));
  });

  test("Karmada's documentation examples in config/samples/karmada are admitted unchanged; an OverridePolicy Karmada refuses is denied", async () => {
    const dir = join(REPO_ROOT, 'config/samples/karmada');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      assertAccepted(await kubectl(['apply', '--dry-run=server', '-f', join(dir, file)]));
    }
    assertDenied(
      await apply({
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'OverridePolicy',
        metadata: { name: 'both', namespace: APP_NS },
        spec: {
          overrideRules: [
            {
              overriders: {
                fieldOverrider: [
                  {
                    fieldPath: '/data/config.yaml',
                    json: [{ subPath: '/a', operator: 'add', value: 1 }],
                    yaml: [{ subPath: '/a', operator: 'add', value: 1 }],
                  },
                ],
              },
            },
          ],
        },
      }),
      'overridepolicy.karmada.io',
      'spec.overrideRules[0].overriders.fieldOverrider[0]: Invalid value: {"fieldPath":"/data/config.yaml","json":[{"operator":"add","subPath":"/a","value":1}],"yaml":[{"operator":"add","subPath":"/a","value":1}]}: FieldOverrider has both YAML and JSON set. Only one is allowed',
    );
  });

  test('a replaced serving certificate is served without a restart, and the apiserver keeps working with it', async () => {
    const next = generateWebhookCertificates({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    writeServingCert(certDir, next);
    await waitFor(
      'the new certificate to be served',
      async () => (await httpsGet(port, '/readyz', next.caCert)) === 200,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    await assert.rejects(httpsGet(port, '/readyz', certs.caCert), /certificate/);
    assert.ok(webhook?.running, 'the webhook process was not restarted');

    await registerWebhooks(next.caCert);
    await waitFor(
      'the apiserver to reach the webhook with the new CA',
      async () => {
        const r = await apply(kubefedCluster('rotated', ''), ['--dry-run=server']);
        return r.stderr.includes('admission webhook "kubefedclusters.core.kubefed.io" denied the request');
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
  });

  /** A Federated<Kind> of the test namespace, placed nowhere. */
  const federated = (kind: string, name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'types.kubefed.io/v1beta1',
    kind,
    metadata: { name, namespace: APP_NS },
    spec: { template: { data: { a: 'b' } }, placement: { clusters: [] }, ...extra },
  });
  /** `kubectl create -o json`: the object exactly as the create response returned it. */
  const create = async (obj: object, extra: string[] = []) => {
    const file = join(fed.dir, `manifest-${++fileCount}.yaml`);
    writeFileSync(file, stringify(obj));
    const r = await kubectl(['create', '-f', file, '-o', 'json', ...extra]);
    assertAccepted(r);
    return JSON.parse(r.stdout) as KubeObject;
  };

  // After the tests above: it starts the controller manager, which would finalize what they create.
  test('the sync finalizer is set at admission for a running type, so the controller writes no PATCH; a disabled type gets none', async () => {
    // Secrets disabled before the controller manager starts: its FTC never says Running.
    assertAccepted(
      await kubectl([
        '-n',
        NS,
        'patch',
        'federatedtypeconfig',
        'secrets',
        '--type=merge',
        '-p',
        '{"spec":{"propagation":"Disabled"}}',
      ]),
    );
    manager = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: join(fed.dir, 'kubefed-controller-manager.log'),
    });
    // The FTC controller reports the configmaps sync controller Running; the webhook's informer sees it.
    await waitFor(
      'a dry-run create of a FederatedConfigMap to carry the sync finalizer',
      async () =>
        (
          await create(federated('FederatedConfigMap', 'probe'), ['--dry-run=server'])
        ).metadata.finalizers?.includes(SYNC_FINALIZER) ?? false,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // Objects stored earlier get the finalizer by the controller's PATCH (the fallback): let that finish.
    await waitFor(
      'the controller to finalize the FederatedConfigMaps stored earlier',
      async () => {
        const r = await kubectl(['-n', APP_NS, 'get', 'federatedconfigmaps', '-o', 'json']);
        const items = (JSON.parse(r.stdout) as { items: KubeObject[] }).items;
        return items.every((o) => o.metadata.finalizers?.includes(SYNC_FINALIZER));
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const before = await apiserverWrites(host);
    const created = await create(
      federated('FederatedConfigMap', 'admitted', { placement: { clusters: [] } }),
    );
    assert.deepEqual(created.metadata.finalizers, [SYNC_FINALIZER], 'the create response carries it');
    // The sync controller has reconciled it once its status is written.
    await waitFor(
      'the sync controller to write the status of the admitted object',
      async () => {
        const r = await kubectl(['-n', APP_NS, 'get', 'federatedconfigmap', 'admitted', '-o', 'json']);
        return (JSON.parse(r.stdout) as { status?: unknown }).status !== undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    await new Promise((r) => setTimeout(r, 2_000));
    // The user's POST and nothing else: no finalizer PATCH from the controller.
    assert.deepEqual(writesBetween(before, await apiserverWrites(host), ['federatedconfigmaps']), {
      federatedconfigmaps: 1,
    });
    const stored = JSON.parse(
      (
        await kubectl([
          '-n',
          APP_NS,
          'get',
          'federatedconfigmap',
          'admitted',
          '-o',
          'json',
          '--show-managed-fields',
        ])
      ).stdout,
    ) as KubeObject & { metadata: { managedFields?: Array<{ manager?: string; fieldsV1?: unknown }> } };
    assert.deepEqual(stored.metadata.finalizers, [SYNC_FINALIZER]);
    // No manager but the creator's owns the finalizers (the controller's entry is its status write only).
    const managed = stored.metadata.managedFields ?? [];
    assert.ok(managed.length >= 2, `the creator's and the controller's entries: ${JSON.stringify(managed)}`);
    const owners = managed
      .filter((m) => JSON.stringify(m.fieldsV1 ?? {}).includes('"f:finalizers"'))
      .map((m) => m.manager);
    assert.deepEqual(
      owners.filter((m) => m !== 'kubectl-create'),
      [],
    );
    // A user's own finalizer is kept, and the sync finalizer appended.
    const held = await create({
      ...federated('FederatedConfigMap', 'held'),
      metadata: { name: 'held', namespace: APP_NS, finalizers: ['example.com/hold'] },
    });
    assert.deepEqual(held.metadata.finalizers, ['example.com/hold', SYNC_FINALIZER]);

    // A disabled type: no finalizer, so a delete removes it at once, as in KubeFed.
    const secret = await create({
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedSecret',
      metadata: { name: 'plain', namespace: APP_NS },
      spec: { template: { data: { a: 'Yg==' } }, placement: { clusters: [] } },
    });
    assert.equal(secret.metadata.finalizers, undefined);
    assertAccepted(await kubectl(['-n', APP_NS, 'delete', 'federatedsecret', 'plain', '--wait=false']));
    const gone = await kubectl(['-n', APP_NS, 'get', 'federatedsecret', 'plain']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound/);
    // The admitted object is finalized by the controller on delete, as any other.
    assertAccepted(
      await kubectl(['-n', APP_NS, 'delete', 'federatedconfigmap', 'admitted', '--timeout=60s']),
    );
    assert.equal((await kubectl(['-n', APP_NS, 'get', 'federatedconfigmap', 'admitted'])).code === 0, false);
  });

  // Last: it kills the controller manager the test above started.
  test('with the controller manager gone (its lease expired) a new object of a running type gets no finalizer and is deleted at once', async () => {
    assert.ok(manager, 'the test above started the controller manager');
    // A crash: no clean stop, so the Lease keeps its holder until it expires.
    await manager.process.kill();
    const leaseOf = async () =>
      JSON.parse(
        (await kubectl(['-n', NS, 'get', 'lease', 'kubefed-controller-manager', '-o', 'json'])).stdout,
      ) as { spec: { holderIdentity?: string } };
    assert.ok((await leaseOf()).spec.holderIdentity, 'the killed leader did not release its lease');
    // Nothing resets the FTC's status: it still says the sync controller runs.
    const status = JSON.parse(
      (await kubectl(['-n', NS, 'get', 'federatedtypeconfig', 'configmaps', '-o', 'json'])).stdout,
    ) as { status?: { propagationController?: string } };
    assert.equal(status.status?.propagationController, 'Running');
    // Once the lease (15s, the default) and the webhook's grace have run out, no finalizer is set.
    await waitFor(
      'a dry-run create of a FederatedConfigMap to carry no sync finalizer',
      async () =>
        !(
          (await create(federated('FederatedConfigMap', 'probe-down'), ['--dry-run=server'])).metadata
            .finalizers ?? []
        ).includes(SYNC_FINALIZER),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const orphan = await create(federated('FederatedConfigMap', 'while-down'));
    assert.equal(orphan.metadata.finalizers, undefined);
    // No controller to finalize it, and none needed: a delete removes it at once, as in KubeFed.
    assertAccepted(
      await kubectl(['-n', APP_NS, 'delete', 'federatedconfigmap', 'while-down', '--wait=false']),
    );
    const gone = await kubectl(['-n', APP_NS, 'get', 'federatedconfigmap', 'while-down']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /NotFound/);
  });
});

describe('kubefed-admission-webhook command', () => {
  let dir: string;
  const procs: ManagedProcess[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubefed-ts-webhook-'));
  });
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (name: string, args: string[]) => {
    const p = ManagedProcess.start(name, process.execPath, [join(REPO_ROOT, 'src/cmd/webhook.ts'), ...args], {
      logFile: join(dir, `${name}.log`),
    });
    procs.push(p);
    return p;
  };

  test('without a serving certificate it exits 1 and names the missing file', async () => {
    const certDir = join(dir, 'empty');
    const p = start('no-certs', [
      `--cert-dir=${certDir}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
    ]);
    assert.equal(await p.exited, 1);
    assert.match(p.tail(), new RegExp(`^Error: cannot read ${join(certDir, 'tls.crt')}: ENOENT$`, 'm'));
  });

  test('--generate-self-signed-certs writes a CA and a certificate for localhost, and serves it', async () => {
    const certDir = join(dir, 'generated');
    const port = await freePort();
    const p = start('self-signed', [
      `--cert-dir=${certDir}`,
      '--generate-self-signed-certs',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
    ]);
    await waitFor(
      'the generated certificate to be served',
      async () => {
        if (!p.running) throw new Error(`exited:\n${p.tail()}`);
        if (!existsSync(join(certDir, 'ca.crt'))) return false;
        return (await httpsGet(port, '/readyz', readFileSync(join(certDir, 'ca.crt'), 'utf8'))) === 200;
      },
      { timeoutMs: 60_000, describe: () => p.tail() },
    );
    assert.equal(statSync(join(certDir, 'tls.key')).mode & 0o777, 0o600);
    // Webhook paths take POSTed AdmissionReviews only; anything else is not found.
    const ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
    assert.equal(await httpsGet(port, '/validate-kubefedcluster', ca), 405);
    assert.equal(await httpsGet(port, '/nope', ca), 404);
    await p.stop();
    assert.equal(p.child.exitCode, 0, 'SIGTERM is a clean stop');
  });
});
