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
  /** Print the template and policy (no server changes, as karmadactl's -o). */
  output: PromoteOutput;
  dryRun: boolean;
  out: (text: string) => void;
  warn?: (line: string) => void;
}

export interface PromoteResult {
  template: KubeObject;
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
    const policy = opts.autoCreatePolicy ? promotionPolicy(template, cluster, policyName) : undefined;
    if (opts.output) {
      const docs = policy ? [template, policy] : [template];
      opts.out(
        opts.output === 'json'
          ? docs.map((d) => `${JSON.stringify(d, null, 2)}\n`).join('')
          : docs.map((d) => toYaml(d)).join('---\n'),
      );
      return { template, ...(policy ? { policy } : {}), created: false };
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
    } catch (e) {
      if (e instanceof CommandError) throw e;
      throw hostError(e, host.name);
    }
    if (opts.dryRun) {
      opts.out(`${what} would be promoted from cluster "${cluster}" (dry run)`);
      return { template, ...(policy ? { policy } : {}), created: false };
    }
    try {
      await host.create(type, template, { namespace });
    } catch (e) {
      throw new CommandError(`failed to create ${what} on the federation API server: ${errorMessage(e)}`);
    }
    if (policy) {
      try {
        await host.create(policyType, policy, { namespace });
      } catch (e) {
        const cause = errorMessage(e);
        // Leave nothing half-done: the template goes again, so that a retry starts clean.
        try {
          await host.delete(type, opts.name, { namespace });
        } catch (d) {
          throw new CommandError(
            `failed to create ${policy.kind} ${policyName}: ${cause}; deleting the template ${what} failed too (${errorMessage(d)}): delete it by hand`,
          );
        }
        throw new CommandError(
          `failed to create ${policy.kind} ${policyName}: ${cause} (the template was removed again)`,
        );
      }
    }
    opts.out(
      `${what} is promoted from cluster "${cluster}"${policy ? `, placed there by ${policy.kind} ${policyName}` : ''}`,
    );
    return { template, ...(policy ? { policy } : {}), created: true };
  } finally {
    await clients.closeAll();
  }
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
