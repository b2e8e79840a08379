import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { FederatedTypeConfigType } from '../api/core/v1beta1/index.ts';
import { defaultFederatedTypes } from '../federation-types/default-types.ts';
import {
  CoreTypes,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { REPO_ROOT } from '../paths.ts';
import { CRD_DIR } from './manifests.ts';

/** The generated CRDs (config/crds) as objects. */
export function loadCrds(dir = join(REPO_ROOT, CRD_DIR)): KubeObject[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parseYaml(readFileSync(join(dir, f), 'utf8')) as KubeObject);
}

/** Creates or replaces each CRD, then waits until the API server serves all of them. */
export async function applyCrds(
  client: KubeClient,
  crds: KubeObject[] = loadCrds(),
  timeoutMs = 60_000,
): Promise<void> {
  for (const crd of crds) {
    try {
      await client.create(CoreTypes.crds, crd);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get(CoreTypes.crds, crd.metadata.name ?? '');
      await client.update(CoreTypes.crds, {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion },
      });
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    for (;;) {
      const c = await client.get<
        KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
      >(CoreTypes.crds, crd.metadata.name ?? '');
      if (c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')) break;
      if (Date.now() > deadline)
        throw new Error(`CRD ${crd.metadata.name} was not established within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The KubeFed namespace (labelled `name: <ns>` as KubeFed's chart does, for webhook selectors). */
export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  try {
    await client.get(CoreTypes.namespaces, name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    try {
      await client.create(CoreTypes.namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { name } },
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

/**
 * What a host needs before the controller manager starts: the KubeFed namespace and the CRDs; with
 * defaultTypes also the ten default federated types (their CRDs and FTCs), as KubeFed's Helm chart installs.
 */
export async function installControlPlane(
  client: KubeClient,
  namespace: string,
  opts: { defaultTypes?: boolean } = {},
): Promise<void> {
  await ensureNamespace(client, namespace);
  await applyCrds(client);
  if (opts.defaultTypes) await applyDefaultFederatedTypes(client, namespace);
}

/** Creates or updates the default federated types' CRDs, then their FTCs (spec replaced, status kept). */
async function applyDefaultFederatedTypes(client: KubeClient, namespace: string): Promise<void> {
  const { crds, ftcs } = defaultFederatedTypes(namespace);
  await applyCrds(
    client,
    crds.map((c) => ({ ...c })),
  );
  for (const ftc of ftcs) {
    try {
      await client.create(FederatedTypeConfigType, ftc);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get(FederatedTypeConfigType, ftc.metadata.name, namespace);
      await client.update(FederatedTypeConfigType, { ...existing, spec: ftc.spec });
    }
  }
}
