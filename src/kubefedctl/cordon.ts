// kubefedctl cordon / uncordon CLUSTER (karmadactl cordon): the cluster.karmada.io/unschedulable:NoSchedule
// taint keeps new placement off a cluster while what runs there stays. Idempotent, as karmadactl's.

import { ClusterTaintKey, type Taint, TaintEffect } from '../api/core/v1beta1/kubefedcluster.ts';
import { updateClusterTaints } from '../controllers/kubefedcluster/taint-writer.ts';
import { sameTaint } from '../controllers/kubefedcluster/taints.ts';
import type { KubeClient } from '../kube/client/index.ts';
import { CommandError } from './errors.ts';

export const UNSCHEDULABLE_TAINT: Taint = {
  key: ClusterTaintKey.Unschedulable,
  effect: TaintEffect.NoSchedule,
};

/** The taints with the cordon taint added (cordon) or removed (uncordon); undefined when already so. */
export function cordonTaints(current: readonly Taint[] | undefined, cordon: boolean): Taint[] | undefined {
  const taints = current ?? [];
  const has = taints.some((t) => sameTaint(t, UNSCHEDULABLE_TAINT));
  if (has === cordon) return undefined;
  return cordon
    ? [...taints, { ...UNSCHEDULABLE_TAINT }]
    : taints.filter((t) => !sameTaint(t, UNSCHEDULABLE_TAINT));
}

export interface CordonCommand {
  host: Pick<KubeClient, 'get' | 'update'>;
  kubefedNamespace: string;
  cluster: string;
  cordon: boolean;
  dryRun: boolean;
  out: (line: string) => void;
}

/** karmadactl's RunCordonOrUncordon, with its output: `NAME cluster cordoned` / `already cordoned`. */
export async function cordonCluster(cmd: CordonCommand): Promise<void> {
  const verb = cmd.cordon ? 'cordon' : 'uncordon';
  let changed = false;
  const res = await updateClusterTaints(
    cmd.host,
    { name: cmd.cluster, namespace: cmd.kubefedNamespace },
    (c) => {
      const next = cordonTaints(c.spec.taints, cmd.cordon);
      changed = next !== undefined;
      return cmd.dryRun ? undefined : next;
    },
  );
  if (res.kind === 'gone')
    throw new CommandError(
      `kubefedclusters.core.kubefed.io "${cmd.cluster}" not found in namespace "${cmd.kubefedNamespace}"`,
    );
  cmd.out(
    `${cmd.cluster} cluster ${changed ? `${verb}ed` : `already ${verb}ed`}${cmd.dryRun && changed ? ' (dry run)' : ''}`,
  );
}
