import assert from 'node:assert/strict';
import { ClusterPropertyType } from '../../src/api/about/v1alpha1/index.ts';
import { mcsMemberCrds } from '../../src/api/crds.ts';
import {
  LABEL_SERVICE_NAME,
  type ServiceExport,
  ServiceExportType,
  type ServiceImport,
  ServiceImportType,
} from '../../src/api/mcs/v1beta1/index.ts';
import {
  CoreTypes,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import type { Federation, TestCluster } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { establishCrd, eventually, getOrUndefined, startPropagation } from './federation-helpers.ts';

/*
 * The objects of the mcs-api conformance suite (conformance/k8s_objects.go, conformance_suite.go) and the
 * reads both MCS integration files share. Members are dual-stack: their Services get one clusterIP per
 * family and kwok gives pods an address of each family from their node's podCIDRs.
 */

export const DUAL_STACK_SERVICE_RANGE = '10.0.0.0/24,fd00:10:96::/108';
export const MEMBER_LEASE = '5s';
export const CLUSTERSET = 'mcs-test-clusterset';
export const MANAGED_BY = 'mcs.kubefed-ts.io';

export const Services: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'services',
  namespaced: true,
  kind: 'Service',
};
export const EndpointSlices: ResourceType = {
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
  namespaced: true,
  kind: 'EndpointSlice',
};
export const Deployments: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
export const StatefulSets: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'statefulsets',
  namespaced: true,
  kind: 'StatefulSet',
};

export type ImportObject = KubeObject & ServiceImport;
export type ExportObject = KubeObject & ServiceExport;
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
export interface SliceObject extends KubeObject {
  addressType: string;
  endpoints?: Array<{
    addresses: string[];
    hostname?: string;
    conditions?: { ready?: boolean };
    targetRef?: { name?: string };
  }>;
  ports?: Array<{ name?: string; port?: number; protocol?: string }>;
}
export interface ServiceObject extends KubeObject {
  spec: Record<string, unknown> & { clusterIPs?: string[]; ipFamilies?: string[] };
}
export interface PodObject extends KubeObject {
  status?: { phase?: string; podIPs?: Array<{ ip: string }>; conditions?: Condition[] };
}

export interface Port {
  name: string;
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
}
export const TCP_42: Port = { name: 'tcp', port: 42, protocol: 'TCP' };
export const UDP_42: Port = { name: 'udp', port: 42, protocol: 'UDP' };

/** conformance's helloService: two ports, ClientIP affinity (10 s), PreferDualStack, dummy-svc metadata. */
export function helloService(
  namespace: string,
  spec: Record<string, unknown> = {},
  name = 'hello',
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace,
      labels: { 'dummy-svc': 'dummy' },
      annotations: { 'dummy-svc': 'dummy' },
    },
    spec: {
      selector: { app: name },
      ports: [TCP_42, UDP_42],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
      ipFamilyPolicy: 'PreferDualStack',
      ...spec,
    },
  };
}

/** conformance's helloServiceExport, with dummy-svcexport metadata (which must NOT reach the import). */
export function helloExport(
  namespace: string,
  spec: Record<string, unknown> = {},
  name = 'hello',
): KubeObject {
  return {
    apiVersion: `${ServiceExportType.group}/${ServiceExportType.version}`,
    kind: 'ServiceExport',
    metadata: {
      name,
      namespace,
      labels: { 'dummy-svcexport': 'dummy' },
      annotations: { 'dummy-svcexport': 'dummy' },
    },
    spec,
  };
}

/** A Deployment whose pods the Service `name` selects; kwok makes them Running and Ready. */
export function helloDeployment(namespace: string, replicas: number, name = 'hello'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'hello-tcp', image: 'alpine/socat:1.7.4.4' }] },
      },
    },
  };
}

export async function createNamespace(c: KubeClient, name: string): Promise<void> {
  try {
    await c.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

export function condition(o: { status?: { conditions?: Condition[] } } | undefined, type: string) {
  return o?.status?.conditions?.find((c) => c.type === type);
}

export const getImport = (c: KubeClient, ns: string, name = 'hello') =>
  getOrUndefined<ImportObject>(c, ServiceImportType, name, ns);
export const getExport = (c: KubeClient, ns: string, name = 'hello') =>
  getOrUndefined<ExportObject>(c, ServiceExportType, name, ns);

/** Waits for the ServiceImport `ns/name` in the member to satisfy check; returns it. */
export async function awaitImport(
  c: KubeClient,
  ns: string,
  what: string,
  check: (i: ImportObject) => boolean = () => true,
  name = 'hello',
  timeoutMs = 30_000,
): Promise<ImportObject> {
  const got = await eventually(
    `${c.name}: ServiceImport ${ns}/${name} ${what}`,
    () => getImport(c, ns, name),
    (i) => i !== undefined && check(i),
    timeoutMs,
  );
  return got as ImportObject;
}

export async function awaitNoImport(c: KubeClient, ns: string, what: string, name = 'hello'): Promise<void> {
  await eventually(
    `${c.name}: no ServiceImport ${ns}/${name} ${what}`,
    () => getImport(c, ns, name),
    (i) => !i,
  );
}

/** Waits for the export's condition `type` to have `status` (and reason, if given); returns the condition. */
export async function awaitExportCondition(
  c: KubeClient,
  ns: string,
  type: string,
  status: string,
  reasonCheck: (reason: string) => boolean = () => true,
  name = 'hello',
): Promise<Condition> {
  const e = await eventually(
    `${c.name}: ServiceExport ${ns}/${name} ${type}=${status}`,
    () => getExport(c, ns, name),
    (x) => condition(x, type)?.status === status && reasonCheck(condition(x, type)?.reason ?? ''),
  );
  return condition(e, type) as Condition;
}

/** The MCS EndpointSlices of service `name` in a member's namespace. */
export async function mcsSlices(c: KubeClient, ns: string, name = 'hello'): Promise<SliceObject[]> {
  const list = await c.list<SliceObject>(EndpointSlices, {
    namespace: ns,
    labelSelector: `${LABEL_SERVICE_NAME}=${name}`,
  });
  return list.items;
}

/** The IPs of a member's Running+Ready pods with `app=name`, by family. */
export async function readyPodIps(
  c: KubeClient,
  ns: string,
  name = 'hello',
): Promise<Record<string, string[]>> {
  const pods = await c.list<PodObject>(CoreTypes.pods, { namespace: ns, labelSelector: `app=${name}` });
  const out: Record<string, string[]> = { IPv4: [], IPv6: [] };
  for (const p of pods.items) {
    if (p.metadata.deletionTimestamp) continue;
    if (condition(p, 'Ready')?.status !== 'True') continue;
    for (const { ip } of p.status?.podIPs ?? []) out[ip.includes(':') ? 'IPv6' : 'IPv4']?.push(ip);
  }
  for (const k of Object.keys(out)) out[k]?.sort();
  return out;
}

/** Waits until a Deployment's pods are all available. */
export async function awaitAvailable(
  c: KubeClient,
  ns: string,
  replicas: number,
  name = 'hello',
): Promise<void> {
  await eventually(
    `${c.name}: Deployment ${ns}/${name} with ${replicas} available`,
    () =>
      c.get<KubeObject & { status?: { availableReplicas?: number; replicas?: number } }>(
        Deployments,
        name,
        ns,
      ),
    (d) => (d.status?.availableReplicas ?? 0) === replicas && (d.status?.replicas ?? 0) === replicas,
    90_000,
  );
}

export const sortPorts = (
  ports: ReadonlyArray<{ name?: string; port?: number; protocol?: string }> | undefined,
) =>
  [...(ports ?? [])]
    .map((p) => ({ name: p.name ?? '', port: p.port ?? 0, protocol: p.protocol ?? 'TCP' }))
    .sort((a, b) => `${a.name}/${a.protocol}/${a.port}`.localeCompare(`${b.name}/${b.protocol}/${b.port}`));

export const familyOf = (ip: string) => (ip.includes(':') ? 'IPv6' : 'IPv4');

/** Sleeps past the one-second resolution of creationTimestamp, so "oldest" is well defined (conformance: 1.1 s). */
export const pastTimestampResolution = () => new Promise((r) => setTimeout(r, 1100));

/** Each member's dual-stack fake node: distinct pod CIDRs per member, so source clusters' endpoints differ. */
export function dualStackNodes(cluster: string, index: number) {
  return [{ name: `${cluster}-node-0`, podCIDRs: [`10.244.${index}.0/24`, `fd00:10:244:${index}::/64`] }];
}

export interface McsSetup {
  host: KubeClient;
  cm: ControllerManagerProcess;
  /** Whether `kubefedctl join` had installed the MCS CRDs into each member not pre-installed. */
  joinInstalledCrds: Record<string, boolean>;
}

/**
 * CRDs before join in `preinstall` members (an administrator's own install); the other members get them
 * from `kubefedctl join` — recorded, and installed here when join did not, so the other tests still run.
 * `beforeJoin` runs once the CRDs are served (e.g. admin-set ClusterProperties).
 */
export async function startMcs(
  fed: Federation,
  opts: { preinstall: string[]; args?: string[]; beforeJoin?: (fed: Federation) => Promise<void> },
): Promise<McsSetup> {
  for (const m of fed.members.filter((x) => opts.preinstall.includes(x.name))) await installMcsCrds(m);
  await opts.beforeJoin?.(fed);
  const { host, cm } = await startPropagation(fed, {
    args: [`--mcs-endpoint-lease=${MEMBER_LEASE}`, `--clusterset-name=${CLUSTERSET}`, ...(opts.args ?? [])],
  });
  const joinInstalledCrds: Record<string, boolean> = {};
  for (const m of fed.members.filter((x) => !opts.preinstall.includes(x.name))) {
    const c = m.client();
    const present = await Promise.all(
      mcsMemberCrds().map((crd) => getOrUndefined(c, CoreTypes.crds, crd.metadata.name)),
    );
    joinInstalledCrds[m.name] = present.every(Boolean);
    if (!joinInstalledCrds[m.name]) await installMcsCrds(m);
  }
  return { host, cm, joinInstalledCrds };
}

async function installMcsCrds(m: TestCluster): Promise<void> {
  const c = m.client();
  for (const crd of mcsMemberCrds()) {
    try {
      await establishCrd(c, crd);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
}

/** Sets a ClusterProperty as a cluster administrator would. */
export async function setClusterProperty(c: KubeClient, name: string, value: string): Promise<void> {
  await c.create(ClusterPropertyType, {
    apiVersion: `${ClusterPropertyType.group}/${ClusterPropertyType.version}`,
    kind: 'ClusterProperty',
    metadata: { name },
    spec: { value },
  } as KubeObject);
}

export async function clusterProperty(c: KubeClient, name: string): Promise<string | undefined> {
  const p = await getOrUndefined<KubeObject & { spec?: { value?: string } }>(c, ClusterPropertyType, name);
  return p?.spec?.value;
}

/** Deletes and waits until gone (a 404 counts as done). */
export async function deleteAndWait(
  c: KubeClient,
  type: ResourceType,
  ns: string,
  name = 'hello',
): Promise<void> {
  try {
    await c.delete(type, name, { namespace: ns });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  await waitFor(`${c.name}: ${type.plural} ${ns}/${name} deleted`, async () => {
    return (await getOrUndefined(c, type, name, ns)) === undefined;
  });
}

export function assertIpsMatchFamilies(i: ImportObject, families: string[], what: string): void {
  const ips = i.spec?.ips ?? [];
  assert.equal(ips.length, families.length, `${what}: one ip per family ${JSON.stringify(i.spec)}`);
  assert.deepEqual(ips.map(familyOf), families, `${what}: ips in ipFamilies order ${JSON.stringify(i.spec)}`);
}
