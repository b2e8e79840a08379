import { entryPointScript } from '../paths.ts';
import { freePort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

export interface AgentProcess {
  process: ManagedProcess;
  healthUrl: string;
  metricsUrl: string;
  logFile: string;
}

/**
 * Starts `kubefed-agent` as its own process, on the project's Node, as its Deployment in a Pull member
 * would run: the hub kubeconfig (the one `kubefedctl join --mode pull` made) and the member's kubeconfig.
 */
export async function startAgent(opts: {
  hubKubeconfig: string;
  memberKubeconfig: string;
  memberContext?: string;
  clusterName: string;
  logFile: string;
  name?: string;
  /** Extra flags, e.g. --lease-duration=1s --status-sync-interval=1s. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  waitReady?: boolean;
}): Promise<AgentProcess> {
  const [hp, mp] = [await freePort(), await freePort()];
  const proc = ManagedProcess.start(
    opts.name ?? `kubefed-agent-${opts.clusterName}`,
    process.execPath,
    [
      entryPointScript('agent'),
      `--hub-kubeconfig=${opts.hubKubeconfig}`,
      `--kubeconfig=${opts.memberKubeconfig}`,
      ...(opts.memberContext ? [`--context=${opts.memberContext}`] : []),
      `--cluster-name=${opts.clusterName}`,
      `--healthz-addr=127.0.0.1:${hp}`,
      `--metrics-addr=127.0.0.1:${mp}`,
      ...(opts.args ?? []),
    ],
    { logFile: opts.logFile, env: { ...process.env, ...opts.env } },
  );
  const healthUrl = `http://127.0.0.1:${hp}`;
  if (opts.waitReady !== false) {
    await waitFor(
      'kubefed-agent to serve /healthz',
      async () => {
        if (!proc.running) throw new Error(`kubefed-agent exited:\n${proc.tail()}`);
        return (await fetch(`${healthUrl}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );
  }
  return { process: proc, healthUrl, metricsUrl: `http://127.0.0.1:${mp}`, logFile: opts.logFile };
}
