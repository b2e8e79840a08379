// The controllers under test, each installed and started as its users would: its own CRDs and
// FederatedTypeConfigs in the host, its own controller-manager process against the host kubeconfig.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { FederatedTypeConfigType } from '../src/api/core/v1beta1/index.ts';
import { applyCrds, ensureNamespace } from '../src/install/control-plane.ts';
import {
  CoreTypes,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../src/kube/client/index.ts';
import type { RestConfig } from '../src/kube/kubeconfig/index.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { kubefedDir } from '../src/testing/binaries.ts';
import { startKubefedControllerManager } from '../src/testing/controller-manager-process.ts';
import { freePort, waitFor } from '../src/testing/ports.ts';
import { ManagedProcess } from '../src/testing/process.ts';
import { MUTATING_CONFIGURATION_NAME, VALIDATING_CONFIGURATION_NAME } from '../src/webhook/index.ts';
import type { BaselineTree } from './baseline.ts';
import { inspectOption } from './heap-probe.ts';

export const KUBEFED_NAMESPACE = 'kube-federation-system';

/**
 * `baseline`: kubefed-ts at another commit (--baseline <git-rev>), see baseline.ts. `kubefed-ts-native`: this
 * tree's kubefed-ts again, fed plain objects and one PropagationPolicy instead of Federated<Kind>s.
 */
export type SystemId = 'kubefed-ts' | 'kubefed' | 'baseline' | 'kubefed-ts-native';

/**
 * What the user applies to the host: `federated` (KubeFed's Federated<Kind> wrappers and a FederatedNamespace)
 * or `native` (the plain objects themselves and one policy.karmada.io PropagationPolicy, docs/native-resources.md).
 */
export type FrontEnd = 'federated' | 'native';

export interface RunningController {
  /** The controller-manager's own pid. */
  pid: number;
  /**
   * Every process of the system's control plane, for its CPU group: the controller-manager and, for kubefed-ts,
   * its admission webhook.
   */
  pids: number[];
  /** SIGTERM and wait (kubefed-ts writes its --cpu-prof profile on this exit). */
  stop(): Promise<void>;
  /**
   * SIGKILL the controller-manager and wait until it has exited: a crash, for restart runs (no profile, no
   * lease release). `start()` again with the same options starts it anew.
   */
  kill(): Promise<void>;
  /** The controller-manager's /readyz, when it serves one. */
  readyUrl?: string;
  logFile: string;
  /** The controller's own /metrics, for its heap in use (nodejs_heap_size_used_bytes / go_memstats_heap_alloc_bytes). */
  metricsUrl: string;
  heapMetric: string;
  /** The controller-manager's inspector port on loopback, when started with `inspect` (for `liveHeapBytes`). */
  inspectPort?: number;
}

export interface SystemUnderTest {
  id: SystemId;
  /** For the table. */
  label: string;
  frontEnd: FrontEnd;
  /**
   * KubeFedConfig syncController.maxConcurrentReconciles this system gets by default (what its users get
   * without setting it): kubefed-ts's defaulting, KubeFed v0.10's webhook default.
   */
  defaultSyncWorkers: number;
  /**
   * CRDs and FTCs in the host (replacing whatever the other system left); restConfig for an installer that
   * brings its own client.
   */
  install(host: KubeClient, restConfig: RestConfig): Promise<void>;
  /** args: flags both controller managers share (--rest-config-qps, --rest-config-burst). */
  start(opts: {
    kubeconfig: string;
    dir: string;
    cpuProfDir?: string;
    args: string[];
    /** Node's inspector on a loopback port, so that the live heap can be read (`bench/heap-probe.ts`). */
    inspect?: boolean;
  }): Promise<RunningController>;
}

/**
 * kubefed-ts as built from one source tree (this one, or a worktree of another commit for --baseline): that
 * tree's own CRDs and default FTCs (its installControlPlane), its own KubeFedConfig default for sync workers,
 * and its own `src/cmd/controller-manager.ts` as the process.
 */
export async function kubefedTsFrom(tree: {
  root: string;
  id: SystemId;
  label: string;
  frontEnd?: FrontEnd;
}): Promise<SystemUnderTest> {
  const module = (path: string) => pathToFileURL(join(tree.root, path)).href;
  const config: typeof import('../src/config/index.ts') = await import(module('src/config/index.ts'));
  const controlPlane: typeof import('../src/install/control-plane.ts') = await import(
    module('src/install/control-plane.ts')
  );
  const kube: typeof import('../src/kube/client/index.ts') = await import(module('src/kube/client/index.ts'));
  const kubeconfigs: typeof import('../src/kube/kubeconfig/index.ts') = await import(
    module('src/kube/kubeconfig/index.ts')
  );
  // The tree's admission webhook as its own harness starts it, when the tree sets the sync finalizer at
  // admission. An older baseline runs without it, as the benchmark ran it then: its webhook only validated, and
  // closed idle connections after Node's 5 s keep-alive, which refused creates in a burst (broken pipe).
  const webhookHarness = join(tree.root, 'src/testing/admission-webhook-process.ts');
  const webhooks: typeof import('../src/testing/admission-webhook-process.ts') | undefined = existsSync(
    join(tree.root, 'src/webhook/federated-finalizer.ts'),
  )
    ? await import(pathToFileURL(webhookHarness).href)
    : undefined;
  return {
    id: tree.id,
    label: tree.label,
    frontEnd: tree.frontEnd ?? 'federated',
    defaultSyncWorkers: config.KUBEFED_CONFIG_DEFAULTS.syncController.maxConcurrentReconciles,
    async install(_host, restConfig) {
      // The tree's own client: its installer recognises only its own ApiError (AlreadyExists, NotFound).
      const client = new kube.KubeClient(restConfig, {
        name: `${tree.label}-install`,
        userAgent: 'kubefed-ts-bench',
      });
      try {
        await controlPlane.installControlPlane(client, KUBEFED_NAMESPACE, { defaultTypes: true });
      } finally {
        await client.close();
      }
    },
    async start({ kubeconfig, dir, cpuProfDir, args, inspect }) {
      const name = tree.label.replaceAll(' ', '-');
      // Node's own profiler, written when the process exits: load it in Chrome DevTools or speedscope.
      const profOption = cpuProfDir ? `--cpu-prof --cpu-prof-dir=${cpuProfDir}` : undefined;
      const inspectPort = inspect ? await freePort() : undefined;
      const webhook =
        webhooks &&
        (await startWebhook(webhooks, kube, kubeconfigs, {
          kubeconfig,
          dir,
          name,
          env: nodeOptions(profOption),
        }));
      const logFile = join(dir, `${name}-controller-manager.log`);
      const cm = await startKubefedControllerManager({
        root: tree.root,
        cwd: tree.root,
        kubeconfig,
        context: 'host',
        namespace: KUBEFED_NAMESPACE,
        logFile,
        name: `${tree.label}-controller-manager`,
        args,
        env: nodeOptions(profOption, inspectPort === undefined ? undefined : inspectOption(inspectPort)),
      });
      const pid = cm.process.child.pid ?? 0;
      const webhookPid = webhook?.process.child.pid;
      return {
        pid,
        pids: webhookPid === undefined ? [pid] : [pid, webhookPid],
        logFile,
        async stop() {
          await cm.process.stop(30_000);
          await webhook?.process.stop();
        },
        // A crash of the whole control plane: start() brings up both again.
        async kill() {
          await Promise.all([cm.process.kill(), webhook?.process.kill()]);
        },
        readyUrl: `${cm.healthUrl}/readyz`,
        metricsUrl: `${cm.metricsUrl}/metrics`,
        heapMetric: 'nodejs_heap_size_used_bytes',
        inspectPort,
      };
    },
  };
}

/**
 * The tree's kubefed-admission-webhook, started as its harness starts it (given the host kubeconfig where the tree
 * takes one, for the finalizer at admission) and registered in the host by URL: every write of the front end's
 * objects is then admitted by it, as in a Helm install. The configurations stay registered until
 * deleteWebhookConfigurations (failurePolicy Fail: a system measured after this one must not meet them).
 */
async function startWebhook(
  webhooks: typeof import('../src/testing/admission-webhook-process.ts'),
  kube: typeof import('../src/kube/client/index.ts'),
  kubeconfigs: typeof import('../src/kube/kubeconfig/index.ts'),
  opts: { kubeconfig: string; dir: string; name: string; env?: NodeJS.ProcessEnv },
): Promise<import('../src/testing/admission-webhook-process.ts').AdmissionWebhookProcess> {
  const webhook = await webhooks.startAdmissionWebhook({
    env: opts.env,
    dir: join(opts.dir, `${opts.name}-webhook`),
    logFile: join(opts.dir, `${opts.name}-admission-webhook.log`),
    kubeconfig: opts.kubeconfig,
  });
  const client = new kube.KubeClient(
    kubeconfigs.restConfigForContext(kubeconfigs.loadKubeconfig({ kubeconfig: opts.kubeconfig }), 'host'),
    { name: `${opts.name}-webhook-install`, userAgent: 'kubefed-ts-bench' },
  );
  try {
    await webhooks.registerAdmissionWebhooks(client, webhook);
  } catch (e) {
    await webhook.process.stop();
    throw e;
  } finally {
    await client.close();
  }
  return webhook;
}

const webhookConfigurationTypes: ResourceType[] = [
  CoreTypes.validatingWebhookConfigurations,
  CoreTypes.mutatingWebhookConfigurations,
];

/**
 * Deletes kubefed-ts's webhook configurations (the names this tree registers; a baseline's are the same), so
 * that the next system's objects are not sent to a webhook that no longer runs.
 */
export async function deleteWebhookConfigurations(host: KubeClient): Promise<void> {
  const names = [VALIDATING_CONFIGURATION_NAME, MUTATING_CONFIGURATION_NAME];
  for (const [i, type] of webhookConfigurationTypes.entries()) {
    try {
      await host.delete(type, names[i] ?? '');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

/** This tree's kubefed-ts. */
export const kubefedTs = (): Promise<SystemUnderTest> =>
  kubefedTsFrom({ root: REPO_ROOT, id: 'kubefed-ts', label: 'kubefed-ts' });

/**
 * This tree's kubefed-ts through its native front end: the same CRDs, FTCs and controller-manager process
 * (the policy source runs in it with PushReconciler on and Cluster scope), given plain objects and a policy.
 */
export const kubefedTsNative = (): Promise<SystemUnderTest> =>
  kubefedTsFrom({ root: REPO_ROOT, id: 'kubefed-ts-native', label: 'kubefed-ts native', frontEnd: 'native' });

function yamlDocs(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => Boolean(o?.kind));
}

export const kubefedGo: SystemUnderTest = {
  id: 'kubefed',
  label: 'KubeFed v0.10.0',
  frontEnd: 'federated',
  defaultSyncWorkers: 1,
  async install(host) {
    const dir = kubefedDir();
    await ensureNamespace(host, KUBEFED_NAMESPACE);
    await applyCrds(host, [
      ...yamlDocs(join(dir, 'crds.yaml')),
      ...yamlDocs(join(dir, 'federated-crds.yaml')),
    ]);
    // The chart's FTCs carry no namespace: Helm puts them in the release namespace.
    for (const ftc of yamlDocs(join(dir, 'federatedtypeconfig.yaml'))) {
      try {
        await host.create(FederatedTypeConfigType, {
          ...ftc,
          metadata: { ...ftc.metadata, namespace: KUBEFED_NAMESPACE },
        });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
  },
  async start({ kubeconfig, dir, args }) {
    const logFile = join(dir, 'kubefed-controller-manager.log');
    const [hp, mp] = [await freePort(), await freePort()];
    const proc = ManagedProcess.start(
      'kubefed-v0.10.0-controller-manager',
      join(kubefedDir(), 'controller-manager'),
      [
        `--kubeconfig=${kubeconfig}`,
        `--kubefed-namespace=${KUBEFED_NAMESPACE}`,
        `--healthz-addr=127.0.0.1:${hp}`,
        `--metrics-addr=127.0.0.1:${mp}`,
        // The chart's default (controllermanager.controller.logLevel).
        '--v=2',
        ...args,
      ],
      { logFile },
    );
    await waitFor(
      'KubeFed controller-manager to serve /healthz',
      async () => {
        if (!proc.running) throw new Error(`KubeFed controller-manager exited:\n${proc.tail()}`);
        return (await fetch(`http://127.0.0.1:${hp}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
      },
      { timeoutMs: 60_000, describe: () => proc.tail() },
    );
    const pid = proc.child.pid ?? 0;
    return {
      pid,
      pids: [pid],
      logFile,
      stop: () => proc.stop(30_000),
      kill: () => proc.kill(),
      // No readyUrl: KubeFed serves only /healthz (and pprof) on --healthz-addr, up before it leads.
      metricsUrl: `http://127.0.0.1:${mp}/metrics`,
      heapMetric: 'go_memstats_heap_alloc_bytes',
    };
  },
};

/** NODE_OPTIONS with `options` added to those the bench was given (say --max-old-space-size), not in their place. */
function nodeOptions(...options: Array<string | undefined>): NodeJS.ProcessEnv {
  const all = [process.env.NODE_OPTIONS, ...options].filter(Boolean).join(' ');
  return all ? { NODE_OPTIONS: all } : {};
}

/** The system an id names; `baseline` is kubefed-ts at the checked-out tree, which it needs. */
export async function systemFor(id: SystemId, baseline: BaselineTree | undefined): Promise<SystemUnderTest> {
  if (id === 'kubefed-ts') return kubefedTs();
  if (id === 'kubefed-ts-native') return kubefedTsNative();
  if (id === 'kubefed') return kubefedGo;
  if (baseline) return kubefedTsFrom({ root: baseline.root, id, label: baseline.label });
  throw new Error('the baseline system needs --baseline <git-rev>');
}
