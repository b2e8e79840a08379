// The kubefed-agent command: runs in a Pull member, fetches the ManifestWorks of its hub namespace with
// its own hub kubeconfig, applies them to the member (WorkAgent, src/engine/agent/work-agent.ts) and renews
// its cluster Lease on the hub (lease-heartbeat.ts). See docs/pull-mode.md.
import { Command, Option } from '@commander-js/extra-typings';
import { WorkAgent } from '../engine/agent/work-agent.ts';
import { errorMessage, KubeClient } from '../kube/client/index.ts';
import {
  inClusterRestConfig,
  isInCluster,
  loadKubeconfig,
  type RestConfig,
  restConfigForContext,
} from '../kube/kubeconfig/index.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { Manager, signalsHandler } from '../runtime/manager.ts';
import { VERSION } from '../version.ts';
import { LeaseHeartbeat } from './lease-heartbeat.ts';
import { type AgentConfig, AgentFlagError, agentConfig, DEFAULT_HUB_KUBECONFIG } from './options.ts';

export const COMPONENT = 'kubefed-agent';

function buildCommand() {
  return new Command(COMPONENT)
    .description(
      'kubefed-ts agent for a Pull member: applies the ManifestWorks of its hub namespace to this cluster and ' +
        'reports their status; renews the cluster lease the hub reads its health from.',
    )
    .option(
      '--hub-kubeconfig <path>',
      'kubeconfig of the hub (the hub kubeconfig Secret of join --mode pull)',
      DEFAULT_HUB_KUBECONFIG,
    )
    .option(
      '--cluster-name <name>',
      'name of this cluster on the hub, also its hub namespace (default: the cluster-name file beside --hub-kubeconfig)',
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig of this (member) cluster (default: in-cluster config, then KUBECONFIG)',
    )
    .option('--context <name>', 'kubeconfig context of this cluster')
    .option(
      '--agent-id <id>',
      'identity written into each AppliedManifestWork (spec.agentID) and the lease holder (default: the agent-name file beside --hub-kubeconfig, else the cluster name)',
    )
    .option(
      '--status-sync-interval <duration>',
      'how often the status of applied resources is read back',
      '10s',
    )
    .option(
      '--lease-duration <duration>',
      'how often the cluster lease is renewed; the hub allows 5 times this',
      '60s',
    )
    .option(
      '--eviction-grace-period <duration>',
      'how long applied resources of a ManifestWork gone from the hub are kept before they are removed',
      '60m',
    )
    .option('--healthz-addr <addr>', 'address for /healthz and /readyz (empty: none)', ':8080')
    .option(
      '--metrics-addr <addr>',
      'address for /metrics (empty: none; the same as --healthz-addr: shared)',
      ':9090',
    )
    .addOption(new Option('-v, --v <level>', 'log verbosity (0 info, 1+ debug)').default(0).argParser(Number))
    .version(`kubefed-ts ${VERSION}`, '--version');
}

function memberRestConfig(c: AgentConfig): RestConfig {
  if (!c.kubeconfig && !c.context && isInCluster()) return inClusterRestConfig();
  return restConfigForContext(loadKubeconfig({ kubeconfig: c.kubeconfig }), c.context);
}

/** Runs the agent until SIGTERM/SIGINT; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  cmd.parse(argv);
  const o = cmd.opts();
  const log = createLogger({ name: COMPONENT, level: o.v > 0 ? 'debug' : undefined });
  let config: AgentConfig;
  let hubConfig: RestConfig;
  let memberConfig: RestConfig;
  try {
    config = agentConfig(o);
    try {
      hubConfig = restConfigForContext(loadKubeconfig({ kubeconfig: config.hubKubeconfig }));
    } catch (e) {
      throw new AgentFlagError(`--hub-kubeconfig: ${errorMessage(e)}`);
    }
    try {
      memberConfig = memberRestConfig(config);
    } catch (e) {
      throw new AgentFlagError(`--kubeconfig: ${errorMessage(e)}`);
    }
  } catch (e) {
    const message = errorMessage(e);
    log.fatal(message);
    process.stderr.write(`Error: ${message}\n`);
    return 1;
  }
  try {
    return await run(config, hubConfig, memberConfig, log);
  } catch (e) {
    log.fatal({ err: errorMessage(e) }, 'kubefed-agent failed');
    process.stderr.write(`Error: ${errorMessage(e)}\n`);
    return 1;
  }
}

async function run(
  c: AgentConfig,
  hubConfig: RestConfig,
  memberConfig: RestConfig,
  log: Logger,
): Promise<number> {
  const hub = new KubeClient(hubConfig, { name: 'hub', userAgent: COMPONENT });
  const member = new KubeClient(memberConfig, { name: c.clusterName, userAgent: COMPONENT });
  const signal = signalsHandler(log);
  log.info(
    { cluster: c.clusterName, agentId: c.agentId, hub: hubConfig.server, member: memberConfig.server },
    'starting kubefed-agent',
  );
  const heartbeat = new LeaseHeartbeat({
    hub,
    namespace: c.clusterName,
    holderIdentity: c.agentId,
    leaseDurationMs: c.leaseDurationMs,
    log,
  });
  const agent = new WorkAgent({
    clusterName: c.clusterName,
    hub,
    hubUrl: hubConfig.server,
    agentId: c.agentId,
    member,
    log,
    statusSyncIntervalMs: c.statusSyncIntervalMs,
    evictionGracePeriodMs: c.evictionGracePeriodMs,
  });
  // One agent per cluster (a Deployment of one replica, Recreate), as OCM's: no leader election.
  const manager = new Manager({ logger: log, healthAddr: c.healthzAddr, metricsAddr: c.metricsAddr });
  manager.add({ name: 'cluster-lease', leaderOnly: false, run: (s) => heartbeat.run(s) });
  manager.add({
    name: 'work-agent',
    leaderOnly: false,
    run: async (s) => {
      await agent.start();
      await new Promise<void>((resolve) => {
        if (s.aborted) resolve();
        s.addEventListener('abort', () => resolve(), { once: true });
      });
      await agent.stop();
    },
  });
  await manager.run(signal);
  await Promise.all([hub.close(), member.close()]);
  log.info('stopped');
  return 0;
}
