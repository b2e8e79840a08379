import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEDERATION_APISERVER_CONTROLLERS } from '../install/federation-apiserver.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../kube/client/index.ts';
import { renderKubeconfig, writeKubeconfigFile } from '../kube/kubeconfig/index.ts';
import { ApiServer } from './apiserver.ts';
import {
  runsTokenController,
  startControllerManager,
  startKwok,
  startScheduler,
  TOKEN_CONTROLLERS,
} from './components.ts';
import { type Etcd, startEtcd } from './etcd.ts';
import type { ManagedProcess } from './process.ts';
import type { SupervisedProcess } from './supervised-process.ts';
import { waitForTokenController } from './token-controller.ts';

export interface FederationOptions {
  /** Member cluster names, or a count (cluster1..clusterN). Default: cluster1, cluster2. */
  members?: string[] | number;
  hostName?: string;
  /**
   * Run the scheduler, the full controller-manager and kwok in the members (all, or the named ones), with
   * fake nodes, so that Deployments really become available. Without it members get only the controllers
   * `join` needs.
   */
  workloads?: boolean | readonly string[];
  /**
   * The members' `--service-cluster-ip-range` (the host keeps the default), e.g. dual-stack
   * `10.0.0.0/24,fd00:10:96::/108`; give the fake nodes `podCIDRs` of both families too, so kwok's pods
   * get an address of each.
   */
  memberServiceClusterIpRange?: string;
  /**
   * What the host runs besides its apiserver. Default `none` (tests that need no more start faster);
   * `tokens`: the controllers a real host cluster has for what kubefed-ts relies on (namespace deletion,
   * garbage collection of PropagatedVersions, service-account tokens); `federation-apiserver`: the
   * federation API server's layout, Karmada's controller list (FEDERATION_APISERVER_CONTROLLERS) and no
   * nodes, so plain objects are templates nothing runs; `workloads`: as a member with workloads (the full
   * controller-manager, scheduler, kwok and a fake node), for a host that is also a member.
   */
  hostControllers?: HostControllers;
  /**
   * What a member without workloads runs besides its apiserver. Default `tokens` (what `join` needs: the
   * service-account token controllers); `none`: bare apiservers, for a caller that registers members with
   * static tokens itself (the benchmark's scale mode, where ten token controllers would only cost CPU).
   */
  memberControllers?: 'tokens' | 'none';
  /** Fake nodes per member when workloads run; each may carry zone/region labels. */
  nodes?: (cluster: string) => FakeNode[];
  /** Where state, logs and the kubeconfig go; a fresh temp dir by default (removed on stop unless keep). */
  dir?: string;
  keep?: boolean;
}

export type HostControllers = 'none' | 'tokens' | 'federation-apiserver' | 'workloads';

/** What a cluster runs besides its apiserver when it does not run workloads. */
type ClusterControllers = Exclude<HostControllers, 'workloads'>;

const CONTROLLERS: Record<Exclude<ClusterControllers, 'none'>, readonly string[]> = {
  tokens: TOKEN_CONTROLLERS,
  'federation-apiserver': FEDERATION_APISERVER_CONTROLLERS,
};

/**
 * How long a cluster's controller manager may take to fill its first token; a minute and more only on a
 * machine that is very busy, and then join would time out anyway.
 */
const TOKEN_CONTROLLER_TIMEOUT_MS = 120_000;

/** One cluster of the federation: its apiserver plus whatever controllers it runs. */
export class TestCluster {
  readonly name: string;
  readonly api: ApiServer;
  /** Runs the full controller-manager, a scheduler and kwok, so workloads really run. */
  readonly withWorkloads: boolean;
  #components: (ManagedProcess | SupervisedProcess)[] = [];
  /** The controller manager that runs this cluster's token controller, if any. */
  #tokenController: SupervisedProcess | undefined;
  #clients: KubeClient[] = [];

  constructor(name: string, api: ApiServer, withWorkloads: boolean) {
    this.name = name;
    this.api = api;
    this.withWorkloads = withWorkloads;
  }

  get server(): string {
    return this.api.server;
  }

  /** An admin client; closed when the federation stops. */
  client(): KubeClient {
    const c = this.api.client();
    this.#clients.push(c);
    return c;
  }

  async start(opts: { controllers: ClusterControllers }): Promise<void> {
    await this.api.start();
    const controllers = this.withWorkloads
      ? 'all'
      : opts.controllers === 'none'
        ? undefined
        : CONTROLLERS[opts.controllers];
    if (!controllers) return;
    const kcm = startControllerManager(this.api, controllers);
    this.#components.push(kcm);
    if (this.withWorkloads) this.#components.push(startScheduler(this.api), startKwok(this.api));
    if (runsTokenController(controllers)) {
      this.#tokenController = kcm;
      await this.waitForTokenController();
    }
  }

  /**
   * Waits until this cluster's token controller fills a token again: after the apiserver was stopped for a
   * while, the controller manager's informers come back only after their back-off, and a `kubefedctl join`
   * made meanwhile would time out waiting for its token. A no-op for a cluster without a token controller.
   */
  async waitForTokenController(): Promise<void> {
    const kcm = this.#tokenController;
    if (!kcm) return;
    const client = this.api.client();
    try {
      await waitForTokenController(client, {
        timeoutMs: TOKEN_CONTROLLER_TIMEOUT_MS,
        describe: () =>
          `${kcm.name} (${kcm.running ? 'running' : 'not running'}, restarted ${kcm.restarts} times; log ${kcm.logFile}):\n${kcm.tail(30)}`,
      });
    } finally {
      await client.close();
    }
  }

  /** Stops the apiserver only: to clients the cluster is unreachable, as in an outage. */
  async stopApiServer(): Promise<void> {
    await this.api.stop();
  }

  async startApiServer(): Promise<void> {
    await this.api.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#clients.splice(0).map((c) => c.close()));
    await Promise.all(this.#components.splice(0).map((p) => p.stop()));
    await this.api.stop();
  }
}

export interface Federation {
  dir: string;
  host: TestCluster;
  members: TestCluster[];
  /** A kubeconfig with one context per cluster (named like the cluster), current context = host. */
  kubeconfigPath: string;
  cluster(name: string): TestCluster;
  stop(): Promise<void>;
}

/**
 * Starts a host and N member clusters on loopback: one etcd, one kube-apiserver per cluster (each under
 * its own etcd prefix), and per member the controllers it needs. Everything started here is stopped by
 * stop(), and killed by the process hooks if the test process dies first.
 */
export async function startFederation(opts: FederationOptions = {}): Promise<Federation> {
  const memberNames =
    typeof opts.members === 'number'
      ? Array.from({ length: opts.members }, (_, i) => `cluster${i + 1}`)
      : (opts.members ?? ['cluster1', 'cluster2']);
  const hostName = opts.hostName ?? 'host';
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'kubefed-ts-federation-'));
  mkdirSync(dir, { recursive: true });
  let etcd: Etcd | undefined;
  const clusters: TestCluster[] = [];
  const stop = async () => {
    await Promise.all(clusters.map((c) => c.stop()));
    await etcd?.stop();
    if (!opts.keep && !opts.dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    etcd = await startEtcd(join(dir, 'etcd'));
    for (const name of [hostName, ...memberNames]) {
      const isHost = name === hostName;
      const api = await ApiServer.create({
        name,
        dir: join(dir, name),
        etcdUrl: etcd.url,
        ...(!isHost && opts.memberServiceClusterIpRange
          ? { serviceClusterIpRange: opts.memberServiceClusterIpRange }
          : {}),
      });
      const workloads = isHost
        ? opts.hostControllers === 'workloads'
        : typeof opts.workloads === 'object'
          ? opts.workloads.includes(name)
          : Boolean(opts.workloads);
      clusters.push(new TestCluster(name, api, workloads));
    }
    const hostControllers: ClusterControllers =
      opts.hostControllers === undefined || opts.hostControllers === 'workloads'
        ? 'none'
        : opts.hostControllers;
    // Start in parallel: on two cores this is what keeps a 3-cluster start-up in seconds.
    await Promise.all(
      clusters.map((c) =>
        c.start({
          controllers: c.name === hostName ? hostControllers : (opts.memberControllers ?? 'tokens'),
        }),
      ),
    );
    await Promise.all(
      clusters
        .filter((c) => c.withWorkloads)
        .map((c) => createFakeNodes(c, opts.nodes?.(c.name) ?? [{ name: `${c.name}-node-0` }])),
    );
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeKubeconfigFile(
      kubeconfigPath,
      renderKubeconfig(
        clusters.map((c) => ({
          name: c.name,
          server: c.server,
          caData: c.api.caData,
          token: c.api.adminToken,
        })),
        hostName,
      ),
    );
    const [host, ...members] = clusters as [TestCluster, ...TestCluster[]];
    return {
      dir,
      host,
      members,
      kubeconfigPath,
      cluster(name: string) {
        const c = clusters.find((x) => x.name === name);
        if (!c) throw new Error(`no cluster named ${name} in this federation`);
        return c;
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

const DEFAULT_NODE_ALLOCATABLE = { cpu: '32', memory: '256Gi', pods: '110' } as const;

/** A fake node: its labels (zones, regions) and, for capacity tests, what it can hold. */
export interface FakeNode {
  name: string;
  labels?: Record<string, string>;
  /** status.allocatable and capacity; default cpu 32, memory 256Gi, pods 110. */
  allocatable?: Record<string, string>;
  /** spec.podCIDRs, where kwok takes pod IPs from (one per family: dual-stack pods); kwok's --cidr by default. */
  podCIDRs?: string[];
}

/** Nodes that kwok manages: Ready, with capacity, and the labels a test asks for (zones, regions). */
export async function createFakeNodes(cluster: TestCluster, nodes: readonly FakeNode[]): Promise<void> {
  const client = cluster.client();
  for (const n of nodes) {
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: n.name,
        annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
        labels: { 'kubernetes.io/hostname': n.name, 'kubernetes.io/os': 'linux', type: 'kwok', ...n.labels },
      },
      ...(n.podCIDRs ? { spec: { podCIDR: n.podCIDRs[0], podCIDRs: n.podCIDRs } } : {}),
      status: {
        allocatable: { ...(n.allocatable ?? DEFAULT_NODE_ALLOCATABLE) },
        capacity: { ...(n.allocatable ?? DEFAULT_NODE_ALLOCATABLE) },
      },
    };
    await client.create(CoreTypes.nodes, node);
  }
}
