import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { FederatedTypeConfigType } from '../../src/api/core/v1beta1/index.ts';
import type { CustomResourceDefinition } from '../../src/api/crd.ts';
import { defaultFederatedTypes } from '../../src/federation-types/default-types.ts';
import type { FederatedTypeConfigObject } from '../../src/federation-types/federated-crd.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import {
  CoreTypes,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import { discoverApiResources } from '../../src/kube/discovery.ts';
import { lookupApiResource, targetSchemaInfo } from '../../src/kubefedctl/api-resources.ts';
import { disableType } from '../../src/kubefedctl/disable.ts';
import { binary } from '../../src/testing/binaries.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { type CliResult, kubefedctl, NS, prepareHost } from './helpers.ts';

const ETCD_FTC = 'etcdclusters.etcd.database.coreos.com';
const ETCD_FED_CRD = 'federatedetcdclusters.types.kubefed.io';
const FedEtcd: ResourceType = {
  group: 'types.kubefed.io',
  version: 'v1beta1',
  plural: 'federatedetcdclusters',
  namespaced: true,
  kind: 'FederatedEtcdCluster',
};

/** A CRD like the etcd operator's, with a schema that has spec.size (not replicas) and open fields. */
function crdFor(group: string, plural: string, kind: string, shortNames: string[] = []): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1beta2',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { size: { type: 'integer' }, version: { type: 'string' } },
                  'x-kubernetes-preserve-unknown-fields': true,
                },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

function assertOneLineError(r: CliResult, expected: string | RegExp): void {
  assert.equal(r.code, 1, `exit 1, got ${r.code}; stdout:\n${r.stdout}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  if (typeof expected === 'string') assert.equal(lines[0], `Error: ${expected}`);
  else assert.match(lines[0] ?? '', expected);
}

const lines = (r: CliResult) => r.stdout.trim().split('\n');

async function exists(
  host: KubeClient,
  type: ResourceType,
  name: string,
  namespace?: string,
): Promise<boolean> {
  try {
    await host.get(type, name, namespace);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

async function waitGone(
  host: KubeClient,
  type: ResourceType,
  name: string,
  namespace?: string,
): Promise<void> {
  await waitFor(`${type.plural} ${name} gone`, async () => !(await exists(host, type, name, namespace)), {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
}

async function waitEstablished(host: KubeClient, name: string): Promise<void> {
  await waitFor(`CRD ${name} established`, async () => {
    const c = await host.get<
      KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
    >(CoreTypes.crds, name);
    return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ?? false;
  });
}

function kubectl(fed: Federation, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      binary('kubectl'),
      ['--kubeconfig', fed.kubeconfigPath, '--context', 'host', ...args],
      { timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('kubefedctl enable / disable against a real kube-apiserver', () => {
  let fed: Federation;
  let host: KubeClient;
  const kc = () => ['--kubeconfig', fed.kubeconfigPath, '--host-cluster-context', 'host'];

  before(async () => {
    fed = await startFederation({ members: [] });
    host = fed.host.client();
  });
  after(async () => {
    await fed?.stop();
  });

  test('enable on a host without the KubeFed namespace fails with one line and writes nothing', async () => {
    const r = await kubefedctl(['enable', 'configmaps', ...kc()]);
    assertOneLineError(
      r,
      'KubeFed system namespace "kube-federation-system" does not exist. Is a KubeFed control plane running in this namespace?',
    );
    assert.equal(await exists(host, CoreTypes.crds, 'federatedconfigmaps.types.kubefed.io'), false);
  });

  test('every default federated type is accepted by the apiserver and listable like kubectl does', async () => {
    await prepareHost(host);
    await installControlPlane(host, NS, { defaultTypes: true });
    const { crds, ftcs } = defaultFederatedTypes(NS);
    for (const crd of crds) await waitEstablished(host, crd.metadata.name);
    for (const ftc of ftcs) {
      const got = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, ftc.metadata.name, NS);
      assert.deepEqual(got.spec, ftc.spec, ftc.metadata.name);
    }
    // Re-applying converges instead of failing.
    await installControlPlane(host, NS, { defaultTypes: true });

    // One object of each federated type, in a fresh namespace (FederatedNamespace must be named after it).
    await host.create(CoreTypes.namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo' },
    });
    for (const crd of crds) {
      const type = typeOf(crd);
      const name = crd.spec.names.kind === 'FederatedNamespace' ? 'demo' : 'x';
      const scalable = 'retainReplicas' in (schemaSpec(crd) ?? {});
      const spec = {
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { replicas: 2, anything: { nested: [1, 'two'] } },
        },
        placement: { clusters: [{ name: 'cluster1' }], clusterSelector: { matchLabels: { region: 'eu' } } },
        overrides: [{ clusterName: 'cluster1', clusterOverrides: [{ path: '/spec/replicas', value: 5 }] }],
        ...(scalable ? { retainReplicas: true } : {}),
      };
      const created = await host.create(type, {
        apiVersion: `${crd.spec.group}/v1beta1`,
        kind: crd.spec.names.kind,
        metadata: { name, namespace: type.namespaced ? 'demo' : undefined },
        spec,
      });
      assert.deepEqual(created.spec, spec, `${crd.spec.names.kind} keeps template, placement and overrides`);
      const list = await host.list(type, { namespace: type.namespaced ? 'demo' : undefined });
      assert.deepEqual(
        list.items.map((i) => i.metadata.name),
        [name],
      );
    }
    // The status subresource keeps the kubefed-ts aggregate, and the printer columns read it.
    const fdeploy = typeOf(crds.find((c) => c.spec.names.kind === 'FederatedDeployment')!);
    const current = await host.get(fdeploy, 'x', 'demo');
    await host.update(
      fdeploy,
      {
        ...current,
        status: {
          observedGeneration: 1,
          conditions: [{ type: 'Propagation', status: 'True' }],
          clusters: [{ name: 'cluster1', remoteStatus: { replicas: 5 } }],
          aggregate: { replicas: 5, readyReplicas: 4, availableReplicas: 3, healthyClusters: 1, clusters: 1 },
        },
      },
      { subresource: 'status' },
    );
    const table = await kubectl(fed, ['get', 'fdeploy', '-n', 'demo']);
    assert.equal(table.code, 0, table.stderr);
    const [head, row] = table.stdout.trim().split('\n');
    assert.deepEqual(head?.split(/\s+/), [
      'NAME',
      'PROPAGATED',
      'REPLICAS',
      'READY',
      'AVAILABLE',
      'HEALTHY-CLUSTERS',
      'CLUSTERS',
      'AGE',
    ]);
    assert.deepEqual(row?.split(/\s+/).slice(0, 7), ['x', 'True', '5', '4', '3', '1', '1']);
    for (const short of [
      'fcm',
      'fns',
      'fsvc',
      'fsa',
      'fing',
      'frs',
      'federatedjobs',
      'federatedclusterroles',
    ]) {
      const r = await kubectl(fed, ['get', short, '-A']);
      assert.equal(r.code, 0, `${short}: ${r.stderr}`);
      assert.match(r.stdout, /PROPAGATED/);
    }
  });

  test('built-in targets are judged through OpenAPI v3: deployments are scalable, jobs are not', async () => {
    const { resources } = await discoverApiResources(host);
    const info = async (name: string) => targetSchemaInfo(host, lookupApiResource(resources, name));
    assert.deepEqual(await info('deployments.apps'), { hasSchema: true, scalable: true });
    assert.deepEqual(await info('statefulsets'), { hasSchema: true, scalable: true });
    assert.deepEqual(await info('jobs'), { hasSchema: true, scalable: false });
    assert.deepEqual(await info('configmaps'), { hasSchema: true, scalable: false });
  });

  test('enable etcdclusters: a CRD target gets FederatedEtcdCluster (fetcd) and its FTC', async () => {
    await host.create(
      CoreTypes.crds,
      crdFor('etcd.database.coreos.com', 'etcdclusters', 'EtcdCluster', ['etcd']),
    );
    await waitEstablished(host, ETCD_FTC);

    const r = await kubefedctl(['enable', 'etcdclusters', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(lines(r), [
      `customresourcedefinition.apiextensions.k8s.io/${ETCD_FED_CRD} created`,
      `federatedtypeconfig.core.kubefed.io/${ETCD_FTC} created in namespace ${NS}`,
    ]);
    const ftc = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, ETCD_FTC, NS);
    assert.deepEqual(ftc.spec, {
      targetType: {
        group: 'etcd.database.coreos.com',
        version: 'v1beta2',
        kind: 'EtcdCluster',
        pluralName: 'etcdclusters',
        scope: 'Namespaced',
      },
      propagation: 'Enabled',
      federatedType: {
        group: 'types.kubefed.io',
        version: 'v1beta1',
        kind: 'FederatedEtcdCluster',
        pluralName: 'federatedetcdclusters',
        scope: 'Namespaced',
      },
    });
    const crd = await host.get<KubeObject & CustomResourceDefinition>(CoreTypes.crds, ETCD_FED_CRD);
    assert.deepEqual(crd.spec.names.shortNames, ['fetcd']);
    assert.equal(crd.spec.names.kind, 'FederatedEtcdCluster');
    const spec = schemaSpec(crd) ?? {};
    assert.ok('template' in spec, 'the CRD has a schema, so the template is declared');
    assert.ok(!('retainReplicas' in spec), 'spec.size is not spec.replicas');

    // An instance keeps its template (not pruned).
    const template = { spec: { size: 3, version: '3.5.0', extra: { kept: true } } };
    await host.create(FedEtcd, {
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedEtcdCluster',
      metadata: { name: 'db', namespace: 'demo' },
      spec: { template, placement: { clusters: [] } },
    });
    const got = await host.get<KubeObject & { spec: { template: unknown } }>(FedEtcd, 'db', 'demo');
    assert.deepEqual(got.spec.template, template);

    // Enabling again converges: both are updated, nothing else changes.
    const again = await kubefedctl(['enable', 'EtcdCluster', ...kc()]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(lines(again), [
      `customresourcedefinition.apiextensions.k8s.io/${ETCD_FED_CRD} updated`,
      `federatedtypeconfig.core.kubefed.io/${ETCD_FTC} updated in namespace ${NS}`,
    ]);
  });

  test('enable deployments.apps -o yaml prints the FTC and CRD and writes nothing', async () => {
    const before = await snapshot(host);
    const r = await kubefedctl(['enable', 'deployments.apps', '-o', 'yaml', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith('---\n'), r.stdout.slice(0, 40));
    const docs = parseAllDocuments(r.stdout).map(
      (d) => d.toJS() as KubeObject & { spec: Record<string, unknown> },
    );
    assert.equal(docs.length, 2);
    const [ftc, crd] = docs as [FederatedTypeConfigObject, KubeObject & CustomResourceDefinition];
    assert.equal(ftc.kind, 'FederatedTypeConfig');
    assert.equal(ftc.metadata.name, 'deployments.apps');
    assert.equal(crd.kind, 'CustomResourceDefinition');
    assert.equal(crd.metadata.name, 'federateddeployments.types.kubefed.io');
    assert.deepEqual(crd.spec.names.shortNames, ['fdeploy']);
    assert.deepEqual(schemaSpec(crd)?.['retainReplicas'], { type: 'boolean' }, 'scalable from OpenAPI v3');
    // Identical to what the default install wrote.
    const installed = defaultFederatedTypes(NS);
    assert.deepEqual(crd.spec, installed.crds.find((c) => c.metadata.name === crd.metadata.name)?.spec);

    // A type that is not enabled stays absent after -o yaml and after --dry-run.
    const sts = await kubefedctl(['enable', 'statefulsets', '-o', 'yaml', ...kc()]);
    assert.equal(sts.code, 0, sts.stderr);
    const dry = await kubefedctl(['enable', 'statefulsets', '--dry-run', ...kc()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(lines(dry), [
      'customresourcedefinition.apiextensions.k8s.io/federatedstatefulsets.types.kubefed.io created (dry run)',
      `federatedtypeconfig.core.kubefed.io/statefulsets.apps created in namespace ${NS} (dry run)`,
    ]);
    assert.deepEqual(await snapshot(host), before);
  });

  test('ambiguous and unknown names, and bad flags, are one-line errors with exit 1', async () => {
    await host.create(CoreTypes.crds, crdFor('a.example.com', 'widgets', 'Widget'));
    await host.create(CoreTypes.crds, crdFor('b.example.com', 'widgets', 'Widget'));
    await waitEstablished(host, 'widgets.a.example.com');
    await waitEstablished(host, 'widgets.b.example.com');
    const before = await snapshot(host);

    assertOneLineError(
      await kubefedctl(['enable', 'widgets', ...kc()]),
      'Multiple resources are matched by "widgets": widgets.a.example.com, widgets.b.example.com. A group-qualified plural name must be provided.',
    );
    assertOneLineError(
      await kubefedctl(['enable', 'nosuchtype', ...kc()]),
      'Unable to find api resource named "nosuchtype".',
    );
    assertOneLineError(
      await kubefedctl(['enable', 'configmaps', '-o', 'json', ...kc()]),
      'Invalid value for --output: json',
    );
    assertOneLineError(await kubefedctl(['enable', ...kc()]), 'NAME is required');
    assertOneLineError(
      await kubefedctl(['disable', 'configmaps', '--version', 'v1', ...kc()]),
      '--version flag valid only with --delete-crd',
    );
    assertOneLineError(
      await kubefedctl(['disable', 'configmaps', '--federated-group', 'x.example.io', ...kc()]),
      '--kubefed-group flag valid only with --delete-crd',
    );
    assert.deepEqual(await snapshot(host), before);

    // Group-qualified, the same name works.
    const ok = await kubefedctl([
      'enable',
      'widgets.b.example.com',
      '--federated-group',
      'b.types.example.io',
      ...kc(),
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(await exists(host, FederatedTypeConfigType, 'widgets.b.example.com', NS));
    assert.ok(await exists(host, CoreTypes.crds, 'federatedwidgets.b.types.example.io'));
  });

  test('enable refuses to change the federated type of an enabled type, and to share a federated CRD', async () => {
    const before = await snapshot(host);
    assertOneLineError(
      await kubefedctl(['enable', 'etcdclusters', '--federated-version', 'v1', ...kc()]),
      `Federation is already enabled for "etcdclusters.etcd.database.coreos.com/v1beta2" with federated type ` +
        `"federatedetcdclusters.types.kubefed.io/v1beta1". Changing the federated type to ` +
        `"federatedetcdclusters.types.kubefed.io/v1" is not supported.`,
    );
    // widgets.a.example.com would land in federatedwidgets.b.types.example.io, which widgets.b uses.
    assertOneLineError(
      await kubefedctl([
        'enable',
        'widgets.a.example.com',
        '--federated-group',
        'b.types.example.io',
        ...kc(),
      ]),
      'Failed to enable federation of "widgets.a.example.com" due to the FederatedTypeConfig for ' +
        '"widgets.b.example.com" already referencing a federated type CRD named "federatedwidgets.b.types.example.io". ' +
        'If these target types are distinct despite sharing the same kind, specifying a non-default ' +
        '--federated-group should allow "widgets.a.example.com" to be enabled.',
    );
    assert.deepEqual(await snapshot(host), before);
  });

  test('if the FTC cannot be written, the CRD enable created is deleted again', async () => {
    // A quota of zero FTCs makes admission reject the FTC after the CRD is written. No quota controller runs
    // here, so the status (which admission enforces) is written by hand.
    const quota: ResourceType = { group: '', version: 'v1', plural: 'resourcequotas', namespaced: true };
    const limit = { 'count/federatedtypeconfigs.core.kubefed.io': '0' };
    const q = await host.create(quota, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'no-ftcs', namespace: NS },
      spec: { hard: limit },
    });
    await host.update(quota, { ...q, status: { hard: limit, used: limit } }, { subresource: 'status' });
    // Quota admission reads quotas from an informer: give it a moment to see the new one.
    await new Promise((r) => setTimeout(r, 1000));
    try {
      const file = join(fed.dir, 'statefulsets-directive.yaml');
      writeFileSync(
        file,
        'apiVersion: core.kubefed.io/v1beta1\nkind: EnableTypeDirective\nmetadata:\n  name: statefulsets\n',
      );
      const r = await kubefedctl(['enable', '-f', file, ...kc()]);
      assertOneLineError(
        r,
        /^Error: Error creating FederatedTypeConfig "statefulsets\.apps": .*exceeded quota.* \(CRD "federatedstatefulsets\.types\.kubefed\.io" deleted again\)$/,
      );
      assert.deepEqual(lines(r), [
        'customresourcedefinition.apiextensions.k8s.io/federatedstatefulsets.types.kubefed.io created',
      ]);
      await waitGone(host, CoreTypes.crds, 'federatedstatefulsets.types.kubefed.io');
      assert.equal(await exists(host, FederatedTypeConfigType, 'statefulsets.apps', NS), false);
    } finally {
      await host.delete(quota, 'no-ftcs', { namespace: NS });
    }
    // From the same directive file, once admission no longer sees the quota, it works.
    const file = join(fed.dir, 'statefulsets-directive.yaml');
    let last: CliResult | undefined;
    await waitFor(
      'enable -f to succeed without the quota',
      async () => {
        last = await kubefedctl(['enable', '-f', file, ...kc()]);
        return last.code === 0;
      },
      { timeoutMs: 45_000, intervalMs: 1000, describe: () => last?.stderr ?? '' },
    );
    assert.ok(await exists(host, FederatedTypeConfigType, 'statefulsets.apps', NS));
  });

  test('disable etcdclusters --delete-crd is refused while an instance exists, and changes nothing', async () => {
    const before = await snapshot(host);
    const r = await kubefedctl(['disable', 'etcdclusters', '--delete-crd', ...kc()]);
    assertOneLineError(
      r,
      `Cannot delete CRD "${ETCD_FED_CRD}" while resource instances exist. Please try kubefedctl disable again ` +
        `after removing the resource instances or without the '--delete-crd' option`,
    );
    assert.equal(r.stdout, '');
    assert.deepEqual(await snapshot(host), before);
    const ftc = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, ETCD_FTC, NS);
    assert.equal(ftc.spec.propagation, 'Enabled');
    assert.ok(await exists(host, FedEtcd, 'db', 'demo'));
  });

  test('disable waits for the FTC controller to report NotRunning, deletes the CRD, then the FTC', async () => {
    await host.delete(FedEtcd, 'db', { namespace: 'demo' });
    await waitGone(host, FedEtcd, 'db', 'demo');
    // No controller manager runs here: play the FTC controller by reporting the sync controller stopped.
    const ftc = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, ETCD_FTC, NS);
    await host.update(
      FederatedTypeConfigType,
      { ...ftc, status: { observedGeneration: 1, propagationController: 'NotRunning' } },
      { subresource: 'status' },
    );
    const q = `"${NS}/${ETCD_FTC}"`;
    const r = await kubefedctl(['disable', 'etcdclusters', '--delete-crd', ...kc()]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r), [
      `Disabled propagation for FederatedTypeConfig ${q}`,
      `Verifying propagation controller is stopped for FederatedTypeConfig ${q}`,
      `Propagation controller for FederatedTypeConfig ${q} is stopped`,
      `customresourcedefinition "${ETCD_FED_CRD}" deleted`,
      `federatedtypeconfig ${q} deleted`,
    ]);
    await waitGone(host, CoreTypes.crds, ETCD_FED_CRD);
    await waitGone(host, FederatedTypeConfigType, ETCD_FTC, NS);

    const again = await kubefedctl(['disable', ETCD_FTC, ...kc()]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(lines(again), [`FederatedTypeConfig ${q} does not exist`]);
  });

  test('disable gives up with a clear error when the propagation controller never stops', async () => {
    await assert.rejects(
      disableType({ host, namespace: NS, name: 'configmaps', stopTimeoutMs: 500 }),
      /^CommandError: Timed out waiting for propagation controller for FederatedTypeConfig "kube-federation-system\/configmaps" to stop$/,
    );
    // Propagation is off, but nothing was deleted.
    const ftc = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, 'configmaps', NS);
    assert.equal(ftc.spec.propagation, 'Disabled');
    assert.ok(await exists(host, CoreTypes.crds, 'federatedconfigmaps.types.kubefed.io'));
  });
});

function typeOf(crd: CustomResourceDefinition): ResourceType {
  return {
    group: crd.spec.group,
    version: crd.spec.versions[0]?.name ?? '',
    plural: crd.spec.names.plural,
    namespaced: crd.spec.scope === 'Namespaced',
    kind: crd.spec.names.kind,
  };
}

function schemaSpec(crd: CustomResourceDefinition) {
  return crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.['spec']?.properties;
}

/** Names and resourceVersions of every CRD and FTC: equal snapshots mean nothing was written. */
async function snapshot(host: KubeClient): Promise<string[]> {
  const [crds, ftcs] = await Promise.all([
    host.list(CoreTypes.crds),
    host.list(FederatedTypeConfigType, { namespace: NS }),
  ]);
  return [
    ...crds.items.map((c) => `crd/${c.metadata.name}@${c.metadata.resourceVersion}`),
    ...ftcs.items.map((f) => `ftc/${f.metadata.name}@${f.metadata.resourceVersion}`),
  ].sort();
}
