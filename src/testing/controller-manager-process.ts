import { entryPointScript } from '../paths.ts';
import { freePort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

export interface ControllerManagerProcess {
  process: ManagedProcess;
  healthUrl: string;
  metricsUrl: string;
  logFile: string;
}

/** Starts `kubefed-controller-manager` as its own process, on the project's Node, like a deployment would. */
export async function startKubefedControllerManager(opts: {
  kubeconfig: string;
  context: string;
  namespace: string;
  logFile: string;
  name?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  waitReady?: boolean;
  /** The command to run instead of this clone's entry point on this Node, e.g. an installed package's bin. */
  command?: string;
  cwd?: string;
  /** The source tree whose entry point runs (a worktree of another commit, for the benchmark's baseline). */
  root?: string;
}): Promise<ControllerManagerProcess> {
  const [hp, mp] = [await freePort(), await freePort()];
  const proc = ManagedProcess.start(
    opts.name ?? 'kubefed-controller-manager',
    opts.command ?? process.execPath,
    [
      ...(opts.command ? [] : [entryPointScript('controller-manager', opts.root)]),
      `--kubeconfig=${opts.kubeconfig}`,
      `--context=${opts.context}`,
      `--kubefed-namespace=${opts.namespace}`,
      `--healthz-addr=127.0.0.1:${hp}`,
      `--metrics-addr=127.0.0.1:${mp}`,
      ...(opts.args ?? []),
    ],
    { logFile: opts.logFile, env: { ...process.env, ...opts.env }, cwd: opts.cwd },
  );
  const healthUrl = `http://127.0.0.1:${hp}`;
  if (opts.waitReady !== false) {
    await waitFor(
      'kubefed-controller-manager to serve /healthz',
      async () => {
        if (!proc.running) throw new Error(`kubefed-controller-manager exited:\n${proc.tail()}`);
        return (await fetch(`${healthUrl}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );
  }
  return { process: proc, healthUrl, metricsUrl: `http://127.0.0.1:${mp}`, logFile: opts.logFile };
}
