import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { parseDuration } from '../config/duration.ts';
import { ClusterTaintPolicyController } from '../controllers/clustertaintpolicy/controller.ts';
import { IngressDnsController } from '../controllers/dns/ingress-dns-controller.ts';
import type { DnsControllerOptions, DnsEndpointGroup } from '../controllers/dns/record-shell.ts';
import { ServiceDnsController } from '../controllers/dns/service-dns-controller.ts';
import { ClusterHealthController } from '../controllers/kubefedcluster/controller.ts';
import { SchedulingController } from '../controllers/scheduling/controller.ts';
import { errorMessage, KubeClient } from '../kube/client/index.ts';
import {
  inClusterNamespace,
  inClusterRestConfig,
  isInCluster,
  loadKubeconfig,
  type RestConfig,
  restConfigForContext,
} from '../kube/kubeconfig/index.ts';
import { Members } from '../members/members.ts';
import { EventRecorder } from '../runtime/events.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { Manager, signalsHandler } from '../runtime/manager.ts';
import { FederatedTypeConfigController } from '../sources/federated/type-config-controller.ts';
import { ManifestWorkPushController } from '../sources/manifestwork/push-controller.ts';
import { manifestWorkHubControllers } from '../sources/manifestwork/replicaset/hub-controllers.ts';
import { McsController } from '../sources/mcs/controller.ts';
import { PolicySource } from '../sources/policy/policy-source.ts';
import { Backoff, sleep } from '../util/backoff.ts';
import { VERSION } from '../version.ts';
import { controllerSet } from './controller-set.ts';
import { FatalConfigError, loadKubeFedConfig } from './kubefed-config.ts';
import { kubefedGuard } from './kubefed-lock-check.ts';
import {
  logKubeFedLine,
  STARTING_CLUSTER_CONTROLLER,
  usingValidKubeFedConfig,
} from './kubefed-startup-log.ts';

export const COMPONENT = 'kubefed-controller-manager';
export const LEADER_LOCK_NAME = 'kubefed-controller-manager';
/**
 * Host and member client limits. KubeFed's were 100/200, shared by all of a controller's writes; a new
 * object costs four host writes, so 100 QPS held a type to 25 objects per second (docs/benchmarks.md).
 */
export const DEFAULT_REST_CONFIG_QPS = 250;
export const DEFAULT_REST_CONFIG_BURST = 500;

interface Options {
  kubefedNamespace: string;
  kubeconfig?: string;
  context?: string;
  master?: string;
  kubefedConfig?: string;
  healthzAddr: string;
  metricsAddr: string;
  restConfigQps: number;
  restConfigBurst: number;
  memberDeletionTimeout: string;
  dnsEndpointApi: string;
  dnsHostnamesAsCname: boolean;
  nativeResources: boolean;
  propagatedVersions: boolean;
  resourceEvictionRate: number;
  gracefulEvictionTimeout: string;
  clustersetName: string;
  mcsEndpointLease: string;
  v: number;
}

function buildCommand(): Command {
  return new Command('kubefed-controller-manager')
    .description(
      'The kubefed-ts control plane: cluster health, FederatedTypeConfig and sync (propagation), scheduling and DNS controllers.',
    )
    .option(
      '--kubefed-namespace <ns>',
      'namespace of the KubeFed control plane (default: the pod namespace)',
      '',
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig of the host cluster (default: in-cluster config, then KUBECONFIG)',
    )
    .option('--context <name>', 'kubeconfig context of the host cluster (kubefed-ts extension)')
    .option('--master <url>', 'API server address; overrides the kubeconfig')
    .option(
      '--kubefed-config <path>',
      'read the KubeFedConfig from this YAML file instead of the API (test only)',
    )
    .option('--healthz-addr <addr>', 'address for /healthz and /readyz', ':8080')
    .option('--metrics-addr <addr>', 'address for /metrics', ':9090')
    .addOption(
      new Option('--rest-config-qps <n>', 'QPS of each host client and of each member client')
        .default(DEFAULT_REST_CONFIG_QPS)
        .argParser(Number),
    )
    .addOption(
      new Option('--rest-config-burst <n>', 'burst of each host client and of each member client')
        .default(DEFAULT_REST_CONFIG_BURST)
        .argParser(Number),
    )
    .option(
      '--member-deletion-timeout <duration>',
      'how long deleting a federated object waits for a member that is ready but cannot be read before ' +
        'releasing it; one that is not ready is not waited for (kubefed-ts extension; KubeFed waited forever)',
      '5m',
    )
    .option(
      '--dns-endpoint-api <group>',
      'API group of the DNSEndpoints written for ExternalDNS: multiclusterdns.kubefed.io (KubeFed) or ' +
        'externaldns.k8s.io (ExternalDNS default)',
      'multiclusterdns.kubefed.io',
    )
    .option(
      '--dns-hostnames-as-cname',
      'publish load balancers that only have hostnames as CNAMEs instead of resolving them',
      false,
    )
    .addOption(
      new Option(
        '--native-resources [bool]',
        "serve plain objects placed by Karmada's PropagationPolicy family (policy.karmada.io); needs RBAC " +
          'for those and for the template kinds (kubefed-ts extension)',
      )
        .default(true)
        .argParser((v) => {
          if (v !== 'true' && v !== 'false') throw new InvalidArgumentError('must be true or false');
          return v === 'true';
        }),
    )
    .addOption(
      new Option(
        '--propagated-versions [bool]',
        'record the member versions last written in PropagatedVersion objects, as KubeFed does; false keeps ' +
          "them in each federated object's status.propagatedVersion, written with its status (kubefed-ts extension)",
      )
        .default(false)
        .argParser((v) => {
          if (v !== 'true' && v !== 'false') throw new InvalidArgumentError('must be true or false');
          return v === 'true';
        }),
    )
    .addOption(
      new Option(
        '--resource-eviction-rate <n>',
        "bindings evicted per second from NoExecute-tainted clusters (Karmada's)",
      )
        .default(0.5)
        .argParser(Number),
    )
    .option(
      '--graceful-eviction-timeout <duration>',
      "how long a graceful eviction waits at most (Karmada's)",
      '10m',
    )
    .option(
      '--clusterset-name <name>',
      "the clusterset's name, written as each member's clusterset.k8s.io ClusterProperty where it has none " +
        '(Multi-Cluster Services)',
      'kubefed-ts',
    )
    .option(
      '--mcs-endpoint-lease <duration>',
      'how long a member that is not ready keeps its exported services and endpoints in the clusterset ' +
        '(Multi-Cluster Services)',
      '60s',
    )
    .addOption(new Option('-v, --v <level>', 'log verbosity (0 info, 1+ debug)').default(0).argParser(Number))
    .version(`kubefed-ts ${VERSION}`, '--version') as unknown as Command;
}

function hostRestConfig(o: Options): RestConfig {
  let cfg: RestConfig;
  if (!o.kubeconfig && !o.context && isInCluster()) cfg = inClusterRestConfig();
  else cfg = restConfigForContext(loadKubeconfig({ kubeconfig: o.kubeconfig }), o.context);
  return o.master ? { ...cfg, server: o.master.replace(/\/+$/, '') } : cfg;
}

/** Runs the controller manager until SIGTERM; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  cmd.parse(argv);
  const o = cmd.opts() as unknown as Options;
  const log = createLogger({ name: COMPONENT, level: o.v > 0 ? 'debug' : undefined });
  try {
    return await run(o, log);
  } catch (e) {
    if (e instanceof FatalConfigError || (e instanceof Error && e.name === 'KubeconfigError')) {
      log.fatal(e.message);
      process.stderr.write(`Error: ${e.message}\n`);
      return 1;
    }
    log.fatal({ err: errorMessage(e) }, 'controller manager failed');
    return 1;
  }
}

async function run(o: Options, log: Logger): Promise<number> {
  const namespace = o.kubefedNamespace || inClusterNamespace();
  if (o.dnsEndpointApi !== 'multiclusterdns.kubefed.io' && o.dnsEndpointApi !== 'externaldns.k8s.io') {
    throw new FatalConfigError(
      `--dns-endpoint-api: must be multiclusterdns.kubefed.io or externaldns.k8s.io, not "${o.dnsEndpointApi}"`,
    );
  }
  const dnsEndpointGroup: DnsEndpointGroup = o.dnsEndpointApi;
  let deletionTimeoutMs: number;
  try {
    deletionTimeoutMs = parseDuration(o.memberDeletionTimeout);
  } catch (e) {
    throw new FatalConfigError(`--member-deletion-timeout: ${errorMessage(e)}`);
  }
  let gracefulEvictionTimeoutSeconds: number;
  try {
    gracefulEvictionTimeoutSeconds = parseDuration(o.gracefulEvictionTimeout) / 1_000;
  } catch (e) {
    throw new FatalConfigError(`--graceful-eviction-timeout: ${errorMessage(e)}`);
  }
  let mcsEndpointLeaseMs: number;
  try {
    mcsEndpointLeaseMs = parseDuration(o.mcsEndpointLease);
  } catch (e) {
    throw new FatalConfigError(`--mcs-endpoint-lease: ${errorMessage(e)}`);
  }
  if (!namespace) throw new FatalConfigError('--kubefed-namespace is required when not running in a pod');
  const host = new KubeClient(hostRestConfig(o), {
    name: 'host',
    qps: o.restConfigQps,
    burst: o.restConfigBurst,
    userAgent: COMPONENT,
  });
  const signal = signalsHandler(log);

  // The host may not be up yet (e.g. a restart of the whole control plane): wait for it, not crash-loop.
  const backoff = new Backoff(1000, 30_000);
  let loaded: Awaited<ReturnType<typeof loadKubeFedConfig>> | undefined;
  while (!loaded) {
    try {
      loaded = await loadKubeFedConfig({ client: host, namespace, file: o.kubefedConfig, logger: log });
    } catch (e) {
      if (e instanceof FatalConfigError) throw e;
      const delay = backoff.next();
      log.warn(
        { err: errorMessage(e), retryInMs: delay },
        'cannot read the KubeFedConfig from the host; retrying',
      );
      await sleep(delay, signal);
      if (signal.aborted) return 0;
    }
  }
  const { config } = loaded;
  log.info(
    { namespace, scope: config.scope, clusterHealthCheck: config.clusterHealthCheck },
    'loaded KubeFedConfig',
  );
  const { metadata } = loaded.object;
  logKubeFedLine(usingValidKubeFedConfig(metadata?.namespace, metadata?.name ?? 'kubefed'), 'main.ts:1');
  // Never beside a live KubeFed controller manager (its ConfigMap/Endpoints lock, not our Lease).
  const kubefed = kubefedGuard({
    host,
    namespace,
    periodMs: config.leaderElect.leaseDurationMs,
    log,
    signal,
  });
  await kubefed.check();

  const identity = `${hostname()}_${randomUUID()}`;
  const manager = new Manager({
    logger: log,
    healthAddr: o.healthzAddr,
    metricsAddr: o.metricsAddr,
    leaderElection: {
      client: host,
      namespace,
      name: LEADER_LOCK_NAME,
      identity,
      leaseDurationMs: config.leaderElect.leaseDurationMs,
      renewDeadlineMs: config.leaderElect.renewDeadlineMs,
      retryPeriodMs: config.leaderElect.retryPeriodMs,
    },
  });
  const events = new EventRecorder(host, COMPONENT, log);
  const health = new ClusterHealthController({
    hostClient: host,
    namespace,
    health: config.clusterHealthCheck,
    events,
    logger: log,
  });
  manager.add(kubefed.runnable);
  manager.add({
    name: 'kubefed-startup-line',
    leaderOnly: true,
    run: async () => logKubeFedLine(STARTING_CLUSTER_CONTROLLER, 'main.ts:1'),
  });
  manager.add(health);
  // The member clusters, built once and shared by every controller that reads or writes members.
  const members = new Members({ host, namespace, logger: log });
  const ftcController = new FederatedTypeConfigController({
    host,
    members,
    namespace,
    config,
    logger: log,
    deletionTimeoutMs,
    versions: o.propagatedVersions ? 'objects' : 'status',
  });
  // The feature gates decide what runs (KubeFed's startControllers; see controller-set.ts).
  const controllers = controllerSet(config.featureGates);
  for (const reason of controllers.notStarted) log.info(reason);
  // OCM's ManifestWorks pushed to Push-mode members by agents run here (docs/manifestwork.md). Each cluster's
  // hub namespace is its own, outside the KubeFed namespace: only a cluster-scoped control plane may use them.
  const manifestWorkPush = controllers.manifestWorkPush && config.scope === 'Cluster';
  // SIG-Multicluster's ServiceExports/ServiceImports (docs/mcs.md): they live in the members' namespaces,
  // all of them, so only a cluster-scoped control plane runs them.
  const mcs = controllers.mcs && config.scope === 'Cluster';
  // Propagation, the ManifestWork push agents and MCS share the members.
  if (controllers.federatedTypeConfig || manifestWorkPush || mcs) manager.add(members);
  if (controllers.federatedTypeConfig) manager.add(ftcController);
  // Native resources placed by Karmada's policies, on the same members and engine. A namespaced control plane
  // has no cluster-wide templates to place, so it serves only Federated<Kind> (docs/native-resources.md).
  if (o.nativeResources && controllers.federatedTypeConfig && config.scope === 'Cluster') {
    const failover = { evictionRate: o.resourceEvictionRate, gracefulEvictionTimeoutSeconds };
    const workers = config.syncController.maxConcurrentReconciles;
    manager.add(
      new PolicySource({ host, members, namespace, deletionTimeoutMs, failover, workers, logger: log }),
    );
    // Karmada's ClusterTaintPolicy: cluster-scoped, so only a cluster-scoped control plane may watch them.
    manager.add(new ClusterTaintPolicyController({ host, namespace, logger: log }));
  }
  // OCM's hub controllers (docs/manifestworkreplicaset.md): they read and write every namespace.
  if (controllers.manifestWorkHub && config.scope === 'Cluster')
    for (const c of manifestWorkHubControllers({ host, namespace, logger: log })) manager.add(c);
  const scheduling = controllers.scheduling
    ? new SchedulingController({ host, namespace, config, ftcs: ftcController, members, logger: log })
    : undefined;
  if (scheduling) manager.add(scheduling);
  // Multi-cluster DNS (KubeFed v0.6's ServiceDNSRecord / IngressDNSRecord): idle unless records exist.
  if (controllers.dns) {
    const dns: DnsControllerOptions = {
      host,
      namespace,
      config,
      ftcs: ftcController,
      members,
      endpointGroup: dnsEndpointGroup,
      hostnamesAsCname: o.dnsHostnamesAsCname,
      logger: log,
    };
    manager.add(new ServiceDnsController(dns));
    manager.add(new IngressDnsController(dns));
  }
  if (manifestWorkPush) manager.add(new ManifestWorkPushController({ host, members, logger: log }));
  if (mcs) {
    manager.add(
      new McsController({
        members,
        clusterSetName: o.clustersetName,
        endpointLeaseMs: mcsEndpointLeaseMs,
        logger: log,
      }),
    );
  }
  manager.addReadyCheck(
    'caches',
    () =>
      !manager.isLeader ||
      (health.hasSynced() && (!controllers.federatedTypeConfig || ftcController.hasSynced())) ||
      'informer caches not synced',
  );

  const exit = await manager.run(kubefed.signal);
  await host.close();
  if (kubefed.detected) {
    log.fatal(kubefed.detected);
    process.stderr.write(`Error: ${kubefed.detected}\n`);
    return 1;
  }
  if (exit === 'leadership-lost') {
    // As KubeFed does: exit so that the supervisor restarts us as a fresh candidate.
    log.error('lost lease; exiting');
    return 1;
  }
  log.info('stopped');
  return 0;
}
