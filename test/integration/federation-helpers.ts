import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FederatedTypeConfigType } from '../../src/api/core/v1beta1/index.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../src/kube/client/index.ts';
import { CoreTypes, isNotFound } from '../../src/kube/client/index.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import type { Federation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { parsePrometheusText } from '../../src/testing/prometheus.ts';
import { kubefedctl, NS, prepareHost, waitForCluster } from './helpers.ts';

export const FED_GROUP = 'types.kubefed.io';
export const FED_VERSION = 'v1beta1';

export function fedType(kind: string, plural: string, namespaced = true): ResourceType {
  return { group: FED_GROUP, version: FED_VERSION, plural, namespaced, kind };
}

export const T = {
  fns: fedType('FederatedNamespace', 'federatednamespaces'),
  fdeploy: fedType('FederatedDeployment', 'federateddeployments'),
  fcm: fedType('FederatedConfigMap', 'federatedconfigmaps'),
  fsecret: fedType('FederatedSecret', 'federatedsecrets'),
  deployments: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, kind: 'Deployment' },
  configmaps: { group: '', version: 'v1', plural: 'configmaps', namespaced: true, kind: 'ConfigMap' },
  secrets: { group: '', version: 'v1', plural: 'secrets', namespaced: true, kind: 'Secret' },
  namespaces: { group: '', version: 'v1', plural: 'namespaces', namespaced: false, kind: 'Namespace' },
} satisfies Record<string, ResourceType>;

export interface FedStatus {
  observedGeneration?: number;
  conditions?: Array<{ type: string; status: string; reason?: string }>;
  clusters?: Array<{ name: string; status?: string; message?: string; remoteStatus?: unknown }>;
  aggregate?: Record<string, number>;
}
export type FedObject = KubeObject & { spec?: Record<string, unknown>; status?: FedStatus };

export function propagation(o: FedObject | undefined) {
  return o?.status?.conditions?.find((c) => c.type === 'Propagation');
}

/** A federation with the default federated types, a controller manager and every member joined. */
export async function startPropagation(
  fed: Federation,
  opts: { args?: string[]; config?: Record<string, unknown> } = {},
): Promise<{ host: KubeClient; cm: ControllerManagerProcess }> {
  const host = fed.host.client();
  await prepareHost(host, opts.config);
  await installControlPlane(host, NS, { defaultTypes: true });
  const cm = await startKubefedControllerManager({
    kubeconfig: fed.kubeconfigPath,
    context: 'host',
    namespace: NS,
    logFile: join(fed.dir, 'kubefed-controller-manager.log'),
    args: ['--member-deletion-timeout=8s', ...(opts.args ?? [])],
  });
  for (const m of fed.members) {
    const r = await kubefedctl([
      'join',
      m.name,
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    if (r.code !== 0) throw new Error(`join ${m.name}: ${r.stderr}`);
  }
  for (const m of fed.members) {
    await waitForCluster(host, m.name, 'Ready', (c) =>
      Boolean(c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')),
    );
  }
  return { host, cm };
}

export async function getOrUndefined<O extends KubeObject>(
  c: KubeClient,
  type: ResourceType,
  name: string,
  namespace?: string,
): Promise<O | undefined> {
  try {
    return await c.get<O>(type, name, namespace);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Polls `read` until `check` holds; the last value is shown on timeout. */
export async function eventually<V>(
  what: string,
  read: () => Promise<V>,
  check: (v: V) => boolean,
  timeoutMs = 30_000,
): Promise<V> {
  let last: V | undefined;
  await waitFor(
    what,
    async () => {
      last = await read();
      return check(last);
    },
    { timeoutMs, intervalMs: 200, describe: () => JSON.stringify(last ?? null)?.slice(0, 2000) ?? '' },
  );
  return last as V;
}

export async function createFederatedNamespace(
  host: KubeClient,
  name: string,
  clusters?: string[],
): Promise<void> {
  try {
    await host.create(T.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch {
    // already there
  }
  await host.create(T.fns, {
    apiVersion: `${FED_GROUP}/${FED_VERSION}`,
    kind: 'FederatedNamespace',
    metadata: { name, namespace: name },
    spec: {
      placement: clusters ? { clusters: clusters.map((n) => ({ name: n })) } : { clusterSelector: {} },
    },
  });
}

/** A FederatedConfigMap with `data`, placed on the named clusters or, by default, on every cluster. */
export function federatedConfigMap(
  name: string,
  namespace: string,
  data: Record<string, string>,
  clusters?: string[],
): KubeObject {
  return {
    apiVersion: `${FED_GROUP}/${FED_VERSION}`,
    kind: 'FederatedConfigMap',
    metadata: { name, namespace },
    spec: {
      template: { data },
      placement: clusters ? { clusters: clusters.map((n) => ({ name: n })) } : { clusterSelector: {} },
    },
  };
}

/** Events recorded on an object, by reason. */
export async function eventReasons(host: KubeClient, namespace: string, name: string): Promise<string[]> {
  const list = await host.list<KubeObject & { reason?: string; involvedObject?: { name?: string } }>(
    { group: '', version: 'v1', plural: 'events', namespaced: true, kind: 'Event' },
    { namespace },
  );
  return list.items.filter((e) => e.involvedObject?.name === name).map((e) => e.reason ?? '');
}

/** Creates a CustomResourceDefinition and waits until the apiserver serves it (Established=True). */
export async function establishCrd(c: KubeClient, crd: { metadata: { name: string } }): Promise<void> {
  await c.create(CoreTypes.crds, crd as unknown as KubeObject);
  await eventually(
    `CRD ${crd.metadata.name} established`,
    () =>
      c.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(
        CoreTypes.crds,
        crd.metadata.name,
      ),
    (o) => Boolean(o.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')),
  );
}

/** `kubefedctl enable <type>` on the federation's host, then waits until its FTC's sync controller runs. */
export async function enableType(
  fed: Federation,
  host: KubeClient,
  type: string,
  ftcName: string,
): Promise<void> {
  const r = await kubefedctl([
    'enable',
    type,
    '--kubeconfig',
    fed.kubeconfigPath,
    '--host-cluster-context',
    'host',
  ]);
  assert.equal(r.code, 0, r.stderr);
  await eventually(
    `FTC ${ftcName} running`,
    () =>
      host.get<KubeObject & { status?: { propagationController?: string } }>(
        FederatedTypeConfigType,
        ftcName,
        NS,
      ),
    (o) => o.status?.propagationController === 'Running',
  );
}

/**
 * The apiserver's writes (POST, PUT, PATCH, DELETE, APPLY) per resource or resource/subresource, from its
 * /metrics (apiserver_request_total): what any client wrote, so compare only resources no one else touches.
 */
export async function apiserverWrites(c: KubeClient): Promise<Map<string, number>> {
  const res = await c.requestRaw('GET', '/metrics');
  assert.equal(res.statusCode, 200, res.body.slice(0, 200));
  const out = new Map<string, number>();
  for (const s of parsePrometheusText(res.body)) {
    if (s.name !== 'apiserver_request_total') continue;
    if (!['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY'].includes(s.labels['verb'] ?? '')) continue;
    const key = `${s.labels['resource']}${s.labels['subresource'] ? `/${s.labels['subresource']}` : ''}`;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** The non-zero differences of `resources` between two apiserverWrites snapshots. */
export function writesBetween(
  before: Map<string, number>,
  after: Map<string, number>,
  resources: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of resources) {
    const d = (after.get(r) ?? 0) - (before.get(r) ?? 0);
    if (d !== 0) out[r] = d;
  }
  return out;
}

/** Checks `check` on `read` every 500 ms for `forMs`: a state that must hold throughout, not just once. */
export async function consistently<V>(
  what: string,
  read: () => Promise<V>,
  check: (v: V) => boolean,
  forMs = 5000,
): Promise<void> {
  const end = Date.now() + forMs;
  for (;;) {
    const v = await read();
    assert.ok(check(v), `${what}: ${JSON.stringify(v)?.slice(0, 2000)}`);
    if (Date.now() >= end) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}
