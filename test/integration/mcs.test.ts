import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CLUSTER_ID_PROPERTY,
  CLUSTERSET_PROPERTY,
  LEGACY_CLUSTER_ID_PROPERTY,
} from '../../src/api/about/v1alpha1/index.ts';
import {
  LABEL_SOURCE_CLUSTER,
  ServiceExportType,
  ServiceImportType,
} from '../../src/api/mcs/v1beta1/index.ts';
import { CoreTypes, type KubeClient } from '../../src/kube/client/index.ts';
import { binary } from '../../src/testing/binaries.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  apiserverWrites,
  consistently,
  eventually,
  getOrUndefined,
  writesBetween,
} from './federation-helpers.ts';
import { NS } from './helpers.ts';
import {
  assertIpsMatchFamilies,
  awaitAvailable,
  awaitExportCondition,
  awaitImport,
  awaitNoImport,
  CLUSTERSET,
  clusterProperty,
  createNamespace,
  Deployments,
  DUAL_STACK_SERVICE_RANGE,
  deleteAndWait,
  dualStackNodes,
  EndpointSlices,
  getImport,
  helloDeployment,
  helloExport,
  helloService,
  type ImportObject,
  MANAGED_BY,
  MEMBER_LEASE,
  mcsSlices,
  type PodObject,
  type Port,
  pastTimestampResolution,
  readyPodIps,
  type ServiceObject,
  Services,
  type SliceObject,
  setClusterProperty,
  sortPorts,
  startMcs,
  TCP_42,
  UDP_42,
} from './mcs-fixtures.ts';

/*
 * Issue 17's acceptance on real apiservers: the mcs-api conformance suite's API-level specs 1–16
 * (conformance/service_import.go, endpoint_slice.go) with its objects, on three members. cluster1 and
 * cluster2 run pods (kube-controller-manager, scheduler, kwok) and are dual-stack; cluster3 runs no pods.
 * cluster2's administrator set the legacy `id.k8s.io` ClusterProperty, so its cluster id is ADMIN_ID.
 * Each test has its own namespace, created only in the members it names (namespace sameness).
 */

const ADMIN_ID = 'admin-two';

/** JSON with object keys sorted at every level: comparisons independent of insertion order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : x,
  );
}
const FAMILIES = ['IPv4', 'IPv6'];
/** What only the MCS controller writes in a member (kwok and kube-controller-manager write pods and their slices). */
const MCS_RESOURCES = [
  'serviceimports',
  'serviceimports/status',
  'serviceexports',
  'serviceexports/status',
  'services',
  'clusterproperties',
  'namespaces',
];

describe('Multi-Cluster Services (KEP-1645) on kwok members: conformance specs 1–16 and issue 17', () => {
  let fed: Federation;
  let cm: ControllerManagerProcess;
  let joinInstalledCrds: Record<string, boolean>;
  let c1: KubeClient;
  let c2: KubeClient;
  let c3: KubeClient;
  const clusterIds: Record<string, string> = {
    cluster1: 'cluster1',
    cluster2: ADMIN_ID,
    cluster3: 'cluster3',
  };

  before(async () => {
    fed = await startFederation({
      members: ['cluster1', 'cluster2', 'cluster3'],
      workloads: ['cluster1', 'cluster2'],
      hostControllers: 'tokens',
      memberServiceClusterIpRange: DUAL_STACK_SERVICE_RANGE,
      nodes: (c) => dualStackNodes(c, Number(c.replace('cluster', ''))),
    });
    ({ cm, joinInstalledCrds } = await startMcs(fed, {
      preinstall: ['cluster1', 'cluster2'],
      beforeJoin: async (f) =>
        setClusterProperty(f.cluster('cluster2').client(), LEGACY_CLUSTER_ID_PROPERTY, ADMIN_ID),
    }));
    [c1, c2, c3] = ['cluster1', 'cluster2', 'cluster3'].map((n) => fed.cluster(n).client()) as [
      KubeClient,
      KubeClient,
      KubeClient,
    ];
  });
  after(async () => {
    // A controller manager that fails to stop must not leave the apiservers running.
    try {
      await cm?.process.stop();
    } finally {
      await fed?.stop();
    }
  });

  /** A namespace in the given members, the hello Service (and optionally pods) where asked. */
  async function namespaceIn(ns: string, members: KubeClient[]): Promise<void> {
    for (const m of members) await createNamespace(m, ns);
  }

  test('join installs the MCS CRDs into a member', () => {
    assert.deepEqual(joinInstalledCrds, { cluster3: true });
  });

  test('specs 4, 5, 8, 9: a dual-stack ClusterIP export → ClusterSetIP imports where the namespace exists; unexport removes them', async () => {
    const ns = 'mcs-clusterip';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns));
    const svc = await c1.get<ServiceObject>(Services, 'hello', ns);
    assert.deepEqual(svc.spec.ipFamilies, FAMILIES, 'the member is dual-stack');
    await c1.create(ServiceExportType, helloExport(ns));

    await awaitExportCondition(c1, ns, 'Valid', 'True', (r) => r === 'Valid');
    const imports: Record<string, ImportObject> = {};
    for (const [name, m] of [
      ['cluster1', c1],
      ['cluster2', c2],
    ] as const) {
      const i = await awaitImport(m, ns, 'with ClusterSetIP and ips', (x) => (x.spec?.ips?.length ?? 0) > 0);
      imports[name] = i;
      assert.equal(i.spec?.type, 'ClusterSetIP', `${name} type`);
      assert.deepEqual(sortPorts(i.spec?.ports), sortPorts([TCP_42, UDP_42]), `${name} ports`);
      assert.equal(i.spec?.sessionAffinity, 'ClientIP', `${name} sessionAffinity`);
      assert.deepEqual(
        i.spec?.sessionAffinityConfig,
        { clientIP: { timeoutSeconds: 10 } },
        `${name} affinity config`,
      );
      assert.deepEqual(i.spec?.ipFamilies, FAMILIES, `${name} ipFamilies`);
      assertIpsMatchFamilies(i, FAMILIES, name);
      // The clusterset IPs are the clusterIPs of the derived Service that selects nothing.
      const derived = await getOrUndefined<ServiceObject>(m, Services, 'derived-hello', ns);
      assert.ok(derived, `${name} has the derived Service`);
      assert.deepEqual(i.spec?.ips, derived.spec.clusterIPs, `${name}: ips = the derived Service clusterIPs`);
      assert.equal(derived.spec['selector'], undefined, `${name}: the derived Service selects nothing`);
    }
    await awaitExportCondition(c1, ns, 'Conflict', 'False', (r) => r === 'NoConflicts');
    await awaitExportCondition(c1, ns, 'Ready', 'True');
    // Namespace sameness: no namespace, no import.
    assert.equal(
      (await c3.list(ServiceImportType)).items.filter((x) => x.metadata.namespace === ns).length,
      0,
      'cluster3 has no namespace and no ServiceImport',
    );
    // Once the namespace exists there, so does the import.
    await createNamespace(c3, ns);
    const i3 = await awaitImport(
      c3,
      ns,
      'after its namespace appeared',
      (x) => (x.spec?.ips?.length ?? 0) === 2,
    );
    assertIpsMatchFamilies(i3, FAMILIES, 'cluster3');

    await deleteAndWait(c1, ServiceExportType, ns);
    for (const m of [c1, c2, c3]) await awaitNoImport(m, ns, 'after unexport');
    for (const m of [c1, c2, c3]) {
      assert.equal(
        await getOrUndefined(m, Services, 'derived-hello', ns),
        undefined,
        `${m.name}: derived Service gone`,
      );
    }
  });

  test('spec 1: a ServiceImport exists as long as one cluster exports; its ips stay stable meanwhile', async () => {
    const ns = 'mcs-lifetime';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns));
    await c1.create(ServiceExportType, helloExport(ns));
    const first = await awaitImport(c2, ns, 'from cluster1', (x) => (x.spec?.ips?.length ?? 0) > 0);
    await pastTimestampResolution();
    await c2.create(Services, helloService(ns));
    await c2.create(ServiceExportType, helloExport(ns));
    await awaitExportCondition(c2, ns, 'Valid', 'True');
    await eventually(
      'status.clusters lists both exporters',
      () => getImport(c2, ns),
      (i) =>
        JSON.stringify((i?.status?.clusters ?? []).map((c) => c.cluster).sort()) ===
        JSON.stringify([ADMIN_ID, 'cluster1']),
    );
    const before1 = await awaitImport(c1, ns, 'in the first exporter');
    await deleteAndWait(c1, ServiceExportType, ns);
    // Conformance's ensureServiceImport: it keeps existing (same object) in both, exporters included.
    await consistently(
      'the same imports stay in both members while cluster2 exports',
      async () => [(await getImport(c1, ns))?.metadata.uid, (await getImport(c2, ns))?.metadata.uid],
      ([u1, u2]) => u1 === before1.metadata.uid && u2 === first.metadata.uid,
      3000,
    );
    const now = await getImport(c2, ns);
    assert.deepEqual(now?.spec?.ips, first.spec?.ips, 'the clusterset ips are stable for the import life');
    await deleteAndWait(c2, ServiceExportType, ns);
    for (const m of [c1, c2]) await awaitNoImport(m, ns, 'after the last export went');
  });

  test('specs 6, 7: internalTrafficPolicy and trafficDistribution are copied', async () => {
    const ns = 'mcs-policies';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(
      Services,
      helloService(ns, { internalTrafficPolicy: 'Local', trafficDistribution: 'PreferClose' }),
    );
    await c1.create(ServiceExportType, helloExport(ns));
    for (const m of [c1, c2]) {
      const i = await awaitImport(
        m,
        ns,
        'with the traffic policies',
        (x) => x.spec?.internalTrafficPolicy !== undefined,
      );
      assert.equal(i.spec?.internalTrafficPolicy, 'Local', `${m.name} internalTrafficPolicy`);
      assert.equal(i.spec?.trafficDistribution, 'PreferClose', `${m.name} trafficDistribution`);
    }
    await deleteAndWait(c1, ServiceExportType, ns);
  });

  test('spec 2: only exported labels and annotations reach the ServiceImport', async () => {
    const ns = 'mcs-labels';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns));
    await c1.create(
      ServiceExportType,
      helloExport(ns, {
        exportedLabels: { 'dummy-label': 'true' },
        exportedAnnotations: { 'dummy-annotation': 'true' },
      }),
    );
    for (const m of [c1, c2]) {
      const i = await awaitImport(
        m,
        ns,
        'with the exported label',
        (x) => x.metadata.labels?.['dummy-label'] === 'true',
      );
      assert.equal(i.metadata.annotations?.['dummy-annotation'], 'true', `${m.name}: exported annotation`);
      for (const k of ['dummy-svc', 'dummy-svcexport']) {
        assert.equal(i.metadata.labels?.[k], undefined, `${m.name}: label ${k} is not exported`);
        assert.equal(i.metadata.annotations?.[k], undefined, `${m.name}: annotation ${k} is not exported`);
      }
    }
    await deleteAndWait(c1, ServiceExportType, ns);
  });

  test('spec 3: conflicting exported labels and annotations → the oldest wins, Conflict=True on both', async () => {
    const ns = 'mcs-label-conflict';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns));
    await c2.create(Services, helloService(ns));
    await c1.create(
      ServiceExportType,
      helloExport(ns, {
        exportedLabels: { 'dummy-label': 'true' },
        exportedAnnotations: { 'dummy-annotation': 'true' },
      }),
    );
    await pastTimestampResolution();
    await c2.create(
      ServiceExportType,
      helloExport(ns, {
        exportedLabels: { 'dummy-label2': 'true' },
        exportedAnnotations: { 'dummy-annotation2': 'true' },
      }),
    );
    for (const m of [c1, c2]) {
      const c = await awaitExportCondition(m, ns, 'Conflict', 'True');
      assert.match(c.reason ?? '', /LabelsConflict/, `${m.name}: reason ${c.reason}`);
      assert.match(c.reason ?? '', /AnnotationsConflict/, `${m.name}: reason ${c.reason}`);
      assert.match(c.message ?? '', /cluster1/, `${m.name}: the message names the oldest export's cluster`);
    }
    for (const m of [c1, c2]) {
      const i = await awaitImport(
        m,
        ns,
        "with the oldest export's labels",
        (x) => x.metadata.labels?.['dummy-label'] === 'true',
      );
      assert.equal(i.metadata.annotations?.['dummy-annotation'], 'true');
      assert.equal(i.metadata.labels?.['dummy-label2'], undefined);
      assert.equal(i.metadata.annotations?.['dummy-annotation2'], undefined);
    }
    await deleteAndWait(c2, ServiceExportType, ns);
    await deleteAndWait(c1, ServiceExportType, ns);
  });

  test('spec 10: two exports expose the union of their ports (SCTP 142 added)', async () => {
    const ns = 'mcs-port-union';
    await namespaceIn(ns, [c1, c2]);
    const stcp = { name: 'stcp', port: 142, protocol: 'SCTP' as const };
    await c1.create(Services, helloService(ns));
    await c1.create(ServiceExportType, helloExport(ns));
    await awaitImport(c1, ns, 'from cluster1');
    await pastTimestampResolution();
    await c2.create(Services, helloService(ns, { ports: [TCP_42, stcp] }));
    await c2.create(ServiceExportType, helloExport(ns));
    for (const m of [c1, c2]) {
      await awaitImport(
        m,
        ns,
        'with the union of ports',
        (x) => JSON.stringify(sortPorts(x.spec?.ports)) === JSON.stringify(sortPorts([TCP_42, UDP_42, stcp])),
      );
    }
    // The derived Service carries the union too, so kube-proxy programs every port.
    const derived = await c2.get<ServiceObject>(Services, 'derived-hello', ns);
    assert.deepEqual(sortPorts(derived.spec['ports'] as Port[]), sortPorts([TCP_42, UDP_42, stcp]));
    await deleteAndWait(c2, ServiceExportType, ns);
    await deleteAndWait(c1, ServiceExportType, ns);
  });

  test('spec 11: the same port name with another port → the oldest wins, Conflict=True/PortConflict on both', async () => {
    const ns = 'mcs-port-conflict';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns));
    await c1.create(ServiceExportType, helloExport(ns));
    await awaitImport(c1, ns, 'from cluster1');
    await pastTimestampResolution();
    await c2.create(Services, helloService(ns, { ports: [{ ...TCP_42, port: 43 }] }));
    await c2.create(ServiceExportType, helloExport(ns));
    for (const m of [c1, c2]) {
      const c = await awaitExportCondition(m, ns, 'Conflict', 'True');
      assert.match(c.reason ?? '', /PortConflict/, `${m.name}: reason`);
    }
    for (const m of [c1, c2]) {
      const i = await awaitImport(m, ns, 'with the oldest ports');
      assert.deepEqual(sortPorts(i.spec?.ports), sortPorts([TCP_42, UDP_42]), `${m.name} ports`);
    }
    // Resolving the conflict clears the condition on both.
    await deleteAndWait(c2, ServiceExportType, ns);
    await awaitExportCondition(c1, ns, 'Conflict', 'False');
    await deleteAndWait(c1, ServiceExportType, ns);
  });

  test('specs 12, 13: a headless export → Headless imports with no ips (for 5 s); unexport removes them', async () => {
    const ns = 'mcs-headless';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns, { clusterIP: 'None' }));
    await c1.create(ServiceExportType, helloExport(ns));
    for (const m of [c1, c2]) {
      const i = await awaitImport(m, ns, 'of type Headless', (x) => x.spec?.type === 'Headless');
      assert.equal(i.spec?.type, 'Headless');
    }
    await consistently(
      'a headless import never gets ips',
      () => getImport(c2, ns),
      (i) => (i?.spec?.ips ?? []).length === 0,
      5000,
    );
    assert.equal(
      await getOrUndefined(c2, Services, 'derived-hello', ns),
      undefined,
      'no derived Service for headless',
    );
    await deleteAndWait(c1, ServiceExportType, ns);
    for (const m of [c1, c2]) await awaitNoImport(m, ns, 'after unexport');
  });

  test('spec 14 and NoService: bad exports are Valid=False, get no import, and do not block a good service', async () => {
    const ns = 'mcs-invalid';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(
      Services,
      helloService(ns, { type: 'ExternalName', externalName: 'example.com', ipFamilyPolicy: undefined }),
    );
    await c1.create(ServiceExportType, helloExport(ns));
    await c1.create(ServiceExportType, helloExport(ns, {}, 'nothing'));
    await c1.create(Services, helloService(ns, {}, 'good'));
    await c1.create(ServiceExportType, helloExport(ns, {}, 'good'));
    await awaitExportCondition(c1, ns, 'Valid', 'False', (r) => r === 'InvalidServiceType');
    await awaitExportCondition(c1, ns, 'Valid', 'False', (r) => r === 'NoService', 'nothing');
    await awaitImport(
      c2,
      ns,
      'of the good service beside bad exports',
      (x) => (x.spec?.ips?.length ?? 0) === 2,
      'good',
    );
    await consistently(
      'no import for ExternalName or a missing Service',
      async () => [await getImport(c1, ns), await getImport(c2, ns), await getImport(c2, ns, 'nothing')],
      (v) => v.every((x) => x === undefined),
      5000,
    );
    // A Service that appears later makes the export valid.
    await c1.create(Services, helloService(ns, {}, 'nothing'));
    await awaitExportCondition(c1, ns, 'Valid', 'True', () => true, 'nothing');
    await awaitImport(c2, ns, 'once its Service exists', () => true, 'nothing');
  });

  test('spec 15: headless vs ClusterIP → the oldest type, Conflict=True on both; another service propagates meanwhile', async () => {
    const ns = 'mcs-type-conflict';
    await namespaceIn(ns, [c1, c2]);
    await c1.create(Services, helloService(ns));
    await c1.create(ServiceExportType, helloExport(ns));
    await awaitImport(c1, ns, 'from cluster1');
    await pastTimestampResolution();
    await c2.create(Services, helloService(ns, { clusterIP: 'None' }));
    await c2.create(ServiceExportType, helloExport(ns));
    for (const m of [c1, c2]) {
      const c = await awaitExportCondition(m, ns, 'Conflict', 'True');
      assert.match(c.reason ?? '', /TypeConflict/, `${m.name}: reason`);
      assert.match(c.message ?? '', /ClusterSetIP/, `${m.name}: the message says what won`);
    }
    await c2.create(Services, helloService(ns, {}, 'other'));
    await c2.create(ServiceExportType, helloExport(ns, {}, 'other'));
    await awaitImport(
      c1,
      ns,
      'of another service while hello conflicts',
      (x) => (x.spec?.ips?.length ?? 0) === 2,
      'other',
    );
    for (const m of [c1, c2]) {
      const i = await awaitImport(m, ns, 'of the oldest type');
      assert.equal(i.spec?.type, 'ClusterSetIP', `${m.name}`);
    }
  });

  describe('EndpointSlices (spec 16) from two source clusters', () => {
    const ns = 'mcs-eps';

    /** Per member: the MCS slices as {source cluster: {family: sorted ready addresses}}. */
    async function slicesBySource(m: KubeClient): Promise<Record<string, Record<string, string[]>>> {
      const out: Record<string, Record<string, string[]>> = {};
      for (const s of await mcsSlices(m, ns)) {
        const src = s.metadata.labels?.[LABEL_SOURCE_CLUSTER] ?? '?';
        const byFamily = out[src] ?? {};
        out[src] = byFamily;
        byFamily[s.addressType] = [
          ...(byFamily[s.addressType] ?? []),
          ...(s.endpoints ?? []).flatMap((e) => e.addresses),
        ].sort();
      }
      return out;
    }
    async function expected(): Promise<Record<string, Record<string, string[]>>> {
      const out: Record<string, Record<string, string[]>> = {};
      for (const [name, m] of [
        ['cluster1', c1],
        ['cluster2', c2],
      ] as const) {
        const ips = await readyPodIps(m, ns);
        if ((ips['IPv4'] ?? []).length > 0) out[clusterIds[name] ?? name] = ips;
      }
      return out;
    }
    async function awaitSlicesFollowPods(what: string): Promise<void> {
      const want = await expected();
      for (const m of [c1, c2, c3]) {
        await eventually(
          `${m.name}: MCS slices ${what}: ${JSON.stringify(want)}`,
          () => slicesBySource(m),
          (got) => canonical(got) === canonical(want),
          60_000,
        );
      }
    }

    before(async () => {
      await namespaceIn(ns, [c1, c2, c3]);
      await c1.create(Deployments, helloDeployment(ns, 2));
      await c2.create(Deployments, helloDeployment(ns, 1));
      await c1.create(Services, helloService(ns));
      await c2.create(Services, helloService(ns));
      await awaitAvailable(c1, ns, 2);
      await awaitAvailable(c2, ns, 1);
      await c1.create(ServiceExportType, helloExport(ns));
      await pastTimestampResolution();
      await c2.create(ServiceExportType, helloExport(ns));
    });

    test('one slice per source cluster and family, of the right shape, in every member', async () => {
      await awaitSlicesFollowPods('from both sources');
      for (const m of [c1, c2, c3]) {
        const imp = await awaitImport(m, ns, 'for the slices');
        const slices = await mcsSlices(m, ns);
        assert.equal(
          slices.length,
          4,
          `${m.name}: 2 sources × 2 families ${JSON.stringify(slices.map((s) => s.metadata.name))}`,
        );
        for (const s of slices) {
          const l = s.metadata.labels ?? {};
          const what = `${m.name} ${s.metadata.name}`;
          assert.ok(
            [clusterIds['cluster1'], ADMIN_ID].includes(l[LABEL_SOURCE_CLUSTER]),
            `${what}: source-cluster ${l[LABEL_SOURCE_CLUSTER]}`,
          );
          assert.equal(l['endpointslice.kubernetes.io/managed-by'], MANAGED_BY, `${what}: managed-by`);
          assert.notEqual(l['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
          assert.equal(
            l['kubernetes.io/service-name'],
            'derived-hello',
            `${what}: owned by the derived Service for kube-proxy`,
          );
          const owners = (s.metadata.ownerReferences ?? []) as Array<{
            kind?: string;
            name?: string;
            uid?: string;
            controller?: boolean;
          }>;
          assert.equal(owners.length, 1, `${what}: ${JSON.stringify(owners)}`);
          assert.equal(owners[0]?.kind, 'ServiceImport');
          assert.equal(owners[0]?.name, 'hello');
          assert.equal(owners[0]?.uid, imp.metadata.uid, `${what}: owner is this member's ServiceImport`);
          assert.notEqual(owners[0]?.controller, true, `${what}: not a controller reference`);
          assert.ok((s.endpoints ?? []).length > 0, `${what}: has endpoints`);
          assert.ok(
            (s.endpoints ?? []).every((e) => e.conditions?.ready === true),
            `${what}: ready endpoints only`,
          );
          assert.deepEqual(sortPorts(s.ports), sortPorts([TCP_42, UDP_42]), `${what}: ports`);
        }
      }
    });

    test('endpoints follow the pods: an unready pod leaves, a new replica joins', async () => {
      const pods = await c1.list<PodObject>(CoreTypes.pods, { namespace: ns, labelSelector: 'app=hello' });
      const victim = pods.items[0];
      assert.ok(victim);
      // kwok's pod-ready stage only acts on Pending pods, so a Running pod made unready stays unready.
      await c1.patch(
        CoreTypes.pods,
        victim.metadata.name ?? '',
        { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'TestUnready' }] } },
        { namespace: ns, subresource: 'status', patchType: 'strategic' },
      );
      await eventually(
        'cluster1 has one ready pod',
        () => readyPodIps(c1, ns),
        (ips) => ips['IPv4']?.length === 1,
      );
      await awaitSlicesFollowPods('without the unready pod');
      const gone = (victim.status?.podIPs ?? []).map((p) => p.ip);
      for (const m of [c1, c2, c3]) {
        const all = (await mcsSlices(m, ns)).flatMap((s) => (s.endpoints ?? []).flatMap((e) => e.addresses));
        for (const ip of gone)
          assert.ok(!all.includes(ip), `${m.name}: ${ip} of the unready pod is not published`);
      }
      await c2.patch(Deployments, 'hello', { spec: { replicas: 2 } }, { namespace: ns });
      await awaitAvailable(c2, ns, 2);
      await awaitSlicesFollowPods('with the new replica');
    });

    test("unexport in one source removes its slices everywhere, the other's remain", async () => {
      await deleteAndWait(c1, ServiceExportType, ns);
      for (const m of [c1, c2, c3]) {
        await eventually(
          `${m.name}: only ${ADMIN_ID}'s slices`,
          () => slicesBySource(m),
          (got) => JSON.stringify(Object.keys(got)) === JSON.stringify([ADMIN_ID]),
        );
      }
      await c1.create(ServiceExportType, helloExport(ns));
      await awaitSlicesFollowPods('after re-export');
    });
  });

  test('ClusterProperties (while services are exported): the cluster id and the clusterset in each member; an admin-set id.k8s.io is the id', async () => {
    for (const [name, client] of [
      ['cluster1', c1],
      ['cluster2', c2],
      ['cluster3', c3],
    ] as const) {
      await eventually(
        `${name}: ClusterProperties ${CLUSTER_ID_PROPERTY} and ${CLUSTERSET_PROPERTY}`,
        async () => ({
          id: await clusterProperty(client, CLUSTER_ID_PROPERTY),
          set: await clusterProperty(client, CLUSTERSET_PROPERTY),
        }),
        (v) => v.id === clusterIds[name] && v.set === CLUSTERSET,
      );
    }
    assert.equal(
      await clusterProperty(c2, LEGACY_CLUSTER_ID_PROPERTY),
      ADMIN_ID,
      'the admin-set property is kept',
    );
  });

  test('kubectl get serviceexports,serviceimports shows the printer columns', async () => {
    const ns = 'mcs-eps';
    await eventually(
      'status.clusters of the import lists both exporters',
      () => getImport(c1, ns),
      (i) => (i?.status?.clusters ?? []).length === 2,
    );
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        binary('kubectl'),
        [
          '--kubeconfig',
          fed.kubeconfigPath,
          '--context',
          'cluster1',
          '-n',
          ns,
          'get',
          'serviceexports,serviceimports',
        ],
        { timeout: 30_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    assert.match(out, /NAME\s+VALID\s+CONFLICT\s+READY\s+AGE/, out);
    assert.match(out, /serviceexport\.multicluster\.x-k8s\.io\/hello\s+True\s+False\s+True\s+\S+/, out);
    assert.match(out, /NAME\s+TYPE\s+IP\s+CLUSTERS\s+AGE/, out);
    assert.match(
      out,
      /serviceimport\.multicluster\.x-k8s\.io\/hello\s+ClusterSetIP\s+.*10\.0\.0\.\d+.*fd00:10:96::.*(cluster1.*admin-two|admin-two.*cluster1)/,
      out,
    );
  });

  test('a resync and a controller restart write nothing to members when nothing changed', async () => {
    const members = [c1, c2, c3];
    // Settle: the last test's writes are done once the slices match the pods.
    await eventually(
      'quiet start',
      () => slicesOf(c3),
      (n) => n === 4,
    );
    await new Promise((r) => setTimeout(r, 3000));
    const quiet = await Promise.all(members.map((m) => apiserverWrites(m)));
    // Longer than the endpoint lease and the cluster health period: whatever the controller re-checks runs.
    await new Promise((r) => setTimeout(r, 12_000));
    const afterWait = await Promise.all(members.map((m) => apiserverWrites(m)));
    members.forEach((m, i) => {
      assert.deepEqual(
        writesBetween(quiet[i] as Map<string, number>, afterWait[i] as Map<string, number>, MCS_RESOURCES),
        {},
        `${m.name}: writes while nothing changed`,
      );
    });
    const ns = 'mcs-restart';
    await namespaceIn(ns, [c1]);
    const exported = [
      ...new Set(
        (await Promise.all(members.map((m) => m.list(ServiceExportType)))).flatMap((l) =>
          l.items.map((x) => `${x.metadata.namespace}/${x.metadata.name}`),
        ),
      ),
    ].sort();
    assert.ok(exported.length > 0, 'exports to reconcile after the restart');
    const restartLog = join(fed.dir, 'kubefed-controller-manager-2.log');
    const beforeRestart = await Promise.all(members.map((m) => apiserverWrites(m)));
    const slicesBeforeRestart = await Promise.all(members.map((m) => mcsSliceVersions(m)));
    await cm.process.stop();
    cm = await startKubefedControllerManager({
      kubeconfig: fed.kubeconfigPath,
      context: 'host',
      namespace: NS,
      logFile: restartLog,
      args: [
        '--member-deletion-timeout=8s',
        `--mcs-endpoint-lease=${MEMBER_LEASE}`,
        `--clusterset-name=${CLUSTERSET}`,
      ],
      // The per-service debug line is the evidence that its first pass looked at every export.
      env: { LOG_LEVEL: 'debug' },
    });
    await eventually(
      'the restarted controller manager to have reconciled every exported service with all members loaded',
      async () => {
        const seen = await reconciledServices(restartLog);
        return exported.filter((k) => !seen.has(k));
      },
      (missing) => missing.length === 0,
      90_000,
    );
    // Its writes, if any, follow the reconcile line at once; a window longer than a dispatch catches them.
    await new Promise((r) => setTimeout(r, 5_000));
    const afterRestart = await Promise.all(members.map((m) => apiserverWrites(m)));
    members.forEach((m, i) => {
      assert.deepEqual(
        writesBetween(
          beforeRestart[i] as Map<string, number>,
          afterRestart[i] as Map<string, number>,
          MCS_RESOURCES,
        ),
        {},
        `${m.name}: writes after a restart with nothing changed`,
      );
    });
    // EndpointSlices are left out of the counts (the members' own endpoint controllers write theirs): the
    // MCS slices must be the very same objects.
    const slicesAfterRestart = await Promise.all(members.map((m) => mcsSliceVersions(m)));
    members.forEach((m, i) => {
      assert.deepEqual(
        slicesAfterRestart[i],
        slicesBeforeRestart[i],
        `${m.name}: MCS slices written after a restart`,
      );
    });
    await c1.create(Services, helloService(ns));
    await c1.create(ServiceExportType, helloExport(ns));
    await awaitImport(c1, ns, 'from the restarted controller', (x) => (x.spec?.ips?.length ?? 0) === 2);
  });

  /** Every MCS EndpointSlice of a member (`ns/name`) with its uid and resourceVersion: any write changes them. */
  async function mcsSliceVersions(m: KubeClient): Promise<Record<string, string>> {
    const list = await m.list<SliceObject>(EndpointSlices, {
      labelSelector: `endpointslice.kubernetes.io/managed-by=${MANAGED_BY}`,
    });
    return Object.fromEntries(
      list.items.map((s) => [
        `${s.metadata.namespace}/${s.metadata.name}`,
        `${s.metadata.uid} ${s.metadata.resourceVersion}`,
      ]),
    );
  }

  /** The services a controller manager's log says the MCS controller reconciled (its debug line per pass). */
  async function reconciledServices(logFile: string): Promise<Set<string>> {
    const seen = new Set<string>();
    for (const line of (await readFile(logFile, 'utf8')).split('\n')) {
      if (!line.includes('reconciling multi-cluster service')) continue;
      try {
        const entry = JSON.parse(line) as { msg?: string; service?: string };
        if (entry.msg === 'reconciling multi-cluster service' && entry.service) seen.add(entry.service);
      } catch {
        // A line still being written.
      }
    }
    return seen;
  }

  async function slicesOf(m: KubeClient): Promise<number> {
    return (await mcsSlices(m, 'mcs-eps')).length;
  }

  test('a source cluster that goes away loses its slices after the lease; imports keep working for the others', async () => {
    const ns = 'mcs-eps';
    await eventually(
      'both sources published',
      () => slicesOf(c3),
      (n) => n === 4,
    );
    await fed.cluster('cluster2').stopApiServer();
    try {
      // Meanwhile a new service from cluster1 reaches cluster3: a down member stalls nobody.
      const late = 'mcs-outage';
      await namespaceIn(late, [c1, c3]);
      await c1.create(Services, helloService(late));
      await c1.create(ServiceExportType, helloExport(late));
      await awaitImport(c3, late, 'while cluster2 is down', (x) => (x.spec?.ips?.length ?? 0) === 2);
      for (const m of [c1, c3]) {
        await eventually(
          `${m.name}: ${ADMIN_ID}'s slices removed after the ${MEMBER_LEASE} lease`,
          async () => (await mcsSlices(m, ns)).map((s) => s.metadata.labels?.[LABEL_SOURCE_CLUSTER]),
          (srcs) => srcs.length === 2 && srcs.every((s) => s === 'cluster1'),
          45_000,
        );
        await awaitImport(m, ns, 'still there from cluster1');
      }
    } finally {
      await fed.cluster('cluster2').startApiServer();
    }
    await eventually(
      'cluster2 back: its slices return',
      () => slicesOf(c3),
      (n) => n === 4,
      60_000,
    );
    const back = (await mcsSlices(c3, ns)).filter(
      (s: SliceObject) => s.metadata.labels?.[LABEL_SOURCE_CLUSTER] === ADMIN_ID,
    );
    assert.equal(back.length, 2);
    await awaitExportCondition(c2, ns, 'Valid', 'True');
  });

  test('spec 16: unexporting from every source removes the MCS slices and the imports everywhere', async () => {
    const ns = 'mcs-eps';
    for (const m of [c1, c2]) await deleteAndWait(m, ServiceExportType, ns);
    for (const m of [c1, c2, c3]) {
      await awaitNoImport(m, ns, 'after the last export went');
      await eventually(
        `${m.name}: no MCS slices left`,
        () => mcsSlices(m, ns),
        (s) => s.length === 0,
      );
      assert.equal(
        await getOrUndefined(m, Services, 'derived-hello', ns),
        undefined,
        `${m.name}: derived Service gone`,
      );
    }
  });
});
