import type { KubeFedCluster } from '../api/core/v1beta1/index.ts';
import { KubeFedClusterType, syncModeOf } from '../api/core/v1beta1/index.ts';
import {
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { type GlobalOptions, hostError, KubeconfigContext } from './context.ts';
import { CommandError } from './errors.ts';
import { resolveHostClusterName } from './join.ts';
import { unjoinPull } from './join-pull.ts';
import { healthCheckRoleName, roleName, serviceAccountName } from './names.ts';

export interface UnjoinOptions extends GlobalOptions {
  clusterName: string;
  clusterContext?: string;
  hostClusterName?: string;
  /** Carry on past member-side failures (unreachable member, missing context) and clean the host anyway. */
  force: boolean;
  out?: (line: string) => void;
  warn?: (line: string) => void;
}

export interface UnjoinResult {
  deleted: Array<{ cluster: 'member' | 'host'; kind: string; name: string; namespace?: string }>;
  memberSkipped: boolean;
}

/**
 * kubefedctl unjoin (KubeFed pkg/kubefedctl/unjoin.go, UnjoinCluster): removes what join created — RBAC,
 * service account and its token Secret and the KubeFed namespace in the member (unless that namespace is the
 * host's own), then the host Secret and the KubeFedCluster. NotFound counts as done everywhere; propagated
 * workloads stay. The multi-cluster services CRDs join installed stay too: deleting a CRD deletes every
 * object of it, and the member's users may hold ServiceExports there (docs/mcs.md).
 */
export async function unjoin(opts: UnjoinOptions): Promise<UnjoinResult> {
  const out = opts.out ?? (() => {});
  const warn = opts.warn ?? (() => {});
  const C = opts.clusterName;
  const ns = opts.kubefedNamespace;
  const ctx = new KubeconfigContext(opts.kubeconfig);
  const result: UnjoinResult = { deleted: [], memberSkipped: false };
  try {
    const hostContext = ctx.hostContextName(opts.hostClusterContext);
    const H = resolveHostClusterName(opts, hostContext);
    const host = ctx.client(hostContext, 'host');
    const sa = serviceAccountName(C, H);

    let kfc: (KubeObject & KubeFedCluster) | undefined;
    try {
      kfc = await host.get<KubeObject & KubeFedCluster>(KubeFedClusterType, C, ns);
    } catch (e) {
      if (!isNotFound(e)) throw hostError(e, hostContext);
      if (!opts.force)
        throw new CommandError(
          `KubeFedCluster "${C}" was not found in namespace "${ns}" of the host cluster`,
        );
      warn(`KubeFedCluster "${C}" was not found in namespace "${ns}"; continuing because of --force`);
    }

    // A Pull cluster: the hub side is the agent's access; the member side only with --cluster-context.
    if (kfc && syncModeOf(kfc) === 'Pull') {
      return await unjoinPull({
        ctx,
        host,
        clusterName: C,
        kubefedNamespace: ns,
        clusterContext: opts.clusterContext,
        force: opts.force,
        dryRun: opts.dryRun,
        out,
        warn,
      });
    }

    // --- Member side ------------------------------------------------------------------------------------
    let member: KubeClient | undefined;
    try {
      member = ctx.client(opts.clusterContext || C, C);
      // One read first, so that an unreachable member fails before anything is deleted.
      await member.get(CoreTypes.namespaces, ns).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    } catch (e) {
      const msg = `cannot reach cluster "${C}": ${errorMessage(e)}`;
      if (!opts.force) throw new CommandError(`${msg} (use --force to remove it from the host anyway)`);
      warn(`${msg}; skipping the member side because of --force`);
      member = undefined;
      result.memberSkipped = true;
    }
    if (member) {
      const hc = healthCheckRoleName(sa, ns);
      const role = roleName(sa);
      const steps: Array<[ResourceType, string, string | undefined]> = [
        [CoreTypes.clusterRoleBindings, role, undefined],
        [CoreTypes.clusterRoles, role, undefined],
        [CoreTypes.clusterRoleBindings, hc, undefined],
        [CoreTypes.clusterRoles, hc, undefined],
        [CoreTypes.roleBindings, role, ns],
        [CoreTypes.roles, role, ns],
        [CoreTypes.serviceAccounts, sa, ns],
        // The token controller would remove it after the service account; deleting it ourselves makes
        // unjoin complete even where no token controller runs.
        [CoreTypes.secrets, sa, ns],
      ];
      try {
        for (const [type, name, namespace] of steps) {
          if (await deleteIfExists(member, type, name, namespace, opts.dryRun)) {
            result.deleted.push({ cluster: 'member', kind: type.kind ?? type.plural, name, namespace });
          }
        }
        if (!(await isHostNamespace(host, member, ns))) {
          if (await deleteIfExists(member, CoreTypes.namespaces, ns, undefined, opts.dryRun)) {
            result.deleted.push({ cluster: 'member', kind: 'Namespace', name: ns });
          }
        }
      } catch (e) {
        if (!opts.force) throw new CommandError(`cleaning up cluster "${C}" failed: ${errorMessage(e)}`);
        warn(`cleaning up cluster "${C}" failed: ${errorMessage(e)}; continuing because of --force`);
        result.memberSkipped = true;
      }
      out(`Removed the service account ${ns}/${sa} and its RBAC from cluster ${C}`);
    }

    // --- Host side --------------------------------------------------------------------------------------
    if (kfc) {
      const secretName = kfc.spec?.secretRef?.name;
      if (secretName && (await deleteIfExists(host, CoreTypes.secrets, secretName, ns, opts.dryRun))) {
        result.deleted.push({ cluster: 'host', kind: 'Secret', name: secretName, namespace: ns });
      }
      if (await deleteIfExists(host, KubeFedClusterType, C, ns, opts.dryRun)) {
        result.deleted.push({ cluster: 'host', kind: 'KubeFedCluster', name: C, namespace: ns });
      }
      out(`Removed KubeFedCluster ${ns}/${C} from the host cluster`);
    }
    return result;
  } finally {
    await ctx.close();
  }
}

async function deleteIfExists(
  client: KubeClient,
  type: ResourceType,
  name: string,
  namespace: string | undefined,
  dryRun: boolean,
): Promise<boolean> {
  try {
    if (dryRun) {
      await client.get(type, name, namespace);
      return true;
    }
    await client.delete(type, name, { namespace });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** The member is the host itself when its KubeFed namespace has the same UID as the host's. */
async function isHostNamespace(host: KubeClient, member: KubeClient, ns: string): Promise<boolean> {
  try {
    const [h, m] = await Promise.all([
      host.get(CoreTypes.namespaces, ns),
      member.get(CoreTypes.namespaces, ns),
    ]);
    return Boolean(h.metadata.uid) && h.metadata.uid === m.metadata.uid;
  } catch {
    return false;
  }
}
