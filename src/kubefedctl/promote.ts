// `kubefedctl promote TYPE NAME -n NS -C CLUSTER` (karmadactl promote): an object running in a joined member
// becomes a resource template on the federation API server plus a PropagationPolicy (ClusterPropagationPolicy
// for a cluster-scoped object) that places it on that member with conflictResolution Overwrite, so the policy
// source adopts the running copy instead of recreating it. All or nothing: a failed policy create deletes
// the template again.

import { stringify as toYaml } from 'yaml';
import { type KubeFedCluster, KubeFedClusterType } from '../api/core/v1beta1/index.ts';
import {
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { ClusterClients } from '../members/cluster-clients.ts';
import type { ClusterSecret } from '../members/cluster-config.ts';
import { dependenciesOf } from '../sources/policy/dependencies.ts';
import { PolicyTypes } from '../sources/policy/policies.ts';
import { findApiResource } from './api-resources.ts';
import { hostError } from './context.ts';
import { CommandError } from './errors.ts';
import { generatePolicyName, promotionPolicy, templateFromMember } from './promote-object.ts';

export type PromoteOutput = 'yaml' | 'json' | undefined;

export function parsePromoteOutput(value: string | undefined): PromoteOutput {
  if (value === undefined || value === '') return undefined;
  if (value === 'yaml' || value === 'json') return value;
  throw new CommandError('output format is only one of json and yaml');
}

export interface PromoteOptions {
  host: KubeClient;
  /** The member: a client from a kubeconfig context, or undefined to use the joined KubeFedCluster's. */
  member?: KubeClient;
  cluster: string;
  kubefedNamespace: string;
  typeName: string;
  name: string;
  namespace: string;
  policyName?: string;
  autoCreatePolicy: boolean;
  /** Also promote the ConfigMaps, Secrets, ServiceAccounts and PVCs the object references (-d). */
  dependencies: boolean;
  /** Print the template and policy (no server changes, as karmadactl's -o). */
  output: PromoteOutput;
  dryRun: boolean;
  out: (text: string) => void;
  warn?: (line: string) => void;
}

export interface PromoteResult {
  template: KubeObject;
  /** The dependencies promoted with it. */
  dependencies: KubeObject[];
  policy?: KubeObject;
  created: boolean;
}

const apiVersionOf = (r: { group: string; version: string }) =>
  r.group ? `${r.group}/${r.version}` : r.version;

function describe(kind: string, namespace: string | undefined, name: string): string {
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

async function memberClient(opts: PromoteOptions, clients: ClusterClients): Promise<KubeClient> {
  const { host, cluster, kubefedNamespace } = opts;
  let kfc: KubeObject & KubeFedCluster;
  try {
    kfc = await host.get(KubeFedClusterType, cluster, kubefedNamespace);
  } catch (e) {
    if (isNotFound(e))
      throw new CommandError(
        `cluster "${cluster}" is not joined (no KubeFedCluster ${kubefedNamespace}/${cluster}): join it first`,
      );
    throw hostError(e, host.name);
  }
  if (opts.member) return opts.member;
  try {
    const secret = await host.get<KubeObject & ClusterSecret>(
      CoreTypes.secrets,
      kfc.spec?.secretRef?.name ?? '',
      kubefedNamespace,
    );
    return clients.clientFor(kfc, secret);
  } catch (e) {
    throw new CommandError(
      `cluster "${cluster}": cannot build its client from the KubeFedCluster: ${errorMessage(e)}`,
    );
  }
}

export async function promote(opts: PromoteOptions): Promise<PromoteResult> {
  const { host, cluster } = opts;
  const clients = new ClusterClients({ timeoutMs: 15_000, userAgent: 'kubefedctl' });
  try {
    const member = await memberClient(opts, clients);
    let resource: Awaited<ReturnType<typeof findApiResource>>;
    try {
      resource = await findApiResource(member, opts.typeName, { warn: opts.warn });
    } catch (e) {
      if (e instanceof CommandError) throw new CommandError(`cluster "${cluster}": ${e.message}`);
      throw e;
    }
    const type: ResourceType = {
      group: resource.group,
      version: resource.version,
      plural: resource.plural,
      namespaced: resource.namespaced,
    };
    const namespace = resource.namespaced ? opts.namespace : undefined;
    const what = describe(resource.kind, namespace, opts.name);
    let live: KubeObject;
    try {
      live = await member.get(type, opts.name, namespace);
    } catch (e) {
      if (isNotFound(e)) throw new CommandError(`${what} does not exist in cluster "${cluster}"`);
      throw new CommandError(`cluster "${cluster}": ${errorMessage(e)}`);
    }
    const template = templateFromMember({ ...live, apiVersion: apiVersionOf(resource), kind: resource.kind });
    const policyName =
      opts.policyName ||
      generatePolicyName(namespace ?? '', opts.name, apiVersionOf(resource), resource.kind);
    const deps = opts.dependencies ? await memberDependencies(opts, member, template) : [];
    const policy = opts.autoCreatePolicy
      ? promotionPolicy(template, cluster, policyName, opts.dependencies)
      : undefined;
    if (opts.output) {
      const docs = [template, ...deps.map((d) => d.object), ...(policy ? [policy] : [])];
      opts.out(
        opts.output === 'json'
          ? docs.map((d) => `${JSON.stringify(d, null, 2)}\n`).join('')
          : docs.map((d) => toYaml(d)).join('---\n'),
      );
      return {
        template,
        dependencies: deps.map((d) => d.object),
        ...(policy ? { policy } : {}),
        created: false,
      };
    }
    const policyType = namespace ? PolicyTypes.PropagationPolicy : PolicyTypes.ClusterPropagationPolicy;
    try {
      // Refuse before writing anything: an existing template or policy is the user's to edit.
      if (await exists(host, type, opts.name, namespace))
        throw new CommandError(
          `${what} already exists on the federation API server: edit its PropagationPolicy and OverridePolicy to propagate it`,
        );
      if (policy && (await exists(host, policyType, policyName, namespace)))
        throw new CommandError(
          `${describe(policy.kind ?? '', namespace, policyName)} already exists: edit it to propagate ${what}, or pass --policy-name`,
        );
      if (namespace && !(await exists(host, CoreTypes.namespaces, namespace)))
        throw new CommandError(
          `namespace "${namespace}" does not exist on the federation API server: create it first`,
        );
      // A dependency already on the server is a template already: propagateDeps sends it as it is.
      for (const d of [...deps]) {
        if (await exists(host, d.type, d.object.metadata.name ?? '', namespace)) {
          opts.warn?.(
            `${d.what} already exists on the federation API server: not promoted, sent along as it is`,
          );
          deps.splice(deps.indexOf(d), 1);
        }
      }
    } catch (e) {
      if (e instanceof CommandError) throw e;
      throw hostError(e, host.name);
    }
    const promoted = deps.map((d) => d.object);
    if (opts.dryRun) {
      opts.out(`${what} would be promoted from cluster "${cluster}"${withDeps(deps)} (dry run)`);
      return { template, dependencies: promoted, ...(policy ? { policy } : {}), created: false };
    }
    // Leave nothing half-done: on any failure the templates created so far go again, so a retry starts clean.
    const created: Dependency[] = [];
    const undo = async (failure: string): Promise<never> => {
      const left: string[] = [];
      for (const c of [...created].reverse()) {
        try {
          await host.delete(c.type, c.object.metadata.name ?? '', { namespace });
        } catch (d) {
          left.push(`${c.what} (${errorMessage(d)})`);
        }
      }
      if (left.length > 0)
        throw new CommandError(
          `${failure}; removing what was created failed for ${left.join(', ')}: delete it by hand`,
        );
      throw new CommandError(
        created.length === 0
          ? failure
          : `${failure} (the template${created.length > 1 ? 's were' : ' was'} removed again)`,
      );
    };
    for (const t of [{ type, object: template, what }, ...deps]) {
      try {
        await host.create(t.type, t.object, { namespace });
        created.push(t);
      } catch (e) {
        await undo(`failed to create ${t.what} on the federation API server: ${errorMessage(e)}`);
      }
    }
    if (policy) {
      try {
        await host.create(policyType, policy, { namespace });
      } catch (e) {
        await undo(`failed to create ${policy.kind} ${policyName}: ${errorMessage(e)}`);
      }
    }
    opts.out(
      `${what} is promoted from cluster "${cluster}"${withDeps(deps)}${policy ? `, placed there by ${policy.kind} ${policyName}` : ''}`,
    );
    return { template, dependencies: promoted, ...(policy ? { policy } : {}), created: true };
  } finally {
    await clients.closeAll();
  }
}

interface Dependency {
  type: ResourceType;
  object: KubeObject;
  what: string;
}

const DEPENDENCY_TYPES: Record<string, ResourceType> = {
  ConfigMap: CoreTypes.configMaps,
  Secret: CoreTypes.secrets,
  ServiceAccount: CoreTypes.serviceAccounts,
  PersistentVolumeClaim: {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    kind: 'PersistentVolumeClaim',
  },
};

function withDeps(deps: readonly Dependency[]): string {
  return deps.length > 0 ? ` with ${deps.map((d) => d.what).join(', ')}` : '';
}

/** The objects the template references (dependencies.ts, as propagateDeps finds them), read from the member. */
async function memberDependencies(
  opts: PromoteOptions,
  member: KubeClient,
  template: KubeObject,
): Promise<Dependency[]> {
  const out: Dependency[] = [];
  for (const ref of dependenciesOf(template)) {
    const type = DEPENDENCY_TYPES[ref.kind];
    if (!type) continue;
    const what = describe(ref.kind, ref.namespace, ref.name);
    try {
      const live = await member.get(type, ref.name, ref.namespace);
      out.push({ type, what, object: templateFromMember({ ...live, apiVersion: 'v1', kind: ref.kind }) });
    } catch (e) {
      if (!isNotFound(e)) throw new CommandError(`cluster "${opts.cluster}": ${errorMessage(e)}`);
      opts.warn?.(`${what} is referenced but does not exist in cluster "${opts.cluster}": not promoted`);
    }
  }
  return out;
}

async function exists(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace?: string,
): Promise<boolean> {
  try {
    await client.get(type, name, namespace);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
