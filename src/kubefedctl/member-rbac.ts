import {
  FederatedTypeConfigType,
  type KubeFedCluster,
  KubeFedClusterType,
} from '../api/core/v1beta1/index.ts';
import type { FederatedTypeConfigObject } from '../federation-types/federated-crd.ts';
import {
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import { hostError, KubeconfigContext } from './context.ts';
import { CommandError } from './errors.ts';
import { memberPlan, readScope } from './join.ts';
import {
  MEMBER_RBAC_ANNOTATION,
  MEMBER_SERVICE_ACCOUNT_ANNOTATION,
  type PolicyRule,
  SCOPED_RBAC_MODE,
  sameRules,
  scopedRbacRules,
} from './scoped-rbac.ts';

export interface SyncMemberRbacOptions {
  /** Client of the host cluster; its name (the host context) appears in errors. */
  host: KubeClient;
  /** Kubeconfig holding the members' contexts (as for join); loaded like kubectl when undefined. */
  kubeconfig?: string;
  kubefedNamespace: string;
  /** Only this cluster (else every cluster joined with --scoped-rbac); an error if it was not joined so. */
  clusterName?: string;
  /** Context of clusterName (default: the cluster's name, as join's --cluster-context). */
  clusterContext?: string;
  /** An FTC about to be written: counted as if it were already in the host (enable grants before it writes). */
  pendingFtc?: FederatedTypeConfigObject;
  dryRun?: boolean;
}

export interface MemberRbacResult {
  cluster: string;
  outcome: 'updated' | 'unchanged' | 'failed';
  /** For 'failed': why, in one line. */
  message?: string;
  context: string;
}

/**
 * Brings the roles of members joined with `--scoped-rbac` in line with the host's enabled FTCs. A member's
 * own service account cannot widen its role (RBAC forbids escalation without the `escalate` verb, which
 * would defeat least privilege), so this uses the caller's kubeconfig context for each member (its admin).
 * Members are updated concurrently; one that cannot be reached or updated is reported, not fatal.
 */
export async function syncScopedMembers(opts: SyncMemberRbacOptions): Promise<MemberRbacResult[]> {
  const { host, kubefedNamespace: ns } = opts;
  let clusters: Array<KubeObject & KubeFedCluster>;
  try {
    clusters = (await host.listAll<KubeObject & KubeFedCluster>(KubeFedClusterType, { namespace: ns })).items;
  } catch (e) {
    // No KubeFedCluster API (a host with only the FTC CRD): no member to update.
    if (isNotFound(e)) return [];
    throw hostError(e, host.name);
  }
  const isScoped = (c: KubeObject) => c.metadata.annotations?.[MEMBER_RBAC_ANNOTATION] === SCOPED_RBAC_MODE;
  if (opts.clusterName) {
    const c = clusters.find((k) => k.metadata.name === opts.clusterName);
    if (!c) throw new CommandError(`KubeFedCluster "${opts.clusterName}" was not found in namespace "${ns}"`);
    if (!isScoped(c)) {
      throw new CommandError(
        `cluster "${opts.clusterName}" was joined with KubeFed's full-access role, not --scoped-rbac; ` +
          'join it again with --scoped-rbac --error-on-existing=false to switch',
      );
    }
    clusters = [c];
  } else {
    clusters = clusters.filter(isScoped);
  }
  // Without scoped members there is nothing to do, and nothing else is read.
  if (clusters.length === 0) return [];

  const scope = await readScope(host, ns, host.name);
  let ftcs: FederatedTypeConfigObject[];
  try {
    ftcs = (await host.listAll<FederatedTypeConfigObject>(FederatedTypeConfigType, { namespace: ns })).items;
  } catch (e) {
    throw hostError(e, host.name);
  }
  const pending = opts.pendingFtc;
  if (pending) ftcs = [...ftcs.filter((f) => f.metadata.name !== pending.metadata.name), pending];
  const rules = scopedRbacRules(ftcs, scope);
  const ctx = new KubeconfigContext(opts.kubeconfig);
  try {
    return await Promise.all(
      clusters.map(async (c): Promise<MemberRbacResult> => {
        const name = c.metadata.name ?? '';
        const context = (opts.clusterName && opts.clusterContext) || name;
        const sa = c.metadata.annotations?.[MEMBER_SERVICE_ACCOUNT_ANNOTATION];
        if (!sa) {
          return {
            cluster: name,
            context,
            outcome: 'failed',
            message: `its annotation ${MEMBER_SERVICE_ACCOUNT_ANNOTATION} is missing`,
          };
        }
        try {
          if (!ctx.config.contexts.has(context)) {
            throw new Error(`no context "${context}" in the kubeconfig`);
          }
          const member = ctx.client(context, name);
          const plan = memberPlan(ns, sa, scope, rules).filter((o) => RBAC_TYPES.includes(o.type));
          let wrote = false;
          for (const { type, object } of plan) {
            wrote = (await applyRbacObject(member, type, object, opts.dryRun ?? false)) || wrote;
          }
          return { cluster: name, context, outcome: wrote ? 'updated' : 'unchanged' };
        } catch (e) {
          return { cluster: name, context, outcome: 'failed', message: errorMessage(e) };
        }
      }),
    );
  } finally {
    await ctx.close();
  }
}

const RBAC_TYPES: readonly ResourceType[] = [
  CoreTypes.roles,
  CoreTypes.roleBindings,
  CoreTypes.clusterRoles,
  CoreTypes.clusterRoleBindings,
];

/** Creates the role or binding, or updates it only where it differs; true when it wrote (or would write). */
async function applyRbacObject(
  member: KubeClient,
  type: ResourceType,
  object: KubeObject,
  dryRun: boolean,
): Promise<boolean> {
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  let existing: KubeObject | undefined;
  try {
    existing = await member.get(type, name, namespace);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  if (!existing) {
    if (!dryRun) await member.create(type, object);
    return true;
  }
  if ('roleRef' in object) {
    // roleRef is immutable: a binding to another role is replaced, as join does.
    if (JSON.stringify(existing.roleRef) !== JSON.stringify(object.roleRef)) {
      if (!dryRun) {
        await member.delete(type, name, { namespace });
        await member.create(type, object);
      }
      return true;
    }
    if (JSON.stringify(existing.subjects) === JSON.stringify(object.subjects)) return false;
    if (!dryRun) await member.update(type, { ...existing, subjects: object.subjects });
    return true;
  }
  if (sameRules(existing.rules as PolicyRule[] | undefined, object.rules as PolicyRule[])) return false;
  if (!dryRun) await member.update(type, { ...existing, rules: object.rules });
  return true;
}

/**
 * Prints what happened to each member and fails (one line, after the others were tried) if any member
 * could not be updated, saying how to finish the job.
 */
export function reportMemberRbac(
  results: readonly MemberRbacResult[],
  out: (line: string) => void,
  warn: (line: string) => void,
  dryRun = false,
): void {
  for (const r of results) {
    if (r.outcome === 'updated')
      out(`${dryRun ? 'Would update' : 'Updated'} the scoped RBAC of cluster "${r.cluster}"`);
    if (r.outcome === 'unchanged') out(`The scoped RBAC of cluster "${r.cluster}" is up to date`);
    if (r.outcome === 'failed')
      warn(
        `could not update the scoped RBAC of cluster "${r.cluster}" (context "${r.context}"): ${r.message}`,
      );
  }
  const failed = results.filter((r) => r.outcome === 'failed');
  if (failed.length > 0) {
    const names = failed.map((r) => r.cluster).join(', ');
    throw new CommandError(
      `the scoped RBAC of ${failed.length === 1 ? 'cluster' : 'clusters'} ${names} was not updated; ` +
        'with admin credentials for each, run: kubefedctl sync-rbac CLUSTER_NAME --cluster-context CONTEXT',
    );
  }
}
