import { Command } from 'commander';
import type { FederatedTypeConfigObject } from '../federation-types/federated-crd.ts';
import type { KubeClient } from '../kube/client/index.ts';
import { KubeconfigContext } from '../kubefedctl/context.ts';
import { CommandError } from '../kubefedctl/errors.ts';
import { type MemberRbacResult, reportMemberRbac, syncScopedMembers } from '../kubefedctl/member-rbac.ts';

interface SyncRbacFlags {
  kubeconfig?: string;
  hostClusterContext?: string;
  kubefedNamespace: string;
  dryRun: boolean;
  clusterContext?: string;
}

type Printer = (line: string) => void;

/**
 * After disable / federate --enable-type: updates the roles of members joined with --scoped-rbac (all of
 * them, through the kubeconfig contexts named after them), and fails naming any that could not be.
 */
export async function syncScopedMembersAfterTypeChange(
  o: { kubeconfig?: string; kubefedNamespace: string },
  host: KubeClient,
  out: Printer,
  warn: Printer,
): Promise<void> {
  const results = await syncScopedMembers({
    host,
    kubeconfig: o.kubeconfig,
    kubefedNamespace: o.kubefedNamespace,
  });
  reportMemberRbac(results, out, warn);
}

/**
 * For enable: grants the type to scoped members just before its FTC is written (so its sync controller never
 * meets a 403), and reports afterwards, so that a member that could not be updated fails the command without
 * undoing the enable for the others.
 */
export function scopedMemberGrant(
  o: { kubeconfig?: string; kubefedNamespace: string },
  host: KubeClient,
  out: Printer,
  warn: Printer,
): { beforeFtcWrite: (ftc: FederatedTypeConfigObject) => Promise<void>; report: () => void } {
  let results: MemberRbacResult[] = [];
  return {
    beforeFtcWrite: async (ftc) => {
      results = await syncScopedMembers({
        host,
        kubeconfig: o.kubeconfig,
        kubefedNamespace: o.kubefedNamespace,
        pendingFtc: ftc,
      });
    },
    report: () => reportMemberRbac(results, out, warn),
  };
}

/** `kubefedctl sync-rbac [CLUSTER_NAME]`: re-computes scoped members' roles from the host's FTCs. */
export function syncRbacCommand(
  withGlobalFlags: (c: Command) => Command,
  out: Printer,
  warn: Printer,
): Command {
  const cmd = new Command('sync-rbac')
    .description(
      'Update the RBAC of clusters joined with --scoped-rbac to the federated types enabled in the host',
    )
    .argument('[cluster-name]', 'the cluster to update (default: every cluster joined with --scoped-rbac)')
    .option(
      '--cluster-context <context>',
      'kubeconfig context with admin rights in the cluster (default: CLUSTER_NAME)',
    );
  withGlobalFlags(cmd).action(async (clusterName: string | undefined, o: SyncRbacFlags) => {
    if (o.clusterContext && !clusterName) throw new CommandError('--cluster-context needs a CLUSTER_NAME');
    const ctx = new KubeconfigContext(o.kubeconfig);
    try {
      const host = ctx.client(ctx.hostContextName(o.hostClusterContext));
      const results = await syncScopedMembers({
        host,
        kubeconfig: o.kubeconfig,
        kubefedNamespace: o.kubefedNamespace,
        clusterName,
        clusterContext: o.clusterContext,
        dryRun: o.dryRun,
      });
      if (results.length === 0) out('No cluster was joined with --scoped-rbac');
      reportMemberRbac(results, out, warn, o.dryRun);
    } finally {
      await ctx.close();
    }
  });
  return cmd;
}
