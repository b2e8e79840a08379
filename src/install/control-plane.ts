import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  CoreTypes,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { REPO_ROOT } from '../paths.ts';

export const CRD_DIR = join(REPO_ROOT, 'config', 'crds');

/** The generated CRDs (config/crds) as objects. */
export function loadCrds(dir = CRD_DIR): KubeObject[] {
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

/** What a host needs before the controller manager starts: the KubeFed namespace and the CRDs. */
export async function installControlPlane(client: KubeClient, namespace: string): Promise<void> {
  await ensureNamespace(client, namespace);
  await applyCrds(client);
}
