import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KubeFedCluster } from '../api/core/v1beta1/index.ts';
import { isClusterReady, KubeFedClusterType } from '../api/core/v1beta1/index.ts';
import { installControlPlane } from '../install/control-plane.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { entryPointScript, REPO_ROOT } from '../paths.ts';
import { registerAdmissionWebhooks, startAdmissionWebhook } from '../testing/admission-webhook-process.ts';
import { binary, binDir } from '../testing/binaries.ts';
import { startKubefedControllerManager } from '../testing/controller-manager-process.ts';
import { startFederation } from '../testing/federation.ts';
import { waitFor } from '../testing/ports.ts';
import { runsBinary, setDetachedPidFile } from '../testing/process.ts';
import { applySample, readSample } from './apply-sample.ts';
import { CommandError } from './errors.ts';
import { join as joinCluster } from './join.ts';

export const DEFAULT_LOCAL_DIR = '.local-federation';
/** What local-up propagates unless told otherwise: KubeFed's example/sample1. */
export const DEFAULT_SAMPLE = join(REPO_ROOT, 'config/samples/local-up.yaml');

/**
 * local-up runs the controller manager and webhook scripts and reads the CRDs and the sample: a clone and the
 * npm package have them, the single executable (src/build/sea.ts) does not.
 */
function requireLocalUpFiles(): void {
  const needed = [
    entryPointScript('controller-manager'),
    entryPointScript('webhook'),
    join(REPO_ROOT, 'config', 'crds'),
    join(REPO_ROOT, 'hack', 'install-k8s-binaries.sh'),
  ];
  const missing = needed.find((f) => !existsSync(f));
  if (missing)
    throw new CommandError(
      `local-up needs kubefed-ts's files (${missing} is missing): run it from the npm package or a clone, not the single executable`,
    );
}

export interface LocalUpOptions {
  dir: string;
  members: string[];
  namespace: string;
  /** A YAML file of Namespaces and Federated<Kind> objects to propagate once the members are Ready; '' for none. */
  sample?: string;
  /**
   * Join the host as a member too, named after its context (`host`), as KubeFed's own local setup does
   * (its scripts/deploy-kubefed.sh joins the host cluster). The host then also runs workloads, and so
   * plain objects applied to it (templates) run there too.
   */
  hostAsMember?: boolean;
  out: (line: string) => void;
}

/**
 * Brings up a federation on this machine: one etcd, a host and member kube-apiservers, the clusters'
 * controllers (the host is a federation API server: it deletes namespaces, collects garbage and mints tokens,
 * but has no nodes and no workload controllers; see docs/federation-apiserver.md), the KubeFed CRDs and namespace, kubefed-controller-manager and the admission webhooks, and every member joined with
 * `kubefedctl join`. The processes are detached and keep running after the command returns; local-down
 * stops them.
 */
export async function localUp(opts: LocalUpOptions): Promise<{ kubeconfig: string }> {
  const dir = resolve(opts.dir);
  const pidFile = join(dir, 'pids');
  requireLocalUpFiles();
  const sampleFile = opts.sample ?? DEFAULT_SAMPLE;
  // Read before anything starts, so a bad sample leaves nothing behind.
  const sample = sampleFile ? readSample(sampleFile) : [];
  if (runningPids(pidFile).length > 0) {
    throw new CommandError(
      `a local federation is already running in ${dir}; run "kubefedctl local-down --dir ${opts.dir}" first`,
    );
  }
  // Built (or found cached) before anything starts, with the installer's progress lines on stderr.
  try {
    binDir();
  } catch {
    throw new CommandError(
      'the Kubernetes binaries could not be built; hack/install-k8s-binaries.sh said why above',
    );
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  setDetachedPidFile(pidFile);
  const started = Date.now();
  try {
    opts.out(`Starting etcd and kube-apiservers for host and ${opts.members.join(', ')}...`);
    // Members run kwok nodes, a scheduler and a controller manager, so federated workloads really run; the
    // host is a federation API server (Karmada's layout: no nodes, no workload controllers), or runs all of
    // a member's controllers when it is one.
    const fed = await startFederation({
      members: opts.members,
      dir: join(dir, 'clusters'),
      keep: true,
      workloads: true,
      hostControllers: opts.hostAsMember ? 'workloads' : 'federation-apiserver',
    });
    opts.out(hostLayoutLine(opts.hostAsMember ?? false));
    const joined = opts.hostAsMember ? [fed.host.name, ...opts.members] : opts.members;
    const kubeconfig = join(dir, 'kubeconfig');
    copyFileSync(fed.kubeconfigPath, kubeconfig);
    const host = fed.host.client();
    await installControlPlane(host, opts.namespace, { defaultTypes: true });
    opts.out(
      `Installed the KubeFed CRDs, namespace ${opts.namespace} and the default federated types in the host`,
    );
    // The admission webhooks, registered by URL with a self-signed CA, so invalid objects are refused at apply time.
    const webhook = await startAdmissionWebhook({
      dir: join(dir, 'webhook'),
      logFile: join(dir, 'kubefed-admission-webhook.log'),
      // The host (the kubeconfig's current context), so created Federated<Kind>s carry the sync finalizer.
      kubeconfig,
      kubefedNamespace: opts.namespace,
    });
    await registerAdmissionWebhooks(host, webhook);
    opts.out(`Started kubefed-admission-webhook on ${webhook.url} and registered its webhooks`);
    await startKubefedControllerManager({
      kubeconfig,
      context: fed.host.name,
      namespace: opts.namespace,
      logFile: join(dir, 'kubefed-controller-manager.log'),
    });
    opts.out('Started kubefed-controller-manager');
    for (const m of joined) {
      await joinCluster({
        clusterName: m,
        kubeconfig,
        hostClusterContext: fed.host.name,
        kubefedNamespace: opts.namespace,
        errorOnExisting: true,
        dryRun: false,
      });
      opts.out(`Joined ${m}`);
    }
    await waitFor(
      'every member to become Ready',
      async () => {
        const list = await host.list<KubeObject & KubeFedCluster>(KubeFedClusterType, {
          namespace: opts.namespace,
        });
        return (
          list.items.length === joined.length && list.items.every((c) => isClusterReady(c.status?.conditions))
        );
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    if (sample.length > 0) {
      opts.out(`Propagating the sample ${sampleFile}`);
      await applySample(host, sample, opts.out);
    }
    await host.close();
    opts.out(`Local federation is up in ${Math.round((Date.now() - started) / 1000)}s.\n`);
    const kubectl = (args: string[]) =>
      execFileSync(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
    opts.out(kubectl(['--context', fed.host.name, '-n', opts.namespace, 'get', 'kubefedclusters']));
    for (const ns of new Set(sample.filter((d) => d.kind !== 'Namespace').map((d) => d.metadata.namespace))) {
      if (!ns) continue;
      const kinds = [
        ...new Set(
          sample
            .filter((d) => d.metadata.namespace === ns && d.kind !== 'FederatedNamespace')
            .map((d) => (d.kind ?? '').toLowerCase()),
        ),
      ];
      if (kinds.length > 0) opts.out(kubectl(['--context', fed.host.name, '-n', ns, 'get', kinds.join(',')]));
      const targets = kinds.map((k) => k.replace(/^federated/, ''));
      for (const m of joined) {
        opts.out(`In ${m}:`);
        opts.out(
          kubectl(['--context', m, '-n', ns, 'get', targets.join(','), '-l', 'kubefed.io/managed=true']),
        );
      }
    }
    opts.out(
      `Use it with:  export KUBECONFIG=${kubeconfig}   (contexts: ${[fed.host.name, ...opts.members].join(', ')})`,
    );
    opts.out(
      `Stop it with: ${opts.dir === DEFAULT_LOCAL_DIR ? 'make local-down' : `bin/kubefedctl local-down --dir ${opts.dir}`}`,
    );
    return { kubeconfig };
  } catch (e) {
    await localDown({ dir: opts.dir, out: () => {} });
    throw e;
  } finally {
    setDetachedPidFile(undefined);
  }
}

/** What the host is, said once at start-up: where a plain object applied to it runs, if anywhere. */
export function hostLayoutLine(hostAsMember: boolean): string {
  return hostAsMember
    ? 'Warning: --host-as-member: the host runs every controller, a scheduler and a node, so plain objects ' +
        'applied to it (templates) run on the host too and its controllers write their status'
    : 'The host is a federation API server: no nodes and only the namespace, garbage-collector, token, CSR ' +
        'and role-aggregation controllers, so plain objects applied to it are templates that nothing runs there';
}

function runningPids(pidFile: string): Array<{ pid: number; binary: string }> {
  if (!existsSync(pidFile)) return [];
  return readFileSync(pidFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const i = line.indexOf(' ');
      return { pid: Number(line.slice(0, i)), binary: line.slice(i + 1) };
    })
    .filter(({ pid, binary }) => runsBinary(pid, binary));
}

function isLiveProcess(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Stops every process local-up started (SIGTERM, then SIGKILL) and removes its directory. */
export async function localDown(opts: { dir: string; out: (line: string) => void }): Promise<void> {
  const dir = resolve(opts.dir);
  const pidFile = join(dir, 'pids');
  const procs = runningPids(pidFile);
  // Controllers first, etcd last, so nothing logs a storm of errors on the way down.
  for (const { pid } of procs.reverse()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  // Identity was checked once above; from here on a pid counts until it is gone or a zombie (a process on
  // its way out has an empty cmdline, so re-checking the binary would let it slip through).
  const alive = () => procs.filter(({ pid }) => isLiveProcess(pid));
  const deadline = Date.now() + 15_000;
  while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const { pid } of alive()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  while (alive().length > 0) await new Promise((r) => setTimeout(r, 50));
  rmSync(dir, { recursive: true, force: true });
  opts.out(
    procs.length > 0
      ? `Stopped ${procs.length} processes and removed ${dir}`
      : `No local federation running in ${dir}`,
  );
}
