// kubefed-agent's flags, checked before anything starts (pure, unit-tested): each bad flag is one readable
// line. Defaults are OCM's work agent's (ocm pkg/work/spoke/options.go) and registration agent's.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDuration } from '../config/duration.ts';
import { parseListenAddress } from '../runtime/http-server.ts';

/** OCM's mount of the hub kubeconfig Secret in the klusterlet (ocm pkg/registration/spoke/options.go). */
export const DEFAULT_HUB_KUBECONFIG = '/spoke/hub-kubeconfig/kubeconfig';
/** Key of the hub kubeconfig Secret (and file beside the kubeconfig) that names the cluster, as OCM's. */
export const CLUSTER_NAME_FILE = 'cluster-name';
export const AGENT_NAME_FILE = 'agent-name';

export interface AgentFlags {
  hubKubeconfig: string;
  clusterName?: string;
  kubeconfig?: string;
  context?: string;
  agentId?: string;
  statusSyncInterval: string;
  leaseDuration: string;
  evictionGracePeriod: string;
  healthzAddr: string;
  metricsAddr: string;
}

export interface AgentConfig {
  hubKubeconfig: string;
  clusterName: string;
  agentId: string;
  kubeconfig?: string;
  context?: string;
  statusSyncIntervalMs: number;
  leaseDurationMs: number;
  evictionGracePeriodMs: number;
  healthzAddr: string;
  metricsAddr: string;
}

export class AgentFlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentFlagError';
  }
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function duration(flag: string, value: string, minMs: number): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (e) {
    throw new AgentFlagError(`--${flag}: ${(e as Error).message}`);
  }
  if (ms < minMs) throw new AgentFlagError(`--${flag}: must be at least ${minMs / 1000}s, not ${value}`);
  return ms;
}

/** Empty turns the endpoint off; anything else must be Go's host:port or :port. */
function address(flag: string, value: string): string {
  if (value === '') return value;
  try {
    parseListenAddress(value);
  } catch (e) {
    throw new AgentFlagError(`--${flag}: ${(e as Error).message}`);
  }
  return value;
}

/** A value the hub kubeconfig Secret carries beside the kubeconfig (OCM's cluster-name, agent-name keys). */
export function readBesideKubeconfig(kubeconfig: string, file: string): string | undefined {
  const path = join(dirname(kubeconfig), file);
  if (!existsSync(path)) return undefined;
  return readFileSync(path, 'utf8').trim() || undefined;
}

/** The agent's configuration from its flags; `beside` reads the files mounted with the hub kubeconfig. */
export function agentConfig(
  flags: AgentFlags,
  beside: (file: string) => string | undefined = (f) => readBesideKubeconfig(flags.hubKubeconfig, f),
): AgentConfig {
  if (!flags.hubKubeconfig) throw new AgentFlagError('--hub-kubeconfig: must not be empty');
  const clusterName = flags.clusterName || beside(CLUSTER_NAME_FILE);
  if (!clusterName) {
    throw new AgentFlagError(
      `--cluster-name is required (or a ${CLUSTER_NAME_FILE} file beside --hub-kubeconfig, as the hub kubeconfig Secret has)`,
    );
  }
  // The cluster's hub namespace is named after it: a namespace name.
  if (!DNS1123_LABEL.test(clusterName) || clusterName.length > 63) {
    throw new AgentFlagError(
      `--cluster-name: "${clusterName}" is not a valid namespace name (RFC 1123 label)`,
    );
  }
  const agentId = flags.agentId || beside(AGENT_NAME_FILE) || clusterName;
  return {
    hubKubeconfig: flags.hubKubeconfig,
    clusterName,
    agentId,
    kubeconfig: flags.kubeconfig || undefined,
    context: flags.context || undefined,
    statusSyncIntervalMs: duration('status-sync-interval', flags.statusSyncInterval, 100),
    leaseDurationMs: duration('lease-duration', flags.leaseDuration, 1000),
    evictionGracePeriodMs: duration('eviction-grace-period', flags.evictionGracePeriod, 0),
    healthzAddr: address('healthz-addr', flags.healthzAddr),
    metricsAddr: address('metrics-addr', flags.metricsAddr),
  };
}
