import type { KubeFedCluster } from '../api/core/v1beta1/index.ts';
import { KubeClient, type KubeClientOptions } from '../kube/client/index.ts';
import { buildClusterRestConfig, type ClusterSecret } from './cluster-config.ts';

/**
 * Member clients, one per KubeFedCluster, rebuilt when the cluster's spec or its token Secret changes
 * (KubeFed only rebuilt on spec changes, so a rotated token needed a restart: kubefed#1132).
 * Each client owns its own connection pool, so one slow member cannot starve the others.
 */
export class ClusterClients {
  readonly #options: KubeClientOptions;
  readonly #clients = new Map<
    string,
    { spec: KubeFedCluster['spec']; secretVersion: string | null; fingerprint: string; client: KubeClient }
  >();

  constructor(options: KubeClientOptions = {}) {
    this.#options = options;
  }

  /** Throws ClusterConfigError when the cluster cannot be reached as configured. */
  clientFor(cluster: KubeFedCluster, secret: ClusterSecret | undefined): KubeClient {
    const name = cluster.metadata?.name ?? '';
    const secretVersion = secret?.metadata.resourceVersion ?? null;
    const existing = this.#clients.get(name);
    // Called for every member write: the informer's spec object is the same until the cluster changes, so
    // the serialised fingerprint (the CA bundle and all) is only computed for a spec not seen before.
    if (existing?.spec === cluster.spec && existing.secretVersion === secretVersion) return existing.client;
    const fingerprint = JSON.stringify([cluster.spec, secretVersion]);
    if (existing?.fingerprint === fingerprint) {
      existing.spec = cluster.spec;
      existing.secretVersion = secretVersion;
      return existing.client;
    }
    const config = buildClusterRestConfig(cluster, secret);
    if (existing) void existing.client.close();
    const client = new KubeClient(config, { ...this.#options, name });
    this.#clients.set(name, { spec: cluster.spec, secretVersion, fingerprint, client });
    return client;
  }

  get(name: string): KubeClient | undefined {
    return this.#clients.get(name)?.client;
  }

  async remove(name: string): Promise<void> {
    const c = this.#clients.get(name);
    this.#clients.delete(name);
    await c?.client.close();
  }

  names(): string[] {
    return [...this.#clients.keys()];
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#clients.keys()].map((n) => this.remove(n)));
  }
}
