// `kubefedctl explain`: for templates, which policy claims them and why, where they land and what each
// cluster receives. Offline, the templates, policies and clusters come from -f files (and --clusters);
// with --live the policies, clusters and current bindings come from the federation API server, the
// templates from -f or from the server by TYPE NAME. The report itself is explain-report.ts.

import { parseAllDocuments, stringify as toYaml } from 'yaml';
import { isClusterReady, type KubeFedCluster, KubeFedClusterType } from '../api/core/v1beta1/index.ts';
import { GROUP as POLICY_GROUP } from '../api/policy/v1alpha1/index.ts';
import { errorMessage, isNotFound, type KubeClient, type KubeObject } from '../kube/client/index.ts';
import { isPlainObject } from '../propagation/json.ts';
import { bindingName } from '../sources/policy/binding-name.ts';
import type { BindingObject } from '../sources/policy/binding-spec.ts';
import { BindingTypes } from '../sources/policy/bindings.ts';
import type { PolicyCluster } from '../sources/policy/cluster-affinity.ts';
import { policyClusterOf } from '../sources/policy/clusters.ts';
import type { CandidatePolicy } from '../sources/policy/matching.ts';
import type { NamedOverridePolicy } from '../sources/policy/overrides/select.ts';
import {
  candidateOf,
  type OverrideObject,
  type PolicyObject,
  PolicyTypes,
} from '../sources/policy/policies.ts';
import { findApiResource } from './api-resources.ts';
import { hostError } from './context.ts';
import { CommandError } from './errors.ts';
import { type ExplainInput, explain, renderExplainText, type TemplateReport } from './explain-report.ts';
import { readInput } from './plan.ts';

export type ExplainOutput = 'text' | 'yaml' | 'json';

export function parseExplainOutput(value: string | undefined): ExplainOutput {
  if (value === undefined || value === 'text') return 'text';
  if (value === 'yaml' || value === 'json') return value;
  throw new CommandError(`invalid output format ${JSON.stringify(value)}: valid values are text, yaml, json`);
}

/** Built-in cluster-scoped kinds: a template of these gets no default namespace (everything else does). */
const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'CSIDriver',
  'Node',
]);

const POLICY_API_VERSION = `${POLICY_GROUP}/v1alpha1`;
const CLUSTER_API_VERSION = `${KubeFedClusterType.group}/${KubeFedClusterType.version}`;

type Cluster = KubeObject & KubeFedCluster;

/** What -f files hold, sorted by kind. */
export interface ExplainFiles {
  templates: KubeObject[];
  pps: PolicyObject[];
  cpps: PolicyObject[];
  ops: OverrideObject[];
  cops: OverrideObject[];
  clusters: Cluster[];
}

/**
 * Splits the documents of the files into templates, policies and KubeFedClusters. A namespaced object
 * without a namespace gets `namespace`, as kubectl apply would give it.
 */
export function parseExplainFiles(
  files: ReadonlyArray<{ name: string; text: string }>,
  namespace: string,
): ExplainFiles {
  const out: ExplainFiles = { templates: [], pps: [], cpps: [], ops: [], cops: [], clusters: [] };
  for (const file of files) {
    let index = 0;
    for (const doc of parseAllDocuments(file.text)) {
      index++;
      const [err] = doc.errors;
      if (err) throw new CommandError(`${file.name}: ${err.message.split('\n')[0]}`);
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue;
      const where = `${file.name}: document ${index}`;
      if (!isPlainObject(value)) throw new CommandError(`${where}: not an object`);
      const { apiVersion, kind } = value;
      if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '')
        throw new CommandError(`${where}: apiVersion and kind are required`);
      if (kind.endsWith('List') && Array.isArray(value['items']))
        throw new CommandError(`${where}: ${kind} is not supported; give the items as separate documents`);
      const metadata = value['metadata'];
      if (!isPlainObject(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '')
        throw new CommandError(`${where}: ${kind} has no metadata.name`);
      const obj = value as KubeObject;
      const setNamespace = () => {
        if (!obj.metadata.namespace) obj.metadata.namespace = namespace;
      };
      const clearNamespace = () => {
        delete obj.metadata.namespace;
      };
      if (apiVersion === POLICY_API_VERSION) {
        if (!isPlainObject(value['spec'])) throw new CommandError(`${where}: ${kind} has no spec`);
        switch (kind) {
          case PolicyTypes.PropagationPolicy.kind:
            setNamespace();
            out.pps.push(obj as PolicyObject);
            continue;
          case PolicyTypes.ClusterPropagationPolicy.kind:
            clearNamespace();
            out.cpps.push(obj as PolicyObject);
            continue;
          case PolicyTypes.OverridePolicy.kind:
            setNamespace();
            out.ops.push(obj as OverrideObject);
            continue;
          case PolicyTypes.ClusterOverridePolicy.kind:
            clearNamespace();
            out.cops.push(obj as OverrideObject);
            continue;
          default:
            throw new CommandError(`${where}: unknown kind ${JSON.stringify(kind)} in ${POLICY_API_VERSION}`);
        }
      }
      if (apiVersion === CLUSTER_API_VERSION && kind === 'KubeFedCluster') {
        out.clusters.push(obj as Cluster);
        continue;
      }
      if (CLUSTER_SCOPED_KINDS.has(kind)) clearNamespace();
      else setNamespace();
      out.templates.push(obj);
    }
  }
  return out;
}

/**
 * The clusters as policies see them. A KubeFedCluster of a file without a Ready condition counts as Ready
 * (a hand-written file rarely has status); `--clusters` names are Ready clusters without labels.
 */
export function offlineClusters(files: readonly Cluster[], names: readonly string[]): PolicyCluster[] {
  const clusters = files.map((c) => {
    const pc = policyClusterOf(c);
    const hasReady = (c.status?.conditions ?? []).some((x) => x.type === 'Ready');
    return hasReady ? pc : { ...pc, ready: true };
  });
  for (const name of names) {
    if (clusters.some((c) => c.name === name))
      throw new CommandError(`--clusters: cluster ${JSON.stringify(name)} is given more than once`);
    clusters.push({ name, labels: {}, zones: [], ready: true });
  }
  return clusters;
}

const named =
  (kind: NamedOverridePolicy['kind']) =>
  (o: OverrideObject): NamedOverridePolicy => ({
    kind,
    name: o.metadata.name ?? '',
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    spec: o.spec ?? {},
  });

function policiesInput(files: Pick<ExplainFiles, 'pps' | 'cpps' | 'ops' | 'cops'>): {
  pps: CandidatePolicy[];
  cpps: CandidatePolicy[];
  ops: NamedOverridePolicy[];
  cops: NamedOverridePolicy[];
} {
  return {
    pps: files.pps.map((p) => candidateOf('PropagationPolicy', p)),
    cpps: files.cpps.map((p) => candidateOf('ClusterPropagationPolicy', p)),
    ops: files.ops.map(named('OverridePolicy')),
    cops: files.cops.map(named('ClusterOverridePolicy')),
  };
}

export function renderExplain(reports: readonly TemplateReport[], output: ExplainOutput): string {
  if (output === 'json') return `${JSON.stringify({ templates: reports }, null, 2)}\n`;
  if (output === 'yaml') return toYaml({ templates: reports });
  return renderExplainText(reports);
}

export interface ExplainOptions {
  filenames: readonly string[];
  namespace: string;
  clusterNames: readonly string[];
  kubefedNamespace: string;
  output: ExplainOutput;
  out: (text: string) => void;
  readFile?: (filename: string) => string;
}

function readFiles(filenames: readonly string[], read: (f: string) => string) {
  return filenames.map((name) => {
    try {
      return { name, text: read(name) };
    } catch (e) {
      throw new CommandError(`Failed to read file "${name}": ${errorMessage(e)}`);
    }
  });
}

/** Offline: everything from the files. */
export function runExplainOffline(opts: ExplainOptions): TemplateReport[] {
  if (opts.filenames.length === 0) throw new CommandError('-f/--filename is required');
  const files = parseExplainFiles(readFiles(opts.filenames, opts.readFile ?? readInput), opts.namespace);
  if (files.templates.length === 0)
    throw new CommandError('no resource template in the files (only policies and clusters)');
  const clusters = offlineClusters(files.clusters, opts.clusterNames);
  if (clusters.length === 0)
    throw new CommandError('no clusters: give KubeFedCluster objects in a -f file or --clusters NAME,...');
  const input: ExplainInput = {
    templates: files.templates,
    ...policiesInput(files),
    clusters,
    skippedNamespaces: [opts.kubefedNamespace],
  };
  const reports = explain(input);
  opts.out(renderExplain(reports, opts.output));
  return reports;
}

export interface LiveExplainOptions extends Omit<ExplainOptions, 'clusterNames'> {
  host: KubeClient;
  /** TYPE NAME of a template on the server, instead of -f. */
  typeName?: string;
  name?: string;
  warn?: (line: string) => void;
}

/** --live: policies, clusters and bindings from the federation API server. */
export async function runExplainLive(opts: LiveExplainOptions): Promise<TemplateReport[]> {
  const { host } = opts;
  let templates: KubeObject[];
  if (opts.typeName !== undefined) {
    if (opts.filenames.length > 0) throw new CommandError('give either TYPE NAME or -f, not both');
    if (!opts.name) throw new CommandError('resource name is required after the type');
    const r = await findApiResource(host, opts.typeName, { warn: opts.warn });
    const type = { group: r.group, version: r.version, plural: r.plural, namespaced: r.namespaced };
    try {
      const t = await host.get(type, opts.name, r.namespaced ? opts.namespace : undefined);
      templates = [{ ...t, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind }];
    } catch (e) {
      throw hostError(e, host.name);
    }
  } else {
    if (opts.filenames.length === 0) throw new CommandError('give TYPE NAME or -f with --live');
    const files = parseExplainFiles(readFiles(opts.filenames, opts.readFile ?? readInput), opts.namespace);
    if (
      files.pps.length + files.cpps.length + files.ops.length + files.cops.length + files.clusters.length >
      0
    )
      throw new CommandError(
        '--live reads policies and clusters from the federation API server; the -f files may hold only templates',
      );
    templates = files.templates;
  }
  let input: ExplainInput;
  try {
    const [pps, cpps, ops, cops, kfcs] = await Promise.all([
      host.listAll<PolicyObject>(PolicyTypes.PropagationPolicy),
      host.listAll<PolicyObject>(PolicyTypes.ClusterPropagationPolicy),
      host.listAll<OverrideObject>(PolicyTypes.OverridePolicy),
      host.listAll<OverrideObject>(PolicyTypes.ClusterOverridePolicy),
      host.listAll<Cluster>(KubeFedClusterType, { namespace: opts.kubefedNamespace }),
    ]);
    const bindings = new Map<string, BindingObject>();
    for (const t of templates) {
      const namespaced = Boolean(t.metadata.namespace);
      const type = namespaced ? BindingTypes.ResourceBinding : BindingTypes.ClusterResourceBinding;
      const bname = bindingName(t.kind ?? '', t.metadata.name ?? '');
      const b = await host
        .get<BindingObject>(type, bname, t.metadata.namespace)
        .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (b) bindings.set(`${t.metadata.namespace ?? ''}/${bname}`, b);
    }
    input = {
      templates,
      ...policiesInput({ pps: pps.items, cpps: cpps.items, ops: ops.items, cops: cops.items }),
      clusters: kfcs.items.map(policyClusterOf),
      skippedNamespaces: [opts.kubefedNamespace],
      bindingOf: (t) => {
        const b = bindings.get(
          `${t.metadata.namespace ?? ''}/${bindingName(t.kind ?? '', t.metadata.name ?? '')}`,
        );
        return b
          ? {
              clusters: b.spec.clusters,
              ...(b.status?.schedulerObservingAffinityName
                ? { affinityName: b.status.schedulerObservingAffinityName }
                : {}),
            }
          : undefined;
      },
    };
    const notReady = kfcs.items
      .filter((c) => !isClusterReady(c.status?.conditions))
      .map((c) => c.metadata.name);
    if (notReady.length > 0)
      opts.warn?.(`clusters not Ready (no candidates for new placement): ${notReady.join(', ')}`);
  } catch (e) {
    if (e instanceof CommandError) throw e;
    throw hostError(e, host.name);
  }
  const reports = explain(input);
  opts.out(renderExplain(reports, opts.output));
  return reports;
}
