import { execFile } from 'node:child_process';
import { join } from 'node:path';
import {
  API_VERSION,
  KUBEFED_CONFIG_KIND,
  type KubeFedCluster,
  KubeFedClusterType,
  KubeFedConfigType,
} from '../../src/api/core/v1beta1/index.ts';
import { defaultKubeFedConfigSpec } from '../../src/config/index.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import { REPO_ROOT } from '../../src/paths.ts';
import {
  type ControllerManagerProcess,
  startKubefedControllerManager,
} from '../../src/testing/controller-manager-process.ts';
import type { Federation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';

export const NS = 'kube-federation-system';

/** Timings that keep the suite fast: a 1 s health period and a 4 s leader lease. */
export const FAST_CONFIG = {
  clusterHealthCheck: { period: '1s', timeout: '1s', failureThreshold: 3, successThreshold: 1 },
  leaderElect: {
    leaseDuration: '4s',
    renewDeadline: '3s',
    retryPeriod: '1s',
    resourceLock: 'leases' as const,
  },
};

/** CRDs, namespace and a KubeFedConfig with fast timings in the host, as an installation would leave them. */
export async function prepareHost(
  host: KubeClient,
  spec: Record<string, unknown> = FAST_CONFIG,
): Promise<void> {
  await installControlPlane(host, NS);
  await host.create(KubeFedConfigType, {
    apiVersion: API_VERSION,
    kind: KUBEFED_CONFIG_KIND,
    metadata: { name: 'kubefed', namespace: NS },
    spec: defaultKubeFedConfigSpec(spec, 'Cluster'),
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs bin/kubefedctl as a user would, on the project's Node. */
export function kubefedctl(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'src/cli/kubefedctl.ts'), ...args],
      { env: { ...process.env, ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export type ClusterObject = KubeObject & KubeFedCluster;

export function condition(c: ClusterObject | undefined, type: string) {
  return c?.status?.conditions?.find((x) => x.type === type);
}

export async function waitForCluster(
  host: KubeClient,
  name: string,
  what: string,
  check: (c: ClusterObject) => boolean,
  timeoutMs = 30_000,
): Promise<ClusterObject> {
  let last: ClusterObject | undefined;
  await waitFor(
    `KubeFedCluster ${name} ${what}`,
    async () => {
      last = await host.get<ClusterObject>(KubeFedClusterType, name, NS);
      return check(last);
    },
    { timeoutMs, intervalMs: 200, describe: () => JSON.stringify(last?.status ?? null) },
  );
  return last as ClusterObject;
}

/** The usual integration setup: CRDs and a fast KubeFedConfig in the host, then a controller manager. */
export async function startControlPlane(
  fed: Federation,
): Promise<{ host: KubeClient; cm: ControllerManagerProcess }> {
  const host = fed.host.client();
  await prepareHost(host);
  const cm = await startKubefedControllerManager({
    kubeconfig: fed.kubeconfigPath,
    context: 'host',
    namespace: NS,
    logFile: join(fed.dir, 'kubefed-controller-manager.log'),
  });
  return { host, cm };
}
