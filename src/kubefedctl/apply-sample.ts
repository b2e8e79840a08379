import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { pluralName } from '../api/core/v1beta1/index.ts';
import {
  errorMessage,
  isAlreadyExists,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { waitFor } from '../testing/ports.ts';
import { CommandError } from './errors.ts';

/** Namespaces and `Federated<Kind>` objects, the only kinds a local-up sample holds. */
function typeOf(obj: KubeObject): ResourceType {
  const [group, version] = (obj.apiVersion ?? '').includes('/')
    ? ((obj.apiVersion ?? '').split('/') as [string, string])
    : ['', obj.apiVersion ?? ''];
  const kind = obj.kind ?? '';
  return { group, version, kind, plural: pluralName(kind), namespaced: kind !== 'Namespace' };
}

export function readSample(file: string): KubeObject[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CommandError(`cannot read sample ${file}: ${errorMessage(e)}`);
  }
  const docs = parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
  for (const d of docs) {
    if (!d.kind || !d.apiVersion || !d.metadata?.name)
      throw new CommandError(`${file}: every document needs apiVersion, kind and metadata.name`);
    if (d.kind !== 'Namespace' && !d.kind.startsWith('Federated'))
      throw new CommandError(`${file}: ${d.kind} is not a Namespace or a Federated<Kind>`);
  }
  return docs;
}

/**
 * Creates the sample's objects in the host and waits until each federated one reports
 * Propagation=True, so the command returns only once the members hold the sample.
 */
export async function applySample(
  host: KubeClient,
  docs: KubeObject[],
  out: (line: string) => void,
  timeoutMs = 120_000,
): Promise<void> {
  for (const d of docs) {
    const type = typeOf(d);
    try {
      await host.create(type, d, { namespace: d.metadata.namespace });
    } catch (e) {
      if (!isAlreadyExists(e))
        throw new CommandError(`creating ${d.kind} ${d.metadata.name}: ${errorMessage(e)}`);
    }
  }
  for (const d of docs.filter((x) => x.kind?.startsWith('Federated'))) {
    let last:
      | (KubeObject & { status?: { conditions?: Array<{ type: string; status: string; reason?: string }> } })
      | undefined;
    await waitFor(
      `${d.kind} ${d.metadata.namespace}/${d.metadata.name} to propagate`,
      async () => {
        last = await host.get(typeOf(d), d.metadata.name ?? '', d.metadata.namespace);
        return Boolean(last.status?.conditions?.some((c) => c.type === 'Propagation' && c.status === 'True'));
      },
      { timeoutMs, intervalMs: 250, describe: () => JSON.stringify(last?.status ?? null) },
    );
    out(`Propagated ${d.kind} ${d.metadata.namespace}/${d.metadata.name}`);
  }
  // Workloads: wait (briefly, without failing) until they are healthy in every cluster, so the summary
  // local-up prints shows them running.
  for (const d of docs.filter((x) => x.kind?.startsWith('Federated'))) {
    type WithAggregate = KubeObject & {
      status?: { aggregate?: { clusters?: number; healthyClusters?: number } };
    };
    const healthy = async () => {
      const o = await host.get<WithAggregate>(typeOf(d), d.metadata.name ?? '', d.metadata.namespace);
      const a = o.status?.aggregate;
      return !a || (a.clusters !== undefined && a.healthyClusters === a.clusters);
    };
    try {
      await waitFor(`${d.kind} to be healthy`, healthy, { timeoutMs: 60_000, intervalMs: 250 });
    } catch {
      out(`${d.kind} ${d.metadata.namespace}/${d.metadata.name} is not healthy in every cluster yet`);
    }
  }
}
