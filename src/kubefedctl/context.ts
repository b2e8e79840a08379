import type { KubeFedCluster } from '../api/core/v1beta1/index.ts';
import { ApiError, CoreTypes, errorMessage, KubeClient, type KubeObject } from '../kube/client/index.ts';
import {
  loadKubeconfig,
  type MergedKubeconfig,
  type RestConfig,
  restConfigForContext,
} from '../kube/kubeconfig/index.ts';
import type { ClusterClients } from '../members/cluster-clients.ts';
import type { ClusterSecret } from '../members/cluster-config.ts';
import { CommandError } from './errors.ts';

/** Flags shared by the cluster-registration commands, as in KubeFed's kubefedctl. */
export interface GlobalOptions {
  kubeconfig?: string;
  hostClusterContext?: string;
  kubefedNamespace: string;
  dryRun: boolean;
}

/** Clients built from one kubeconfig (loaded like kubectl: --kubeconfig, else KUBECONFIG, else ~/.kube/config). */
export class KubeconfigContext {
  readonly config: MergedKubeconfig;
  readonly #clients: KubeClient[] = [];

  constructor(kubeconfig?: string) {
    this.config = loadKubeconfig({ kubeconfig });
  }

  /** The host context: the explicit one, else current-context. */
  hostContextName(explicit?: string): string {
    const name = explicit || this.config.currentContext;
    if (!name)
      throw new CommandError('no host cluster context: set --host-cluster-context or a current-context');
    return name;
  }

  restConfig(context: string): RestConfig {
    return restConfigForContext(this.config, context);
  }

  /** A client for the context; pass its already-resolved config to avoid reading CA/cert files again. */
  client(context: string, name = context, config: RestConfig = this.restConfig(context)): KubeClient {
    const c = new KubeClient(config, { name, timeoutMs: 15_000, userAgent: 'kubefedctl' });
    this.#clients.push(c);
    return c;
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((c) => c.close()));
  }
}

/** Turns a failed host call into one line that says whether the host answered or could not be reached. */
export function hostError(e: unknown, hostContext: string): CommandError {
  if (e instanceof ApiError) return new CommandError(`host cluster (context "${hostContext}"): ${e.message}`);
  return new CommandError(`cannot reach the host cluster (context "${hostContext}"): ${errorMessage(e)}`);
}

/**
 * A client for a member as the controller manager reaches it: from its KubeFedCluster and the Secret with its
 * token in the KubeFed namespace (live commands: plan --live, mcs status).
 */
export async function memberClient(
  host: KubeClient,
  clients: ClusterClients,
  cluster: KubeObject & KubeFedCluster,
  kubefedNamespace: string,
): Promise<KubeClient> {
  const secret = await host.get<KubeObject & ClusterSecret>(
    CoreTypes.secrets,
    cluster.spec?.secretRef?.name ?? '',
    kubefedNamespace,
  );
  return clients.clientFor(cluster, secret);
}
