import {
  API_VERSION,
  ControllerStatus,
  FEDERATED_TYPE_CONFIG_FINALIZER,
  FEDERATED_TYPE_CONFIG_KIND,
  type FederatedTypeConfig,
  type FederatedTypeConfigStatus,
  FederatedTypeConfigType,
} from '../../api/core/v1beta1/index.ts';
import type { ResolvedKubeFedConfig } from '../../config/index.ts';
import {
  errorMessage,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  resourceTypeName,
} from '../../kube/client/index.ts';
import type { ClusterRegistry } from '../../members/cluster-registry.ts';
import type { Members } from '../../members/members.ts';
import { Controller } from '../../runtime/controller.ts';
import { ensureFinalizer, removeFinalizer } from '../../runtime/finalizers.ts';
import { enqueueMapped } from '../../runtime/handlers.ts';
import type { Informer } from '../../runtime/informer/index.ts';
import { SharedInformers } from '../../runtime/informer/shared-informers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { ok, type ReconcileResult, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { defaultControllerRateLimiter } from '../../runtime/workqueue/index.ts';
import { PendingDeletionController } from './pending-deletion/controller.ts';
import { PendingDeletionStore } from './pending-deletion/store.ts';
import { SyncController } from './sync-controller.ts';
import { applyFtcDefaults, ftcControlPlan } from './type-config-plan.ts';
import type { VersionBackend } from './version-store.ts';

type FtcObject = FederatedTypeConfig & KubeObject;

/**
 * The FTC that federates namespaces: namespaced types wait for it (KubeFed federatedtypeconfig/controller.go,
 * (*Controller).reconcile).
 */
export const NAMESPACES_FTC = 'namespaces';

export interface FederatedTypeConfigControllerOptions {
  host: KubeClient;
  /** The member clusters, shared with every other controller. */
  members: Members;
  namespace: string;
  config: ResolvedKubeFedConfig;
  logger?: Logger;
  deletionTimeoutMs: number;
  memberEventDelayMs?: number;
  /** Where sync controllers record member versions (`--propagated-versions`); see SyncControllerOptions. */
  versions?: VersionBackend;
}

interface Running {
  controller: SyncController;
  generation: number;
  /** The FederatedNamespace type it was started with ('' for none): a change needs a restart. */
  namespaceType: string;
}

/**
 * The FederatedTypeConfig controller (KubeFed pkg/controller/federatedtypeconfig/controller.go): one sync
 * controller per enabled FTC, started, stopped and restarted as FTCs change, with
 * `status.propagationController` telling which. Its sync controllers share the process's members and one
 * host informer per FederatedNamespace type.
 */
export class FederatedTypeConfigController implements Runnable {
  readonly name = 'federatedtypeconfig';
  readonly leaderOnly = true;
  readonly #opts: FederatedTypeConfigControllerOptions;
  readonly #log: Logger;
  readonly #registry: ClusterRegistry;
  /** Host informers the sync controllers share (one FederatedNamespace watch for every namespaced type). */
  readonly #hostInformers: SharedInformers;
  /** Deletions members still owe (written by the sync controllers, carried out by the controller below). */
  readonly #pendingDeletions: PendingDeletionStore;
  readonly #pendingDeletionController: PendingDeletionController;
  readonly #running = new Map<string, Running>();
  readonly #syncListeners = new Set<(ftcName: string, controller: SyncController | undefined) => void>();
  readonly #controller: Controller;
  readonly #ftcs: Informer<FtcObject>;

  constructor(opts: FederatedTypeConfigControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#registry = opts.members.registry;
    this.#hostInformers = new SharedInformers(opts.host, opts.logger);
    this.#pendingDeletions = new PendingDeletionStore({
      host: opts.host,
      namespace: opts.namespace,
      logger: opts.logger,
    });
    this.#pendingDeletionController = new PendingDeletionController({
      host: opts.host,
      registry: this.#registry,
      store: this.#pendingDeletions,
      logger: opts.logger,
    });
    this.#controller = new Controller({
      name: this.name,
      logger: this.#log,
      reconcile: (key) => this.#reconcile(key),
      rateLimiter: defaultControllerRateLimiter(),
    });
    // Keyed by name alone: every FTC lives in the KubeFed namespace.
    this.#ftcs = this.#controller.watch<FtcObject>(
      { client: opts.host, type: FederatedTypeConfigType, namespace: opts.namespace },
      enqueueMapped((o) => [o.metadata.name ?? '']),
    );
    // Pending deletions load before any sync controller starts, so none unlabels a copy still owed one.
    this.#controller
      .cache(opts.members.asCache())
      .cache(this.#pendingDeletions)
      .beforeWorkers(() => this.#pendingDeletionController.start())
      .onStop(async () => {
        await Promise.all([...this.#running.values()].map((r) => r.controller.stop()));
        this.#running.clear();
        await this.#pendingDeletionController.stop();
      });
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  /** Names of the FTCs whose sync controller runs (for tests and probes). */
  runningControllers(): string[] {
    return [...this.#running.keys()].sort();
  }

  /** The running sync controller of an FTC, e.g. `deployments.apps`. */
  syncController(ftcName: string): SyncController | undefined {
    return this.#running.get(ftcName)?.controller;
  }

  /** Called with each sync controller started (and `undefined` when one stops). */
  addSyncListener(fn: (ftcName: string, controller: SyncController | undefined) => void): void {
    this.#syncListeners.add(fn);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  #namespacedFtcs(): string[] {
    return (this.#ftcs.store.list() ?? [])
      .filter((f) => f.spec?.targetType?.scope === 'Namespaced')
      .map((f) => f.metadata.name ?? '');
  }

  #namespaceTypeKey(): string {
    const t = this.#federatedNamespaceType();
    return t ? resourceTypeName(t) : '';
  }

  #federatedNamespaceType(): ResourceType | undefined {
    const ns = this.#ftcs.store.get(`${this.#opts.namespace}/${NAMESPACES_FTC}`);
    if (!ns || ns.metadata.deletionTimestamp) return undefined;
    const f = ns.spec.federatedType;
    return { group: f.group ?? '', version: f.version, plural: f.pluralName, namespaced: true, kind: f.kind };
  }

  async #stopController(name: string): Promise<boolean> {
    const r = this.#running.get(name);
    if (!r) return false;
    this.#running.delete(name);
    for (const l of this.#syncListeners) l(name, undefined);
    await r.controller.stop();
    this.#log.info({ ftc: name }, 'stopped sync controller');
    return true;
  }

  async #reconcile(name: string): Promise<ReconcileResult> {
    const { host, namespace, config } = this.#opts;
    const cached = this.#ftcs.store.get(`${namespace}/${name}`);
    if (!cached) {
      await this.#stopController(name);
      return ok();
    }
    // A copy of its own: the reconcile sets its metadata and hands it to the sync controller it starts.
    const ftc = applyFtcDefaults(structuredClone(cached));
    const plan = ftcControlPlan({
      ftc,
      controlPlaneScope: config.scope,
      namespacesFtcPresent: this.#federatedNamespaceType() !== undefined,
      running: this.#running.has(name),
      runningGeneration: this.#running.get(name)?.generation,
      namespaceTypeChanged:
        this.#running.has(name) &&
        name !== NAMESPACES_FTC &&
        this.#running.get(name)?.namespaceType !== this.#namespaceTypeKey(),
    });

    if (plan.action === 'finalize') {
      await this.#stopController(name);
      if (name === NAMESPACES_FTC) for (const n of this.#namespacedFtcs()) this.#controller.enqueue(n);
      const removed = await removeFinalizer(
        host,
        FederatedTypeConfigType,
        ftc,
        FEDERATED_TYPE_CONFIG_FINALIZER,
      );
      return removed.done ? ok() : removed.result;
    }

    const ensured = await ensureFinalizer(
      host,
      FederatedTypeConfigType,
      ftc,
      FEDERATED_TYPE_CONFIG_FINALIZER,
    );
    if (!ensured.done) return ensured.result;
    if (ensured.written) {
      ftc.metadata = ensured.object.metadata;
      if (name === NAMESPACES_FTC) for (const n of this.#namespacedFtcs()) this.#controller.enqueue(n);
    }

    let waitError: string | undefined;
    switch (plan.action) {
      case 'stop':
        await this.#stopController(name);
        break;
      case 'restart':
        await this.#stopController(name);
        if (!this.#startController(ftc)) waitError = 'the sync controller could not be started';
        break;
      case 'start':
        if (!this.#startController(ftc)) waitError = 'the sync controller could not be started';
        break;
      case 'waitForNamespaces':
        await this.#stopController(name);
        waitError = `FederatedTypeConfig "${NAMESPACES_FTC}" must exist for a namespaced type to be propagated`;
        break;
      case 'none':
        break;
    }

    const status: FederatedTypeConfigStatus = {
      observedGeneration: ftc.metadata?.generation ?? 0,
      propagationController: this.#running.has(name) ? ControllerStatus.Running : ControllerStatus.NotRunning,
      statusController: ControllerStatus.NotRunning,
    };
    const written = await writeStatusIfChanged({
      client: host,
      type: FederatedTypeConfigType,
      typeMeta: { apiVersion: API_VERSION, kind: FEDERATED_TYPE_CONFIG_KIND },
      object: ftc,
      compute: (current) => ({
        status,
        changed:
          current.status?.observedGeneration !== status.observedGeneration ||
          current.status?.propagationController !== status.propagationController ||
          current.status?.statusController !== status.statusController,
      }),
    });
    if (written.kind === 'conflict' || written.kind === 'failed') return statusWriteResult(written);
    // Namespaced types depend on the namespaces FTC (its federated type, its presence): let them look again.
    if (name === NAMESPACES_FTC)
      for (const n of this.#namespacedFtcs()) if (n !== name) this.#controller.enqueue(n);
    return waitError ? retry(new Error(waitError)) : ok();
  }

  #startController(ftc: FtcObject): boolean {
    const name = ftc.metadata?.name ?? '';
    try {
      const controller = new SyncController({
        ftc,
        host: this.#opts.host,
        members: this.#opts.members,
        hostInformers: this.#hostInformers,
        namespace: this.#opts.namespace,
        config: this.#opts.config,
        federatedNamespaceType: this.#federatedNamespaceType(),
        logger: this.#opts.logger,
        deletionTimeoutMs: this.#opts.deletionTimeoutMs,
        pendingDeletions: this.#pendingDeletions,
        memberEventDelayMs: this.#opts.memberEventDelayMs,
        versions: this.#opts.versions,
      });
      controller.start();
      this.#running.set(name, {
        controller,
        generation: ftc.metadata?.generation ?? 0,
        namespaceType: this.#namespaceTypeKey(),
      });
      this.#log.info({ ftc: name, generation: ftc.metadata?.generation }, 'started sync controller');
      for (const l of this.#syncListeners) l(name, controller);
      return true;
    } catch (e) {
      this.#log.error({ ftc: name, err: errorMessage(e) }, 'cannot start sync controller');
      return false;
    }
  }
}
