// kubefedctl join --mode pull: registers a cluster whose kubefed-agent dials in to the hub. The hub gets the
// cluster's namespace, the agent's ServiceAccount with a token, a Role in that namespace only, the Lease the
// agent renews, and a KubeFedCluster with spec.syncMode Pull and no secretRef: no member credential is ever
// stored on the hub. The agent's install (agent-install.ts) is printed, or applied to the member with
// --cluster-context. Every check runs before the first write; a failure rolls back what this run created.
import { type KubeFedCluster, KubeFedClusterType, syncModeOf } from '../api/core/v1beta1/index.ts';
import { MW_TYPE } from '../engine/agent/applied-work.ts';
import {
  ApiError,
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import {
  AGENT_NAME,
  AGENT_NAMESPACE,
  agentInstallPlan,
  DeploymentType,
  hubAgentServiceAccount,
  hubAgentTokenSecret,
  hubKubeconfig,
  hubPlan,
  type PlannedObject,
} from './agent-install.ts';
import { type GlobalOptions, KubeconfigContext } from './context.ts';
import { CommandError } from './errors.ts';
import { createOrFind, readScope, waitForToken } from './join.ts';

export const JOIN_MODES = ['push', 'pull'] as const;
export type JoinMode = (typeof JOIN_MODES)[number];

/** The default --lease-duration of the agent (OCM's LeaseDurationSeconds). */
export const DEFAULT_AGENT_LEASE_SECONDS = 60;

export interface PullJoinOptions extends GlobalOptions {
  clusterName: string;
  /** The member's context: given, the agent is installed there unless printAgentInstall. */
  clusterContext?: string;
  /** Return the agent's install for the caller to print instead of applying it. */
  printAgentInstall?: boolean;
  /** KubeFedCluster spec.apiEndpoint (informational): default the member context's server. */
  apiEndpoint?: string;
  /** The hub URL the agent dials: default the host context's server. */
  hubApiEndpoint?: string;
  agentImage?: string;
  /** An existing member ClusterRole to bind as the agent's execution role (default: kubefed-agent:execution). */
  agentExecutionRole?: string;
  leaseDurationSeconds?: number;
  errorOnExisting: boolean;
  provider?: string;
  tokenTimeoutMs?: number;
  out?: (line: string) => void;
}

export interface PullJoinResult {
  kubefedCluster: KubeObject;
  hubObjects: KubeObject[];
  /** The member objects of the agent (the hub kubeconfig Secret holds the agent's hub token). */
  agentInstall: KubeObject[];
  /** Whether the install was applied to the member (else the caller prints it). */
  installed: boolean;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export async function joinPull(opts: PullJoinOptions): Promise<PullJoinResult> {
  const out = opts.out ?? (() => {});
  const C = opts.clusterName;
  // Its hub namespace is named after it.
  if (!DNS1123_LABEL.test(C) || C.length > 63) {
    throw new CommandError(
      `invalid cluster name "${C}": a Pull cluster's name is its hub namespace, a lowercase RFC 1123 label`,
    );
  }
  const ns = opts.kubefedNamespace;
  const leaseDurationSeconds = opts.leaseDurationSeconds ?? DEFAULT_AGENT_LEASE_SECONDS;
  const ctx = new KubeconfigContext(opts.kubeconfig);
  try {
    const hostContext = ctx.hostContextName(opts.hostClusterContext);
    const hostConfig = ctx.restConfig(hostContext);
    const host = ctx.client(hostContext, 'host', hostConfig);
    const memberConfig = opts.clusterContext ? ctx.restConfig(opts.clusterContext) : undefined;
    const member =
      memberConfig && opts.clusterContext ? ctx.client(opts.clusterContext, C, memberConfig) : undefined;
    const apiEndpoint =
      opts.apiEndpoint ||
      memberConfig?.server ||
      (ctx.config.contexts.has(C) ? ctx.restConfig(C).server : undefined);
    if (!apiEndpoint) {
      throw new CommandError(
        `the API endpoint of cluster ${C} is unknown: pass --api-endpoint (it is only recorded; the hub never calls a Pull cluster) or --cluster-context`,
      );
    }
    const hubUrl = opts.hubApiEndpoint || hostConfig.server;

    // --- Preflight: read-only ---------------------------------------------------------------------------
    await readScope(host, ns, hostContext);
    const hubWhat = `host cluster (context "${hostContext}")`;
    const existing = await getOrUndefined<KubeObject & KubeFedCluster>(
      host,
      KubeFedClusterType,
      C,
      ns,
      hubWhat,
    );
    if (existing && opts.errorOnExisting)
      throw new CommandError(`federated cluster ${C} already exists in host cluster`);
    if (existing && syncModeOf(existing) !== 'Pull') {
      throw new CommandError(
        `federated cluster ${C} is joined in Push mode; unjoin it first to join it in Pull mode`,
      );
    }
    const hubNs = await getOrUndefined(host, CoreTypes.namespaces, C, undefined, hubWhat);
    const plan = hubPlan({
      cluster: C,
      kubefedNamespace: ns,
      apiEndpoint,
      provider: opts.provider,
      leaseDurationSeconds,
    });
    if (opts.errorOnExisting && hubNs) {
      for (const { type, object } of plan.objects) {
        if (type === KubeFedClusterType) continue;
        const found = await getOrUndefined(host, type, object.metadata.name ?? '', C, hubWhat);
        if (found)
          throw new CommandError(
            `${type.kind} ${C}/${object.metadata.name} already exists in the host cluster`,
          );
      }
    }
    const memberWhat = `cluster "${C}" (context "${opts.clusterContext}", ${memberConfig?.server})`;
    if (member) {
      const deployment = await getOrUndefined(
        member,
        DeploymentType,
        AGENT_NAME,
        AGENT_NAMESPACE,
        memberWhat,
      );
      if (deployment && opts.errorOnExisting) {
        throw new CommandError(
          `Deployment ${AGENT_NAMESPACE}/${AGENT_NAME} already exists in joining cluster ${C}`,
        );
      }
    }
    const installFor = (token: string, caData: Buffer | undefined) =>
      agentInstallPlan({
        cluster: C,
        kubeconfig: hubKubeconfig({ cluster: C, hubUrl, caData, token }),
        image: opts.agentImage,
        executionRole: opts.agentExecutionRole,
        leaseDurationSeconds,
      });
    const hubObjects = [...(hubNs ? [] : [plan.namespace.object]), ...plan.objects.map((o) => o.object)];
    if (opts.dryRun) {
      return {
        kubefedCluster: plan.kubefedCluster,
        hubObjects,
        agentInstall: installFor('<the token of the hub Secret>', hostConfig.caData).map((o) => o.object),
        installed: false,
      };
    }

    // --- Writes, with an undo journal -----------------------------------------------------------------
    const undo: Array<() => Promise<unknown>> = [];
    try {
      if (!hubNs) await create(host, plan.namespace, undo, hubWhat);
      for (const step of plan.objects) {
        if (step.type === KubeFedClusterType) continue;
        await ensure(host, step, opts.errorOnExisting, undo, hubWhat);
      }
      out(
        `Created namespace ${C}, service account ${C}/${hubAgentServiceAccount(C)}, its Role and Lease in the host cluster`,
      );
      const secret = await waitForToken(host, hubAgentTokenSecret(C), C, {
        timeoutMs: opts.tokenTimeoutMs ?? 30_000,
        account: `service account ${C}/${hubAgentServiceAccount(C)} in the host cluster`,
        pollMs: 500,
        secret: plan.objects.find((o) => o.type === CoreTypes.secrets)?.object,
      });
      const token = Buffer.from(secret.data?.token ?? '', 'base64').toString('utf8');
      const secretCa = secret.data?.['ca.crt'] ? Buffer.from(secret.data['ca.crt'], 'base64') : undefined;
      const caData = hostConfig.caData ?? (hostConfig.insecureSkipTLSVerify ? undefined : secretCa);
      const install = installFor(token, caData);

      if (existing) {
        await host.patch(
          KubeFedClusterType,
          C,
          { spec: plan.kubefedCluster.spec },
          { namespace: ns, patchType: 'merge' },
        );
        plan.kubefedCluster.metadata = existing.metadata;
      } else {
        const created = await host.create(KubeFedClusterType, plan.kubefedCluster);
        undo.push(() => host.delete(KubeFedClusterType, C, { namespace: ns }));
        plan.kubefedCluster.metadata = created.metadata;
      }
      out(`Created KubeFedCluster ${ns}/${C} (syncMode Pull) in the host cluster`);
      if (member) {
        for (const step of install) await ensure(member, step, false, undo, memberWhat);
        out(`Installed kubefed-agent in namespace ${AGENT_NAMESPACE} of cluster ${C}`);
      }
      return {
        kubefedCluster: plan.kubefedCluster,
        hubObjects,
        agentInstall: install.map((o) => o.object),
        installed: Boolean(member),
      };
    } catch (e) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      if (e instanceof CommandError) throw e;
      throw new CommandError(`join of cluster ${C} failed (changes rolled back): ${errorMessage(e)}`);
    }
  } finally {
    await ctx.close();
  }
}

async function getOrUndefined<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string | undefined,
  what: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(type, name, namespace);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    if (e instanceof ApiError) throw new CommandError(`${what}: ${e.message}`);
    throw new CommandError(`cannot reach ${what}: ${errorMessage(e)}`);
  }
}

async function create(
  client: KubeClient,
  { type, object }: PlannedObject,
  undo: Array<() => Promise<unknown>>,
  what: string,
): Promise<void> {
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  try {
    await client.create(type, object);
  } catch (e) {
    throw e instanceof ApiError
      ? new CommandError(`${what}: creating ${type.kind} ${name}: ${e.message}`)
      : e;
  }
  undo.push(() => client.delete(type, name, { namespace }));
}

/**
 * Creates an object, or (without --error-on-existing) brings an existing one in line: its spec-like fields
 * are replaced. A Lease keeps its renewals and a token Secret its token.
 */
async function ensure(
  client: KubeClient,
  step: PlannedObject,
  errorOnExisting: boolean,
  undo: Array<() => Promise<unknown>>,
  what: string,
): Promise<void> {
  const { type, object } = step;
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  if ((await createOrFind(client, type, object, errorOnExisting, undo, what)) === 'created') return;
  if (type === CoreTypes.namespaces || type === CoreTypes.leases || type === CoreTypes.serviceAccounts)
    return;
  if (type === CoreTypes.secrets && object.type === 'kubernetes.io/service-account-token') return;
  const existing = await client.get(type, name, namespace);
  if ('roleRef' in object && JSON.stringify(existing.roleRef) !== JSON.stringify(object.roleRef)) {
    await client.delete(type, name, { namespace });
    await client.create(type, object);
    return;
  }
  const { metadata: _m, apiVersion: _a, kind: _k, status: _s, ...fields } = object;
  await client.update(type, {
    ...existing,
    ...fields,
    metadata: { ...existing.metadata, labels: object.metadata.labels },
  });
}

/** Hub objects a Pull unjoin removes, last created first (the namespace is handled on its own). */
export function pullHubCleanup(cluster: string): Array<[ResourceType, string]> {
  return hubPlan({ cluster, kubefedNamespace: '', apiEndpoint: '', leaseDurationSeconds: 0 })
    .objects.filter((o) => o.type !== KubeFedClusterType)
    .map((o): [ResourceType, string] => [o.type, o.object.metadata.name ?? ''])
    .reverse();
}

/** Member objects a Pull unjoin removes with --cluster-context: the agent first, its CRD and AMWs stay. */
export function pullMemberCleanup(): Array<[ResourceType, string, string | undefined]> {
  return agentInstallPlan({ cluster: 'x', kubeconfig: '', leaseDurationSeconds: 0 })
    .filter((o) => o.type !== CoreTypes.crds)
    .map((o): [ResourceType, string, string | undefined] => [
      o.type,
      o.object.metadata.name ?? '',
      o.object.metadata.namespace,
    ])
    .reverse();
}

export interface PullUnjoinContext {
  ctx: KubeconfigContext;
  host: KubeClient;
  clusterName: string;
  kubefedNamespace: string;
  /** Given: the agent is removed from the member too (its CRD, AppliedManifestWorks and workloads stay). */
  clusterContext?: string;
  force: boolean;
  dryRun: boolean;
  out: (line: string) => void;
  warn: (line: string) => void;
}

export interface PullUnjoinResult {
  deleted: Array<{ cluster: 'member' | 'host'; kind: string; name: string; namespace?: string }>;
  memberSkipped: boolean;
}

/**
 * unjoin of a Pull cluster: the agent's Deployment goes first when the member is reachable (so it stops
 * renewing), then the hub side — the agent's RBAC, token, Lease and ServiceAccount, the KubeFedCluster, and
 * the cluster's namespace unless ManifestWorks are left in it (deleting them would wait forever on finalizers
 * no agent removes any more) — then the rest of the agent's install.
 */
export async function unjoinPull(c: PullUnjoinContext): Promise<PullUnjoinResult> {
  const C = c.clusterName;
  const result: PullUnjoinResult = { deleted: [], memberSkipped: !c.clusterContext };
  const del = async (
    client: KubeClient,
    where: 'member' | 'host',
    type: ResourceType,
    name: string,
    namespace?: string,
  ) => {
    try {
      if (c.dryRun) await client.get(type, name, namespace);
      else await client.delete(type, name, { namespace });
      result.deleted.push({ cluster: where, kind: type.kind ?? type.plural, name, namespace });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  };
  let member: KubeClient | undefined;
  if (c.clusterContext) {
    try {
      member = c.ctx.client(c.clusterContext, C);
      await del(member, 'member', DeploymentType, AGENT_NAME, AGENT_NAMESPACE);
    } catch (e) {
      const msg = `cannot remove kubefed-agent from cluster "${C}": ${errorMessage(e)}`;
      if (!c.force) throw new CommandError(`${msg} (use --force to remove it from the host anyway)`);
      c.warn(`${msg}; skipping the member side because of --force`);
      member = undefined;
      result.memberSkipped = true;
    }
  }
  try {
    for (const [type, name] of pullHubCleanup(C)) await del(c.host, 'host', type, name, C);
    await del(c.host, 'host', KubeFedClusterType, C, c.kubefedNamespace);
    const works = await c.host
      .list(MW_TYPE, { namespace: C, limit: 1 })
      .then((l) => l.items.length)
      .catch((e: unknown) => (isNotFound(e) ? 0 : Promise.reject(e)));
    if (works > 0) c.warn(`namespace ${C} still holds ManifestWorks on the hub; it is kept`);
    else await del(c.host, 'host', CoreTypes.namespaces, C);
  } catch (e) {
    throw new CommandError(`removing cluster "${C}" from the host failed: ${errorMessage(e)}`);
  }
  c.out(`Removed KubeFedCluster ${c.kubefedNamespace}/${C} and the agent's access from the host cluster`);
  if (!c.clusterContext) {
    c.out(
      `kubefed-agent is still installed in cluster ${C}: pass --cluster-context to remove it, or delete namespace ` +
        `${AGENT_NAMESPACE} and the ClusterRoles and ClusterRoleBindings ${AGENT_NAME} and ${AGENT_NAME}:execution there`,
    );
  }
  if (member) {
    try {
      for (const [type, name, namespace] of pullMemberCleanup())
        await del(member, 'member', type, name, namespace);
      c.out(`Removed kubefed-agent from cluster ${C} (its AppliedManifestWorks and what they applied stay)`);
    } catch (e) {
      if (!c.force) throw new CommandError(`cleaning up cluster "${C}" failed: ${errorMessage(e)}`);
      c.warn(`cleaning up cluster "${C}" failed: ${errorMessage(e)}; continuing because of --force`);
      result.memberSkipped = true;
    }
  }
  return result;
}
