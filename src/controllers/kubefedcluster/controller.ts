import {
  AGENT_LEASE_NAME,
  API_VERSION,
  type ClusterCondition,
  KUBEFED_CLUSTER_KIND,
  type KubeFedCluster,
  type KubeFedClusterStatus,
  KubeFedClusterType,
  syncModeOf,
} from '../../api/core/v1beta1/index.ts';
import {
  CoreTypes,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../../kube/client/index.ts';
import { ClusterClients } from '../../members/cluster-clients.ts';
import { ClusterConfigError, type ClusterSecret } from '../../members/cluster-config.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { logFailure } from '../../runtime/failure-log.ts';
import type { Informer } from '../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import {
  clusterHealthStatusDuration,
  joinedClusterTotal,
  kubefedClusterTotal,
} from '../../runtime/metrics.ts';
import { writeStatusIfChanged } from '../../runtime/status.ts';
import { withTypeMeta } from '../../runtime/type-meta.ts';
import { taintString } from '../../sources/policy/taints.ts';
import { sleep } from '../../util/backoff.ts';
import { dropUndefined } from '../../util/drop-undefined.ts';
import {
  applyThresholds,
  type HealthMemory,
  type ProbeResult,
  probeConditions,
  probeState,
  zonesAndRegion,
} from './health.ts';
import { type AgentLease, leaseProbe } from './lease-health.ts';
import { updateClusterTaints } from './taint-writer.ts';
import { healthTaints } from './taints.ts';

type ClusterObject = KubeFedCluster & KubeObject;
type SecretObject = ClusterSecret & KubeObject;
const CLUSTER_TYPE_META = { apiVersion: API_VERSION, kind: KUBEFED_CLUSTER_KIND };

export interface HealthCheckConfig {
  periodMs: number;
  timeoutMs: number;
  failureThreshold: number;
  successThreshold: number;
}

export interface ClusterHealthControllerOptions {
  hostClient: KubeClient;
  namespace: string;
  health: HealthCheckConfig;
  events?: EventRecorder;
  logger?: Logger;
  /**
   * Probe times are refreshed at least this often even when nothing else changed (default: max(period, 60s)).
   */
  probeTimeRefreshMs?: number;
}

/**
 * The KubeFedCluster health controller (KubeFed pkg/controller/kubefedcluster/controller.go,
 * (*ClusterController).updateClusterStatus): every period it probes each member's /healthz in parallel, each
 * bounded by the timeout, so one dead member never delays the others; applies the thresholds; and writes
 * Ready/Offline/ConfigMalformed, the version, and zones/region from nodes; then, as Karmada's cluster
 * controller does, taints a cluster that is not ready NoSchedule (docs/cluster-taints.md).
 */
export class ClusterHealthController implements Runnable {
  readonly name = 'kubefedcluster';
  readonly leaderOnly = true;
  readonly #opts: ClusterHealthControllerOptions;
  readonly #log: Logger;
  readonly #clients: ClusterClients;
  readonly #memory = new Map<string, HealthMemory>();
  readonly #lastKind = new Map<string, ProbeResult['kind']>();
  readonly #inFlight = new Set<string>();
  readonly #controller: Controller;
  readonly #clusters: Informer<ClusterObject>;
  readonly #secrets: Informer<SecretObject>;

  constructor(opts: ClusterHealthControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: this.name });
    // Health probes must fail fast and must not queue behind throttling: no 429 retries.
    this.#clients = new ClusterClients({
      timeoutMs: opts.health.timeoutMs,
      maxThrottleRetries: 0,
      qps: 20,
      burst: 30,
    });
    // No queue: every period probes all clusters (KubeFed's wait.Until(updateClusterStatus)).
    this.#controller = new Controller({ name: this.name, logger: this.#log });
    const { hostClient, namespace } = opts;
    this.#clusters = this.#controller.watch<ClusterObject>(
      { client: hostClient, type: KubeFedClusterType, namespace },
      () => ({ onDelete: (c) => void this.#forget(c.metadata.name ?? '') }),
    );
    this.#secrets = this.#controller.watch<SecretObject>({
      client: hostClient,
      type: CoreTypes.secrets,
      namespace,
    });
    this.#controller.loop(async (signal) => {
      this.#log.info({ periodMs: opts.health.periodMs }, 'cluster health controller started');
      while (!signal.aborted) {
        const started = performance.now();
        await this.probeAll();
        await sleep(Math.max(0, opts.health.periodMs - (performance.now() - started)), signal);
      }
    });
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  async run(signal: AbortSignal): Promise<void> {
    await this.#controller.run(signal);
    await this.#clients.closeAll();
  }

  /** One round: every cluster probed concurrently; a probe still running from the last round is skipped. */
  async probeAll(): Promise<void> {
    const clusters = this.#clusters.store.list();
    joinedClusterTotal.set(clusters.length);
    await Promise.allSettled(
      clusters.map(async (cluster) => {
        const name = cluster.metadata.name ?? '';
        if (this.#inFlight.has(name)) return;
        this.#inFlight.add(name);
        try {
          await this.#probeAndUpdate(cluster);
        } catch (e) {
          // Writing the status to the host can fail like any request; only an exception is a bug.
          logFailure(this.#log, 'health check failed', { cluster: name, err: e });
        } finally {
          this.#inFlight.delete(name);
        }
      }),
    );
  }

  async #probeAndUpdate(cluster: ClusterObject): Promise<void> {
    const name = cluster.metadata.name ?? '';
    const timer = clusterHealthStatusDuration.startTimer();
    const pull = syncModeOf(cluster) === 'Pull';
    const { result, version, nodes } = pull ? await this.#readLease(name) : await this.#probe(cluster);
    timer();
    for (const state of ['ready', 'notready', 'offline'] as const) {
      kubefedClusterTotal.set({ state, cluster: name }, probeState(result) === state ? 1 : 0);
    }
    await this.#recordTransition(cluster, result);

    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    // A lease already carries its own tolerance (OCM's 5 × lease duration): no thresholds on top of it.
    const thresholds = pull ? { successThreshold: 1, failureThreshold: 1 } : this.#opts.health;
    const { conditions, memory } = applyThresholds(
      probeConditions(result, now),
      this.#memory.get(name),
      thresholds,
    );
    this.#memory.set(name, memory);
    const current = cluster.status;
    const topology = nodes
      ? zonesAndRegion(nodes, current ?? {})
      : { zones: current?.zones, region: current?.region };
    const status: KubeFedClusterStatus = dropUndefined({
      conditions,
      // Keep the last known version while a cluster is unreachable rather than blanking it.
      kubernetesVersion: version ?? current?.kubernetesVersion,
      zones: topology.zones,
      region: topology.region,
    });
    const written = await writeStatusIfChanged({
      client: this.#opts.hostClient,
      type: KubeFedClusterType,
      typeMeta: CLUSTER_TYPE_META,
      object: cluster,
      compute: () => ({ status, changed: this.#needsWrite(current, status) }),
      // A conflict or a deleted cluster is settled by the next round, which reads the fresh object.
      attempts: 1,
    });
    if (written.kind === 'failed') throw written.error;
    if (written.kind === 'gone') return;
    // Karmada's taintClusterByCondition, after the status as there: NoSchedule while not ready, written only
    // when the taints change. A conflict re-reads, so a user's taint written meanwhile is kept.
    const tainted = await updateClusterTaints(
      this.#opts.hostClient,
      written.kind === 'written' ? written.object : cluster,
      (fresh) => healthTaints(fresh.spec.taints, conditions, now),
    );
    if (tainted.kind === 'written')
      this.#log.info(
        { cluster: name, taints: (tainted.cluster.spec.taints ?? []).map(taintString) },
        'cluster taints updated',
      );
  }

  /**
   * A Pull cluster: the hub holds no credential for it and never calls it; its agent's Lease in the hub
   * namespace named after the cluster says whether it is alive (lease-health.ts). A host that cannot be read
   * throws: nothing is written this round.
   */
  async #readLease(name: string): Promise<{ result: ProbeResult; version?: undefined; nodes?: undefined }> {
    let lease: AgentLease | undefined;
    try {
      lease = await this.#opts.hostClient.get<AgentLease & KubeObject>(
        CoreTypes.leases,
        AGENT_LEASE_NAME,
        name,
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    return { result: leaseProbe(name, lease, Date.now()) };
  }

  async #probe(cluster: ClusterObject): Promise<{
    result: ProbeResult;
    version?: string;
    nodes?: Array<{ metadata?: { labels?: Record<string, string> } }>;
  }> {
    const secretName = cluster.spec?.secretRef?.name ?? '';
    const secret = this.#secrets.store.get(`${this.#opts.namespace}/${secretName}`);
    let client: KubeClient;
    try {
      client = this.#clients.clientFor(cluster, secret);
    } catch (e) {
      if (e instanceof ClusterConfigError) return { result: { kind: 'malformed', detail: e.message } };
      return { result: { kind: 'malformed', detail: errorMessage(e) } };
    }
    let body: string;
    try {
      const res = await client.requestRaw('GET', '/healthz', { timeoutMs: this.#opts.health.timeoutMs });
      if (res.statusCode !== 200) {
        return {
          result: {
            kind: 'unreachable',
            error: `GET /healthz: HTTP ${res.statusCode}: ${res.body.trim().slice(0, 200)}`,
          },
        };
      }
      body = res.body;
    } catch (e) {
      return { result: { kind: 'unreachable', error: errorMessage(e) } };
    }
    if (body.trim().toLowerCase() !== 'ok') return { result: { kind: 'notReady' } };
    let version: string | undefined;
    let nodes: Array<{ metadata?: { labels?: Record<string, string> } }> | undefined;
    const [v, n] = await Promise.allSettled([
      client.request<{ gitVersion?: string }>('GET', '/version', { timeoutMs: this.#opts.health.timeoutMs }),
      client.list(CoreTypes.nodes, { limit: 1000 }),
    ]);
    if (v.status === 'fulfilled') version = v.value.gitVersion;
    // Without node access (e.g. RBAC) zones/region keep whatever the user set.
    if (n.status === 'fulfilled') nodes = n.value.items;
    return { result: { kind: 'ready' }, version, nodes };
  }

  #needsWrite(current: KubeFedClusterStatus | undefined, next: KubeFedClusterStatus): boolean {
    if (!current) return true;
    const strip = (s: KubeFedClusterStatus) => ({
      ...s,
      conditions: (s.conditions ?? []).map(({ lastProbeTime: _, ...c }: ClusterCondition) => c),
    });
    // The API server returns keys sorted, we build them in another order: compare canonically.
    if (!jsonEqual(strip(current), strip(next))) return true;
    const lastProbe = Date.parse(current.conditions?.[0]?.lastProbeTime ?? '');
    const refresh = this.#opts.probeTimeRefreshMs ?? Math.max(this.#opts.health.periodMs, 60_000);
    return !(lastProbe > 0) || Date.now() - lastProbe >= refresh;
  }

  async #recordTransition(cluster: ClusterObject, result: ProbeResult): Promise<void> {
    const name = cluster.metadata.name ?? '';
    const previous = this.#lastKind.get(name);
    this.#lastKind.set(name, result.kind);
    if (previous === result.kind || !this.#opts.events) return;
    const obj = withTypeMeta(cluster, CLUSTER_TYPE_META);
    if (result.kind === 'malformed') {
      logFailure(this.#log, 'cluster configuration is malformed', {
        cluster: name,
        err: result.detail,
        kind: 'config',
        transition: true,
      });
      await this.#opts.events.record(
        obj,
        'Warning',
        'MalformedClusterConfig',
        `The configuration for this cluster may be malformed: ${result.detail}`,
      );
    } else if (result.kind === 'unreachable') {
      logFailure(this.#log, 'cluster is not reachable', {
        cluster: name,
        err: result.error,
        kind: 'unreachable',
        transition: true,
      });
      await this.#opts.events.record(
        obj,
        'Warning',
        'RetrievingClusterHealthFailed',
        `Failed to retrieve health of the cluster: ${result.error}`,
      );
    } else if (previous !== undefined) {
      this.#log.info({ cluster: name, state: result.kind }, 'cluster health changed');
    }
  }

  async #forget(name: string): Promise<void> {
    this.#memory.delete(name);
    this.#lastKind.delete(name);
    for (const state of ['ready', 'notready', 'offline'] as const)
      kubefedClusterTotal.remove({ state, cluster: name });
    await this.#clients.remove(name);
  }
}
