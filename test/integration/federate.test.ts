import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments, parse as parseYaml, stringify as toYaml } from 'yaml';
import { FederatedTypeConfigType } from '../../src/api/core/v1beta1/index.ts';
import { defaultFederatedTypes } from '../../src/federation-types/default-types.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import {
  CoreTypes,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import type { FederatedObjectFromTarget } from '../../src/kubefedctl/federate-convert.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { type CliResult, kubefedctl, NS, prepareHost } from './helpers.ts';

const t = (kind: string, plural: string, group = '', namespaced = true): ResourceType => ({
  group,
  version: 'v1',
  plural,
  namespaced,
  kind,
});
const Deployments = t('Deployment', 'deployments', 'apps');
const ReplicaSets = t('ReplicaSet', 'replicasets', 'apps');
const StatefulSets = t('StatefulSet', 'statefulsets', 'apps');
const Services = t('Service', 'services');
const Roles = t('Role', 'roles', 'rbac.authorization.k8s.io');
const fed = (kind: string, plural: string, namespaced = true): ResourceType => ({
  group: 'types.kubefed.io',
  version: 'v1beta1',
  plural,
  namespaced,
  kind,
});
const FedDeployments = fed('FederatedDeployment', 'federateddeployments');
const FedConfigMaps = fed('FederatedConfigMap', 'federatedconfigmaps');
const FedSecrets = fed('FederatedSecret', 'federatedsecrets');
const FedServices = fed('FederatedService', 'federatedservices');
const FedServiceAccounts = fed('FederatedServiceAccount', 'federatedserviceaccounts');
const FedNamespaces = fed('FederatedNamespace', 'federatednamespaces');
const FedReplicaSets = fed('FederatedReplicaSet', 'federatedreplicasets');
const FedStatefulSets = fed('FederatedStatefulSet', 'federatedstatefulsets');
const FedRoles = fed('FederatedRole', 'federatedroles');

function assertOneLineError(r: CliResult, expected: string): void {
  assert.equal(r.code, 1, `exit 1, got ${r.code}; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.deepEqual(lines, [`Error: ${expected}`]);
}

const lines = (s: string) => s.trim().split('\n').filter(Boolean);

/** Runs kubefedctl with the given standard input, as `cat file | kubefedctl ...` would. */
function kubefedctlWithInput(args: string[], input: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(REPO_ROOT, 'src/cli/kubefedctl.ts'), ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

async function exists(host: KubeClient, type: ResourceType, name: string, namespace?: string) {
  try {
    await host.get(type, name, namespace);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** Names and resourceVersions of CRDs, FTCs and every federated object: equal snapshots mean no writes. */
async function snapshot(host: KubeClient): Promise<string[]> {
  const crds = await host.list<
    KubeObject & { spec: { group: string; names: { plural: string; kind: string } } }
  >(CoreTypes.crds);
  const ftcs = await host.list(FederatedTypeConfigType, { namespace: NS });
  const entries = [
    ...crds.items.map((c) => `crd/${c.metadata.name}@${c.metadata.resourceVersion}`),
    ...ftcs.items.map((f) => `ftc/${f.metadata.name}@${f.metadata.resourceVersion}`),
  ];
  for (const crd of crds.items.filter((c) => c.spec.group === 'types.kubefed.io')) {
    const list = await host.list({
      group: crd.spec.group,
      version: 'v1beta1',
      plural: crd.spec.names.plural,
      namespaced: false,
    });
    entries.push(
      ...list.items.map((o) => `${crd.spec.names.kind}/${o.metadata.namespace}/${o.metadata.name}`),
    );
  }
  return entries.sort();
}

async function createNamespace(host: KubeClient, name: string): Promise<void> {
  await host.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

function deployment(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name }, annotations: { 'example.com/owner': 'team-a' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
      },
    },
  };
}

const configMap = (
  namespace: string,
  name: string,
  data: Record<string, string> = { k: 'v' },
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

describe('kubefedctl federate / orphaning-deletion against a real kube-apiserver', () => {
  let f: Federation;
  let host: KubeClient;
  const kc = () => ['--kubeconfig', f.kubeconfigPath, '--host-cluster-context', 'host'];

  before(async () => {
    f = await startFederation({ members: [] });
    host = f.host.client();
    await prepareHost(host);
    await installControlPlane(host, NS, { defaultTypes: true });
    for (const crd of defaultFederatedTypes(NS).crds) {
      await waitFor(`CRD ${crd.metadata.name} established`, async () => {
        const c = await host.get<
          KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
        >(CoreTypes.crds, crd.metadata.name);
        return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ?? false;
      });
    }
    await createNamespace(host, 'demo');
  });
  after(async () => {
    await f?.stop();
  });

  test('federate a Deployment: template = target minus metadata/status, all clusters, annotations warned', async () => {
    const created = await host.create(Deployments, deployment('demo', 'web'));
    const r = await kubefedctl(['federate', 'deploy', 'web', '-n', 'demo', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stdout), [
      'Successfully created FederatedDeployment "demo/web" from Deployment',
    ]);
    assert.deepEqual(lines(r.stderr), [
      'Warning: Annotations defined for Deployment "demo/web" will not appear in the template of the ' +
        'federated resource: example.com/owner',
    ]);
    const got = await host.get<FederatedObjectFromTarget>(FedDeployments, 'web', 'demo');
    assert.equal(got.apiVersion, 'types.kubefed.io/v1beta1');
    assert.equal(got.kind, 'FederatedDeployment');
    assert.deepEqual(got.spec, {
      template: { metadata: { labels: { app: 'web' } }, spec: created['spec'] },
      placement: { clusterSelector: { matchLabels: {} } },
    });

    // Federating again is an error, and nothing changes.
    const before = await snapshot(host);
    assertOneLineError(
      await kubefedctl(['federate', 'deployments.apps', 'web', '-n', 'demo', ...kc()]),
      'Error creating federated resource "demo/web": federateddeployments.types.kubefed.io "web" already exists',
    );
    assert.deepEqual(await snapshot(host), before);
  });

  test('federate a Service without -n (context namespace): nodePort, clusterIP(s) are not copied', async () => {
    await host.create(Services, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'demo' },
      spec: {
        type: 'NodePort',
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }],
      },
    });
    const live = await host.get<KubeObject & { spec: Record<string, unknown> }>(Services, 'web', 'demo');
    assert.match(String(live.spec['clusterIP']), /^10\.0\.0\./);

    // A kubeconfig whose host context has namespace demo: -n defaults to it.
    const config = parseYaml(readFileSync(f.kubeconfigPath, 'utf8')) as {
      contexts: Array<{ name: string; context: { namespace?: string } }>;
    };
    for (const c of config.contexts) if (c.name === 'host') c.context.namespace = 'demo';
    const withNs = join(f.dir, 'kubeconfig-demo');
    writeFileSync(withNs, toYaml(config));

    const r = await kubefedctl(['federate', 'svc', 'web', '--kubeconfig', withNs]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stdout), ['Successfully created FederatedService "demo/web" from Service']);
    const got = await host.get<FederatedObjectFromTarget>(FedServices, 'web', 'demo');
    const spec = got.spec.template['spec'] as Record<string, unknown>;
    assert.equal(spec['clusterIP'], undefined);
    assert.equal(spec['clusterIPs'], undefined);
    assert.equal(spec['type'], 'NodePort');
    assert.deepEqual(spec['selector'], { app: 'web' });
    assert.deepEqual(spec['ports'], [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]);
    // Everything else the apiserver defaulted is kept.
    const { clusterIP: _a, clusterIPs: _b, ports: _c, ...rest } = live.spec;
    for (const [k, v] of Object.entries(rest)) assert.deepEqual(spec[k], v, k);
  });

  test('federate namespace --contents: contained resources too, generated objects skipped', async () => {
    await createNamespace(host, 'shop');
    await host.create(CoreTypes.configMaps, configMap('shop', 'settings'));
    await host.create(CoreTypes.configMaps, configMap('shop', 'kube-root-ca.crt', { 'ca.crt': 'x' }));
    await host.create(CoreTypes.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'shop' },
      type: 'Opaque',
      data: { password: Buffer.from('s3cret').toString('base64') },
    });
    for (const sa of ['default', 'builder']) {
      await host.create(CoreTypes.serviceAccounts, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: sa, namespace: 'shop' },
        secrets: [{ name: `${sa}-token` }],
      });
    }
    await host.create(CoreTypes.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'builder-token',
        namespace: 'shop',
        annotations: { 'kubernetes.io/service-account.name': 'builder' },
      },
      type: 'kubernetes.io/service-account-token',
    });
    const app = await host.create(Deployments, deployment('shop', 'app'));
    // What the deployment controller would make: a ReplicaSet it controls.
    await host.create(ReplicaSets, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'app-5d4f',
        namespace: 'shop',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'app',
            uid: app.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'app' } },
        template: {
          metadata: { labels: { app: 'app' } },
          spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
        },
      },
    });
    await host.create(t('Event', 'events'), {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'app.1', namespace: 'shop' },
      involvedObject: { kind: 'Deployment', name: 'app', namespace: 'shop' },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up',
      type: 'Normal',
      source: { component: 'test' },
    });
    // A type that is not enabled: skipped with a warning without --enable-type.
    await host.create(Roles, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader', namespace: 'shop' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });

    const r = await kubefedctl(['federate', 'namespace', 'shop', '--contents', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stdout), [
      'Successfully created FederatedNamespace "shop/shop" from Namespace',
      'Successfully created FederatedConfigMap "shop/settings" from ConfigMap',
      'Successfully created FederatedDeployment "shop/app" from Deployment',
      'Successfully created FederatedSecret "shop/creds" from Secret',
      'Successfully created FederatedServiceAccount "shop/builder" from ServiceAccount',
    ]);
    assert.deepEqual(lines(r.stderr), [
      'Warning: Annotations defined for Deployment "shop/app" will not appear in the template of the ' +
        'federated resource: example.com/owner',
      'Warning: Skipping 1 roles.rbac.authorization.k8s.io in namespace "shop": FederatedTypeConfig ' +
        `"${NS}/roles.rbac.authorization.k8s.io" not found. Consider using '--enable-type' to optionally ` +
        'enable type while federating the resource',
    ]);

    const ns = await host.get<FederatedObjectFromTarget>(FedNamespaces, 'shop', 'shop');
    // The apiserver's own label is copied like any other (KubeFed too); members set the same value.
    assert.deepEqual(
      ns.spec.template,
      { metadata: { labels: { 'kubernetes.io/metadata.name': 'shop' } }, spec: {} },
      'namespace finalizers are not copied',
    );
    const cm = await host.get<FederatedObjectFromTarget>(FedConfigMaps, 'settings', 'shop');
    assert.deepEqual(cm.spec.template, { data: { k: 'v' } });
    const secret = await host.get<FederatedObjectFromTarget>(FedSecrets, 'creds', 'shop');
    assert.deepEqual(secret.spec.template['data'], { password: Buffer.from('s3cret').toString('base64') });
    const sa = await host.get<FederatedObjectFromTarget>(FedServiceAccounts, 'builder', 'shop');
    assert.equal(sa.spec.template['secrets'], undefined, 'token secrets of the SA are not copied');

    assert.equal(await exists(host, FedConfigMaps, 'kube-root-ca.crt', 'shop'), false);
    assert.equal(await exists(host, FedServiceAccounts, 'default', 'shop'), false);
    assert.equal(await exists(host, FedSecrets, 'builder-token', 'shop'), false);
    assert.equal(await exists(host, FedReplicaSets, 'app-5d4f', 'shop'), false);
    assert.equal(await exists(host, FederatedTypeConfigType, 'roles.rbac.authorization.k8s.io', NS), false);
  });

  test('--contents with --enable-type enables missing types; non-DNS-1123 names are skipped', async () => {
    await createNamespace(host, 'team');
    await host.create(CoreTypes.configMaps, configMap('team', 'cfg'));
    for (const name of ['reader', 'system:odd']) {
      await host.create(Roles, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name, namespace: 'team' },
        rules: [],
      });
    }
    const r = await kubefedctl(['federate', 'ns', 'team', '-c', '-t', '-s', 'cm', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stdout), [
      'Successfully created FederatedNamespace "team/team" from Namespace',
      'customresourcedefinition.apiextensions.k8s.io/federatedroles.types.kubefed.io created',
      `federatedtypeconfig.core.kubefed.io/roles.rbac.authorization.k8s.io created in namespace ${NS}`,
      'Successfully created FederatedRole "team/reader" from Role',
    ]);
    assert.equal(lines(r.stderr).length, 1, r.stderr);
    assert.match(
      r.stderr,
      /^Warning: Skipping resource system:odd of type roles because it does not conform to the DNS-1123 subdomain spec: /,
    );
    const role = await host.get<FederatedObjectFromTarget>(FedRoles, 'reader', 'team');
    // The apiserver returns an empty rule list as null.
    assert.deepEqual(role.spec.template, { rules: null });
    assert.equal(await exists(host, FedConfigMaps, 'cfg', 'team'), false, '-s cm skips configmaps');
  });

  test('-o yaml prints the federated objects (assuming types that are not enabled) and writes nothing', async () => {
    await createNamespace(host, 'preview');
    await host.create(CoreTypes.configMaps, configMap('preview', 'cfg'));
    await host.create(t('PodTemplate', 'podtemplates'), {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 'tpl', namespace: 'preview' },
      template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    const before = await snapshot(host);
    const r = await kubefedctl(['federate', 'ns', 'preview', '--contents', '-o', 'yaml', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith('---\n'), r.stdout.slice(0, 40));
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as FederatedObjectFromTarget);
    assert.deepEqual(
      docs.map((d) => `${d.apiVersion} ${d.kind} ${d.metadata.namespace}/${d.metadata.name}`),
      [
        'types.kubefed.io/v1beta1 FederatedNamespace preview/preview',
        'types.kubefed.io/v1beta1 FederatedConfigMap preview/cfg',
        // podtemplates has no FTC: -o yaml assumes the one enable would generate.
        'types.kubefed.io/v1beta1 FederatedPodTemplate preview/tpl',
      ],
    );
    assert.deepEqual(docs[1]?.spec, {
      template: { data: { k: 'v' } },
      placement: { clusterSelector: { matchLabels: {} } },
    });
    // --dry-run checks and reports, but writes nothing either.
    const dry = await kubefedctl(['federate', 'cm', 'cfg', '-n', 'preview', '--dry-run', ...kc()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(lines(dry.stdout), [
      'Successfully created FederatedConfigMap "preview/cfg" from ConfigMap (dry run)',
    ]);
    assert.deepEqual(await snapshot(host), before);
  });

  test('a type without FTC is an error without --enable-type, and enabled then federated with it', async () => {
    await host.create(StatefulSets, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'demo' },
      spec: {
        replicas: 1,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
        },
      },
    });
    const before = await snapshot(host);
    assertOneLineError(
      await kubefedctl(['federate', 'statefulsets', 'db', '-n', 'demo', ...kc()]),
      `federatedtypeconfigs.core.kubefed.io "statefulsets.apps" not found. Consider using '--enable-type' to ` +
        'optionally enable type while federating the resource',
    );
    assertOneLineError(
      await kubefedctl(['federate', 'sts', 'db', '-n', 'demo', '-t', '-o', 'yaml', ...kc()]),
      "Flag '--enable-type' cannot be used with '--output [yaml]'",
    );
    // --dry-run with --enable-type: what would be enabled and created, nothing written.
    const dry = await kubefedctl(['federate', 'sts', 'db', '-n', 'demo', '-t', '--dry-run', ...kc()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(lines(dry.stdout), [
      'customresourcedefinition.apiextensions.k8s.io/federatedstatefulsets.types.kubefed.io created (dry run)',
      `federatedtypeconfig.core.kubefed.io/statefulsets.apps created in namespace ${NS} (dry run)`,
      'Successfully created FederatedStatefulSet "demo/db" from StatefulSet (dry run)',
    ]);
    assert.deepEqual(await snapshot(host), before);

    const r = await kubefedctl(['federate', 'sts', 'db', '-n', 'demo', '--enable-type', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stdout), [
      'customresourcedefinition.apiextensions.k8s.io/federatedstatefulsets.types.kubefed.io created',
      `federatedtypeconfig.core.kubefed.io/statefulsets.apps created in namespace ${NS}`,
      'Successfully created FederatedStatefulSet "demo/db" from StatefulSet',
    ]);
    assert.ok(await exists(host, FederatedTypeConfigType, 'statefulsets.apps', NS));
    const got = await host.get<FederatedObjectFromTarget>(FedStatefulSets, 'db', 'demo');
    const sts = await host.get(StatefulSets, 'db', 'demo');
    assert.deepEqual(got.spec.template['spec'], sts['spec']);
  });

  test('federate -f - converts stdin offline, without any kubeconfig', async () => {
    const input = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: web, namespace: demo, uid: abc, resourceVersion: "7", labels: {app: web}}',
      'spec: {replicas: 3}',
      'status: {replicas: 3}',
      '---',
      'apiVersion: v1',
      'kind: Namespace',
      'metadata: {name: demo}',
      'spec: {finalizers: [kubernetes]}',
      '',
    ].join('\n');
    const before = await snapshot(host);
    const r = await kubefedctlWithInput(['federate', '-f', '-'], input, {
      KUBECONFIG: join(f.dir, 'no-such-kubeconfig'),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as FederatedObjectFromTarget);
    assert.deepEqual(docs, [
      {
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedDeployment',
        metadata: { name: 'web', namespace: 'demo' },
        spec: {
          template: { metadata: { labels: { app: 'web' } }, spec: { replicas: 3 } },
          placement: { clusterSelector: { matchLabels: {} } },
        },
      },
      {
        apiVersion: 'types.kubefed.io/v1beta1',
        kind: 'FederatedNamespace',
        metadata: { name: 'demo', namespace: 'demo' },
        spec: { template: { spec: {} }, placement: { clusterSelector: { matchLabels: {} } } },
      },
    ]);
    assertOneLineError(
      await kubefedctlWithInput(['federate', 'deploy', 'web', '-f', '-'], input),
      "Flag '--filename' does not take any args. Got args: [deploy web]",
    );
    const bad = await kubefedctlWithInput(['federate', '-f', '-'], 'kind: ConfigMap\nmetadata: {name: x}\n');
    assertOneLineError(
      bad,
      'Failed to load yaml from file "-": document 1: apiVersion and kind are required',
    );
    assert.deepEqual(await snapshot(host), before);
  });

  test('orphaning-deletion enable / status / disable on a FederatedConfigMap', async () => {
    await host.create(CoreTypes.configMaps, configMap('demo', 'app-config'));
    const fedr = await kubefedctl(['federate', 'cm', 'app-config', '-n', 'demo', ...kc()]);
    assert.equal(fedr.code, 0, fedr.stderr);
    const orphan = (...args: string[]) => kubefedctl(['orphaning-deletion', ...args, '-n', 'demo', ...kc()]);
    const annotation = async () =>
      (await host.get(FedConfigMaps, 'app-config', 'demo')).metadata.annotations?.['kubefed.io/orphan'];

    let r = await orphan('status', 'FederatedConfigMap', 'app-config');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Disabled\n');
    assert.equal(r.stderr, '');

    r = await orphan('enable', 'fcm', 'app-config');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(await annotation(), 'true');
    const rv = (await host.get(FedConfigMaps, 'app-config', 'demo')).metadata.resourceVersion;
    r = await orphan('enable', 'federatedconfigmaps', 'app-config');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      (await host.get(FedConfigMaps, 'app-config', 'demo')).metadata.resourceVersion,
      rv,
      'enabling again writes nothing',
    );
    r = await orphan('status', 'fcm', 'app-config');
    assert.equal(r.stdout, 'Enabled\n');

    r = await orphan('disable', 'federatedconfigmaps.types.kubefed.io', 'app-config');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await annotation(), undefined);
    r = await orphan('status', 'fcm', 'app-config');
    assert.equal(r.stdout, 'Disabled\n');

    // A type that is not federated: a warning, then the same logic.
    r = await orphan('status', 'configmaps', 'app-config');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Disabled\n');
    assert.equal(r.stderr, 'Warning: configmaps/v1 might not be a federated resource\n');

    assertOneLineError(
      await orphan('status', 'fcm', 'nope'),
      'Failed to retrieve resource: "demo/nope": federatedconfigmaps.types.kubefed.io "nope" not found',
    );
    assertOneLineError(
      await kubefedctl(['orphaning-deletion', 'enable', 'fcm', ...kc()]),
      'resource name is required',
    );
    assertOneLineError(
      await orphan('status', 'nosuchtype', 'x'),
      'Failed to find targeted nosuchtype type: Unable to find api resource named "nosuchtype".',
    );
  });

  test('unknown objects and types, and --contents on a non-namespace, are one-line errors', async () => {
    const before = await snapshot(host);
    assertOneLineError(
      await kubefedctl(['federate', 'deploy', 'nope', '-n', 'demo', ...kc()]),
      'Error retrieving target Deployment "demo/nope": deployments.apps "nope" not found',
    );
    assertOneLineError(
      await kubefedctl(['federate', 'ns', 'nope', ...kc()]),
      'Error retrieving target Namespace "nope": namespaces "nope" not found',
    );
    assertOneLineError(
      await kubefedctl(['federate', 'nosuchtype', 'x', ...kc()]),
      'Failed to find target API resource nosuchtype: Unable to find api resource named "nosuchtype".',
    );
    assertOneLineError(
      await kubefedctl(['federate', 'svc', 'web', '-n', 'demo', '--contents', ...kc()]),
      "Flag '--contents' can only be used with type 'namespaces'.",
    );
    assertOneLineError(await kubefedctl(['federate', 'deploy', ...kc()]), 'RESOURCE-NAME is required');
    assertOneLineError(
      await kubefedctl(['federate', 'deploy', 'web', '-o', 'json', ...kc()]),
      'Invalid value for --output: json',
    );
    assert.deepEqual(await snapshot(host), before);
  });
});
