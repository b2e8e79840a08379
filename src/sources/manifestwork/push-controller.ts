// Push mode: the control plane runs OCM's work agent itself, one per member cluster whose KubeFedCluster says
// `syncMode: Push` (the default), with the host as the hub and the registry's client as the member. An agent
// starts when its cluster is ready and stops when the cluster is removed, not ready, or turned to Pull (its
// own kubefed-agent then pulls). The hub namespace named after the cluster is created when missing.

import { isScopedRbac, syncModeOf } from '../../api/core/v1beta1/index.ts';
import { WorkAgent } from '../../engine/agent/work-agent.ts';
import {
  CoreTypes,
  errorMessage,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
} from '../../kube/client/index.ts';
import type { Members } from '../../members/members.ts';
import { Controller } from '../../runtime/controller.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { ok, type ReconcileResult, retry } from '../../runtime/reconcile.ts';

export interface PushControllerOptions {
  host: KubeClient;
  members: Members;
  logger: Logger;
  /** Passed to every agent; the defaults are OCM's. */
  statusSyncIntervalMs?: number;
  evictionGracePeriodMs?: number;
}

/**
 * Whether a cluster gets a push agent: registered, ready, and in Push mode — and not joined with
 * `--scoped-rbac`, whose member credentials grant only the enabled federated types (no AppliedManifestWorks):
 * such a cluster takes ManifestWorks in Pull mode.
 */
export function wantsPushAgent(
  cluster:
    | { metadata?: { annotations?: Record<string, string> }; spec?: { syncMode?: 'Push' | 'Pull' } }
    | undefined,
  ready: boolean,
): boolean {
  if (isScopedRbac(cluster)) return false;
  return cluster !== undefined && ready && syncModeOf(cluster) === 'Push';
}

export class ManifestWorkPushController implements Runnable {
  readonly name = 'manifestwork-push';
  readonly leaderOnly = true;
  readonly #opts: PushControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #agents = new Map<string, { agent: WorkAgent; member: KubeClient }>();

  constructor(opts: PushControllerOptions) {
    this.#opts = opts;
    this.#log = opts.logger.child({ controller: this.name });
    this.#controller = new Controller({
      name: this.name,
      logger: this.#log,
      reconcile: (name) => this.#reconcile(name),
    })
      .cache(opts.members.asCache())
      .source((enqueue) => opts.members.registry.addListener({ onClusterChange: (name) => enqueue(name) }))
      .beforeWorkers(() => {
        for (const c of opts.members.registry.list()) this.#controller.enqueue(c.metadata.name ?? '');
      })
      .onStop(async () => {
        await Promise.all([...this.#agents.values()].map((a) => a.agent.stop()));
        this.#agents.clear();
      });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  async #reconcile(name: string): Promise<ReconcileResult> {
    const registry = this.#opts.members.registry;
    const cluster = registry.get(name);
    const running = this.#agents.get(name);
    if (!wantsPushAgent(cluster, registry.isReady(name))) {
      if (running) {
        this.#agents.delete(name);
        await running.agent.stop();
        this.#log.info({ cluster: name }, 'stopped the work agent');
      }
      return ok();
    }
    let member: KubeClient;
    try {
      member = registry.clientFor(name);
    } catch (e) {
      return retry(e);
    }
    // A rebuilt client (new Secret or endpoint) gets a fresh agent.
    if (running && running.member === member) return ok();
    try {
      await this.#ensureNamespace(name);
    } catch (e) {
      this.#log.warn({ cluster: name, err: errorMessage(e) }, 'could not create the hub namespace');
      return retry(e);
    }
    if (running) await running.agent.stop();
    const agent = new WorkAgent({
      clusterName: name,
      hub: this.#opts.host,
      hubUrl: this.#opts.host.config.server,
      // The cluster's name, as kubefed-agent's default: the same in every controller-manager replica (a new
      // leader takes its predecessor's AMWs over), and a cluster switched to Pull keeps or evicts them.
      agentId: name,
      member,
      log: this.#log,
      statusSyncIntervalMs: this.#opts.statusSyncIntervalMs,
      evictionGracePeriodMs: this.#opts.evictionGracePeriodMs,
    });
    this.#agents.set(name, { agent, member });
    await agent.start();
    this.#log.info({ cluster: name }, 'started the work agent');
    return ok();
  }

  async #ensureNamespace(name: string): Promise<void> {
    try {
      await this.#opts.host.get(CoreTypes.namespaces, name);
      return;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    try {
      await this.#opts.host.create(CoreTypes.namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
}
