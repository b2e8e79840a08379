import { type FederatedTypeConfig, resourceTypeOf } from '../../api/core/v1beta1/index.ts';
import type { ResolvedKubeFedConfig } from '../../config/index.ts';
import type { DeleteOptions } from '../../engine/applier.ts';
import { type DeletionRequest, Dispatcher } from '../../engine/dispatcher.ts';
import { OWNER_ANNOTATION } from '../../engine/ownership.ts';
import type { EventSink } from '../../engine/work.ts';
import {
  CoreTypes,
  errorMessage,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../kube/client/index.ts';
import type { MemberCache, MemberCacheSpec } from '../../members/member-caches.ts';
import type { Members } from '../../members/members.ts';
import {
  AggregateReason,
  DELETE_OPTION_ANNOTATION,
  isRecoverable,
  MANAGED_LABEL,
  ORPHAN_ANNOTATION,
  SYNC_FINALIZER,
} from '../../propagation/constants.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { type Placement, resolvePlacement } from '../../propagation/placement.ts';
import { computeFederatedStatus } from '../../propagation/status.ts';
import { aggregateWorkloadStatus } from '../../propagation/workload-aggregate.ts';
import { Controller } from '../../runtime/controller.ts';
import { EventRecorder, eventsAbout } from '../../runtime/events.ts';
import { ReportedFailure } from '../../runtime/failure-log.ts';
import { ensureFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/finalizers.ts';
import { type EventHandler, enqueueMapped, enqueueObject } from '../../runtime/handlers.ts';
import { type Informer, objectKey, splitKey, withoutManagedFields } from '../../runtime/informer/index.ts';
import type { SharedInformerReader, SharedInformers } from '../../runtime/informer/shared-informers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { type TypeMeta, typeMetaOf } from '../../runtime/type-meta.ts';
import { kubefedRateLimiter } from '../../runtime/workqueue/index.ts';
import { sleep } from '../../util/backoff.ts';
import { afterMembers, afterVerify, deletionTiming, releaseEvents } from './deletion.ts';
import { type FederatedObject, isUnfederatableNamespace } from './federated-object.ts';
import { emptyFederatedOutcome, type FederatedOutcome, federatedOutcome } from './outcome.ts';
import type { PendingDeletion } from './pending-deletion/record.ts';
import type { PendingDeletionStore } from './pending-deletion/store.ts';
import {
  federatedOwner,
  federatedTarget,
  federatedWork,
  keepHostNamespace,
  type TargetType,
} from './render.ts';
import { type StatusVersions, type VersionBackend, VersionStore } from './version-store.ts';

/** A member cache still loading: look again soon. */
const PENDING_RECHECK_MS = 1_000;

export interface SyncObserver {
  onFederatedObject?(key: string): void;
}

export interface SyncControllerOptions {
  ftc: FederatedTypeConfig & KubeObject;
  host: KubeClient;
  members: Members;
  /** The KubeFed namespace. */
  namespace: string;
  config: ResolvedKubeFedConfig;
  /** Host informers shared by every sync controller (FederatedNamespaces). */
  hostInformers: SharedInformers;
  /** The FederatedNamespace type (from the `namespaces` FTC); needed for namespaced targets. */
  federatedNamespaceType?: ResourceType;
  logger?: Logger;
  /** Delay between a member object changing and the reconcile it triggers (KubeFed: 10 s). */
  memberEventDelayMs?: number;
  /**
   * How long a deletion waits for a member that is not ready before giving up on it, releasing the
   * federated object and reporting the member as possibly left with a copy (KubeFed waited forever).
   * Only for members that are ready but cannot be read; a member that is not ready is not waited for: its
   * deletion is recorded in `pendingDeletions` and carried out when it returns.
   */
  deletionTimeoutMs: number;
  /** Deletions members still owe, shared with the pending-deletion controller. */
  pendingDeletions: PendingDeletionStore;
  /**
   * Where the member versions last written are recorded (`--propagated-versions`): `status` (default) in
   * each federated object's `status.propagatedVersion`, `objects` in PropagatedVersions as KubeFed does.
   */
  versions?: VersionBackend;
}

/**
 * The sync controller of one federated type (KubeFed pkg/controller/sync/controller.go,
 * KubeFedSyncController): the `Federated<Kind>` source of the engine. It turns each federated object into a
 * Work (placement, template, overrides: render.ts), lets the dispatcher bring the members in line, then
 * records versions, status, events and finalizers; deletion follows the pure rules of deletion.ts.
 */
export class SyncController {
  readonly name: string;
  readonly fedType: ResourceType;
  readonly target: TargetType;
  readonly #opts: SyncControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #fed: Informer<FederatedObject>;
  /** FederatedNamespaces, for namespaced targets: one informer shared by every sync controller. */
  #fedNamespaces: SharedInformerReader<FederatedObject> | undefined;
  readonly #hostNamespaces: Informer<KubeObject> | undefined;
  readonly #dispatcher: Dispatcher;
  /** Managed member objects of the target type (shared with every other reader of the same). */
  #memberCache: MemberCache | undefined;
  readonly #versions: VersionStore;
  readonly #events: EventRecorder;
  /** apiVersion and kind of the federated type, for status writes and events. */
  readonly #typeMeta: TypeMeta;
  /** This controller's own host clients, for its writes and for its events (see #constructor). */
  readonly #client: KubeClient;
  readonly #eventClient: KubeClient;
  readonly #collectStatus: boolean;
  readonly #watchNamespace: string | undefined;
  readonly #observers = new Set<SyncObserver>();

  constructor(opts: SyncControllerOptions) {
    this.#opts = opts;
    const { ftc, host, config } = opts;
    // Like KubeFed, where each sync controller builds its own clientset and event client from the rest
    // config: every one gets the full --rest-config-qps, instead of all types and all events sharing one
    // token bucket (which capped propagation at about 100 / 7 objects per second). Informers stay on the
    // shared client.
    this.#client = host.fork();
    this.#eventClient = host.fork();
    this.fedType = resourceTypeOf(ftc.spec.federatedType);
    this.#typeMeta = typeMetaOf(this.fedType, ftc.spec.federatedType.kind);
    const t = resourceTypeOf(ftc.spec.targetType);
    this.target = {
      group: t.group,
      version: t.version,
      kind: ftc.spec.targetType.kind,
      plural: t.plural,
      namespaced: t.namespaced,
    };
    this.name = ftc.spec.federatedType.kind.toLowerCase();
    this.#log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#watchNamespace = config.scope === 'Namespaced' ? opts.namespace : undefined;
    this.#collectStatus =
      ftc.spec.statusCollection === 'Enabled' && config.featureGates.RawResourceStatusCollection;
    this.#controller = new Controller({
      name: this.name,
      logger: this.#log,
      reconcile: (key) => this.reconcile(key),
      workers: config.syncController.maxConcurrentReconciles,
      rateLimiter: kubefedRateLimiter(),
    });
    const tellObservers: EventHandler<FederatedObject> = () => {
      const tell = (o: KubeObject) => this.#tellObservers(o);
      return { onAdd: tell, onUpdate: (_, o) => tell(o), onDelete: tell };
    };
    this.#fed = this.#controller.watch<FederatedObject>(
      // Nothing here reads a federated object's field ownership (kubectl shows it from the apiserver).
      { client: host, type: this.fedType, namespace: this.#watchNamespace, transform: withoutManagedFields },
      enqueueObject(),
      tellObservers,
    );
    // A host Namespace is its FederatedNamespace's `name/name`.
    this.#hostNamespaces = this.#isNamespaces()
      ? this.#controller.watch<KubeObject>(
          { client: host, type: CoreTypes.namespaces },
          enqueueMapped((o) => [`${o.metadata.name}/${o.metadata.name}`]),
        )
      : undefined;
    const memberDelay = opts.memberEventDelayMs ?? 2_000;
    this.#dispatcher = new Dispatcher({
      registry: opts.members.registry,
      cacheFor: (t) =>
        t.group === this.target.group && t.plural === this.target.plural ? this.#memberCache : undefined,
      logger: this.#log,
    });
    this.#versions = new VersionStore({
      client: this.#client,
      namespaced: this.fedType.namespaced,
      targetKind: this.target.kind,
      namespace: this.#watchNamespace,
      backend: opts.versions,
      logger: this.#log,
    });
    this.#events = new EventRecorder(this.#eventClient, `${this.name}-controller`, this.#log);
    // A pending deletion dropped without deleting (the copy was replaced or un-managed) leaves the copy to the
    // orphan rule here; one carried out leaves nothing to do, which the reconcile finds out cheaply (after the
    // member delay, like a member event, so that the deletion has reached the member cache).
    this.#controller
      .source((enqueue) =>
        opts.pendingDeletions.addListener({
          onRecordDeleted: (r) => {
            if (r.target.group !== this.target.group || r.target.plural !== this.target.plural) return;
            enqueue(r.federatedNamespace ? `${r.federatedNamespace}/${r.name}` : r.name, memberDelay);
          },
        }),
      )
      .source(() => {
        this.#memberCache = this.#openMemberCache();
        return () => this.#memberCache?.close();
      })
      .cache({
        start: () => {
          this.#fedNamespaces = this.#openFederatedNamespaces();
        },
        waitForSync: async () => this.#fedNamespaces?.waitForSync(),
        hasSynced: () => this.#fedNamespaces?.hasSynced() ?? true,
        stop: async () => this.#fedNamespaces?.close(),
      })
      .beforeWorkers((signal) => this.#loadVersions(signal))
      .onStop(() => Promise.all([this.#client.close(), this.#eventClient.close()]).then(() => undefined));
  }

  #tellObservers(o: KubeObject): void {
    for (const w of this.#observers) w.onFederatedObject?.(objectKey(o));
  }

  /** The member cache of the target type: managed objects only, as KubeFed's federated informer sees them. */
  #openMemberCache(): MemberCache {
    const { config } = this.#opts;
    const memberDelay = this.#opts.memberEventDelayMs ?? 2_000;
    return this.#opts.members.caches.open(this.memberCacheSpec, {
      onObject: (_cluster, o) => {
        const key = objectKey(o);
        this.#controller.enqueue(this.#isNamespaces() ? `${key}/${key}` : key, memberDelay);
      },
      // Everything is looked at again once a member's cache loads: its objects may have been waiting for it.
      onCacheSynced: () => this.#enqueueAll(),
      onClusterChange: (_cluster, ready) => {
        const delay = ready
          ? config.controllerDuration.availableDelayMs
          : config.controllerDuration.unavailableDelayMs;
        this.#enqueueAll(delay);
      },
    });
  }

  #openFederatedNamespaces(): SharedInformerReader<FederatedObject> | undefined {
    const type = this.#opts.federatedNamespaceType;
    if (this.#isNamespaces() || !this.target.namespaced || !type) return undefined;
    // Any change to a FederatedNamespace can change the placement of everything in its namespace.
    const all = (o: KubeObject) => {
      for (const obj of this.#fed.store.list(o.metadata.namespace)) this.#controller.enqueue(objectKey(obj));
    };
    return this.#opts.hostInformers.open<FederatedObject>(
      { type, namespace: this.#watchNamespace },
      { onAdd: all, onUpdate: (_, o) => all(o), onDelete: all },
    );
  }

  /**
   * The member cache of the target type: the managed objects (KubeFed's federated informer), in the KubeFed
   * namespace in a namespaced control plane. Other readers open the same spec to share its informers.
   */
  get memberCacheSpec(): MemberCacheSpec {
    return { type: this.target, namespace: this.#watchNamespace, labelSelector: `${MANAGED_LABEL}=true` };
  }

  #isNamespaces(): boolean {
    return this.target.kind === 'Namespace' && this.target.group === '';
  }

  #enqueueAll(delayMs = 0): void {
    for (const o of this.#fed.store.list()) {
      this.#controller.enqueue(objectKey(o), delayMs);
    }
  }

  start(): void {
    this.#controller.start();
  }

  /**
   * PropagatedVersions load before the first reconcile, or an unchanged object would be written again (with
   * the status backend, only those KubeFed or `--propagated-versions=true` left, read once to take over).
   */
  async #loadVersions(signal: AbortSignal): Promise<void> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await this.#versions.load();
        this.#log.info(
          { target: this.target.kind, collectStatus: this.#collectStatus },
          'sync controller started',
        );
        return;
      } catch (e) {
        this.#log.warn({ err: errorMessage(e) }, 'cannot load propagated versions; retrying');
        await sleep(Math.min(1000 * 2 ** attempt, 30_000), signal);
      }
    }
  }

  async stop(): Promise<void> {
    await this.#controller.stop();
    this.#log.info('sync controller stopped');
  }

  hasSynced(): boolean {
    return this.#fed.hasSynced();
  }

  /** Lets another controller (replica scheduling) follow this type's federated and member objects. */
  addObserver(o: SyncObserver): () => void {
    this.#observers.add(o);
    return () => this.#observers.delete(o);
  }

  /** The cached federated object (shared: copy before changing it). */
  federatedObject(key: string): FederatedObject | undefined {
    return this.#fed.store.get(key);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    if (this.#isNamespaces() && isUnfederatableNamespace(name, this.#opts.namespace)) return ok();
    const cached = this.#fed.store.get(key);
    const targetName = name;
    const targetNamespace = this.#isNamespaces() ? undefined : namespace;
    if (!cached) {
      this.#versions.forget(targetName, namespace);
      // A managed member object without a federated object: stop managing it (KubeFed's reconcile, "possible
      // orphan"), unless its deletion is still owed (then the pending-deletion controller deletes it) or it
      // is another source's.
      const errors = await this.#dispatcher.releaseOrphans(
        {
          owner: federatedOwner({ metadata: { name, namespace } }, this.#opts.ftc.spec.federatedType.kind),
          objects: [federatedTarget(this.target, targetName, targetNamespace)],
          event: () => {},
        },
        (cluster) => this.#opts.pendingDeletions.owes(cluster, this.target, targetNamespace, targetName),
      );
      return errors.length > 0 ? retry(new ReportedFailure(errors.join('; '))) : ok();
    }
    // The cached object is shared and nothing below changes it (checked by running the sync tests with every
    // cached object deep-frozen); only the metadata is replaced, after the finalizer write, so a shallow
    // copy is enough. A deep copy here was a fifth of the reconcile's own CPU at 64 workers.
    const fed = { ...cached };
    if (this.#isNamespaces() && fed.metadata.namespace !== fed.metadata.name) {
      this.#event(fed)(
        'Warning',
        'InvalidName',
        'The name of a federated namespace must match the name of its containing namespace.',
      );
      return ok();
    }
    if (fed.metadata.deletionTimestamp) return this.#ensureDeletion(fed, targetName, targetNamespace);
    if (!hasFinalizer(fed, SYNC_FINALIZER)) {
      // Through the cache, like the status write below: its watch event is no change to reconcile.
      const w = await this.#fed.ownWrite(
        objectKey(cached),
        () => ensureFinalizer(this.#client, this.fedType, fed, SYNC_FINALIZER),
        (r) =>
          r.done && r.written ? { object: r.object, replaced: cached.metadata.resourceVersion } : undefined,
        (o) => this.#tellObservers(o),
      );
      if (!w.done) {
        if (w.result.kind === 'error') {
          this.#event(fed)(
            'Warning',
            'EnsureFinalizerError',
            `Failed to ensure finalizer: ${errorMessage(w.error)}`,
          );
        }
        return w.result;
      }
      fed.metadata = w.object.metadata;
    }
    return this.#sync(fed, targetName, targetNamespace);
  }

  #event(fed: FederatedObject): EventSink {
    return eventsAbout(this.#events, fed, this.#typeMeta);
  }

  #hostNamespaceUid(name: string): string | undefined {
    return this.#hostNamespaces?.store.get(name)?.metadata.uid;
  }

  /** The clusters the object belongs in, or the aggregate reason why that cannot be known. */
  #placement(fed: FederatedObject): { clusters: Set<string>; reason: string; message?: string } {
    const clusters = this.#opts.members.registry
      .list()
      .map((c) => ({ name: c.metadata.name ?? '', labels: c.metadata.labels }));
    let namespacePlacement: Placement | undefined | null;
    if (this.target.namespaced && this.#fedNamespaces) {
      const ns = fed.metadata.namespace ?? '';
      const fedNs = this.#fedNamespaces.store.get(`${ns}/${ns}`);
      namespacePlacement = fedNs ? (fedNs.spec?.placement ?? {}) : null;
    }
    try {
      const r = resolvePlacement({
        placement: fed.spec?.placement,
        namespaced: this.target.namespaced && !this.#isNamespaces(),
        namespacePlacement,
        controlPlaneScope: this.#opts.config.scope,
        clusters,
      });
      return {
        clusters: r.clusters,
        reason: r.namespaceNotFederated ? AggregateReason.NamespaceNotFederated : '',
      };
    } catch (e) {
      return {
        clusters: new Set(),
        reason: AggregateReason.ComputePlacementFailed,
        message: errorMessage(e),
      };
    }
  }

  #unregisteredClusterNames(fed: FederatedObject): string[] {
    const listed = fed.spec?.placement?.clusters;
    if (!Array.isArray(listed)) return [];
    return listed
      .map((c) => (typeof c?.name === 'string' ? c.name : ''))
      .filter((n) => n !== '' && !this.#opts.members.registry.get(n))
      .sort();
  }

  async #sync(fed: FederatedObject, name: string, namespace: string | undefined): Promise<ReconcileResult> {
    const event = this.#event(fed);
    const placement = this.#placement(fed);
    if (placement.reason === AggregateReason.ComputePlacementFailed) {
      event('Warning', 'ComputePlacementFailed', `Invalid placement: ${placement.message}`);
    }
    const unknown = this.#unregisteredClusterNames(fed);
    if (unknown.length > 0) {
      // KubeFed drops such names silently; a typo in a cluster name deserves a word.
      event(
        'Warning',
        'UnknownClusters',
        `Placement names clusters that are not registered: ${unknown.join(', ')}`,
      );
    }
    if (placement.reason === AggregateReason.ComputePlacementFailed) {
      // As KubeFed: report and leave the members alone. An empty placement here would delete every copy
      // (for a FederatedNamespace, whole namespaces) because of a typo in a selector.
      const result = await this.#writeStatus(fed, {
        reason: placement.reason,
        outcome: emptyFederatedOutcome(),
        aggregate: undefined,
      });
      return result ?? ok();
    }
    const owner = this.#versionOwner(fed);
    const versions = this.#versions.round(
      owner,
      { template: fed.spec?.template, overrides: fed.spec?.overrides },
      fed.status,
    );
    const { work, overridesError } = federatedWork({
      fed,
      federatedKind: this.#opts.ftc.spec.federatedType.kind,
      target: this.target,
      name,
      namespace,
      selected: placement.clusters,
      recorded: versions.recorded,
      adopt: this.#opts.config.syncController.adoptResources,
      hostNamespaceUid: this.#isNamespaces() ? this.#hostNamespaceUid(name) : undefined,
      event,
    });
    if (overridesError !== undefined && placement.clusters.size > 0) {
      event('Warning', 'ApplyOverridesFailed', `Invalid overrides: ${overridesError}`);
    }
    const outcome = federatedOutcome(await this.#dispatcher.apply(work));
    // A PropagatedVersion write (objects backend) never throws. It runs alongside the status write below:
    // they are independent objects, and waiting for one before starting the other cost a host round trip per
    // reconcile. The status backend records in memory; the versions go out with the status write.
    const versionsWritten = versions.record(placement.clusters, outcome.versions, outcome.resourcesUpdated);

    // Versions are recorded even when a member cache is still loading: otherwise the next look would
    // write the same objects to the other members again.
    if (outcome.pending) {
      await versionsWritten;
      return requeueAfter(PENDING_RECHECK_MS);
    }
    const selectedObjects = new Map([...outcome.memberObjects].filter(([c]) => placement.clusters.has(c)));
    const aggregate = this.#collectStatus
      ? aggregateWorkloadStatus(this.target.kind, selectedObjects)
      : undefined;
    const [statusResult] = await Promise.all([
      this.#writeStatus(fed, {
        reason: placement.reason,
        outcome,
        aggregate,
        versions: versions.statusVersions(),
      }),
      versionsWritten,
    ]);
    if (statusResult) return statusResult;
    for (const s of outcome.statuses.values()) {
      if (isRecoverable(s))
        return retry(new ReportedFailure(`member operations failed: ${describeStatuses(outcome.statuses)}`));
    }
    return ok();
  }

  async #writeStatus(
    fed: FederatedObject,
    input: {
      reason: string;
      outcome: FederatedOutcome;
      aggregate: ReturnType<typeof aggregateWorkloadStatus>;
      /** Status backend: the recorded versions, computed into every attempt (a 409 retry keeps them). */
      versions?: StatusVersions;
    },
  ): Promise<ReconcileResult | undefined> {
    const versions = input.versions;
    let sent: unknown;
    const key = objectKey(fed);
    // Through the cache: the watch event of our own status write is not reported as a change. It used to
    // cost every object a second reconcile that found nothing to do. Any other change of the object has a
    // resourceVersion of its own and is reconciled as before.
    const write = () =>
      writeStatusIfChanged({
        client: this.#client,
        type: this.fedType,
        typeMeta: this.#typeMeta,
        object: fed,
        compute: (current) => {
          const computed = computeFederatedStatus({
            current: current.status,
            generation: current.metadata.generation ?? 0,
            reason: input.reason,
            clusterStatuses: input.outcome.statuses,
            clusterMessages: input.outcome.messages,
            remoteStatuses: this.#collectStatus ? input.outcome.remoteStatuses : undefined,
            resourcesUpdated: input.outcome.resourcesUpdated,
            aggregate: input.aggregate,
            propagatedVersion: versions?.propagatedVersion,
            versionsUnsaved: versions?.unsaved,
            dropPropagatedVersion: this.#versions.backend === 'objects',
            now: new Date(),
          });
          sent = computed.status.propagatedVersion;
          return computed;
        },
      });
    const w = await this.#fed.ownWrite(
      key,
      write,
      (r) => (r.kind === 'written' ? { object: r.object, replaced: r.replaced } : undefined),
      // Only this controller is spared the event: the observers (replica scheduling) hear of it as before.
      (o) => this.#tellObservers(o),
    );
    if (w.kind === 'written') {
      const owner = this.#versionOwner(fed);
      if (versions && jsonEqual(sent, versions.propagatedVersion))
        this.#versions.saved(owner, versions.propagatedVersion, w.object.status?.propagatedVersion);
      // The reconcile of the write's own event used to do this.
      if (this.#fed.store.get(key)?.metadata.resourceVersion === w.object.metadata.resourceVersion)
        this.#versions.shown(owner, w.object.status);
    }
    switch (w.kind) {
      case 'gone':
        return ok();
      case 'conflict':
      case 'failed':
        return statusWriteResult(w);
      default:
        // Written, unchanged, or the spec moved on (the reconcile the update triggered writes its status).
        return undefined;
    }
  }

  #versionOwner(fed: FederatedObject) {
    return {
      ...this.#typeMeta,
      name: fed.metadata.name ?? '',
      namespace: fed.metadata.namespace,
      uid: fed.metadata.uid ?? '',
    };
  }

  async #ensureDeletion(
    fed: FederatedObject,
    name: string,
    namespace: string | undefined,
  ): Promise<ReconcileResult> {
    this.#versions.forget(fed.metadata.name ?? '', fed.metadata.namespace);
    if (!hasFinalizer(fed, SYNC_FINALIZER)) return ok();
    const event = this.#event(fed);
    const placement = this.#placement(fed);
    const timing = deletionTiming(fed.metadata.deletionTimestamp, Date.now(), this.#opts.deletionTimeoutMs);
    const req: DeletionRequest = {
      owner: federatedOwner(fed, this.#opts.ftc.spec.federatedType.kind),
      objects: [federatedTarget(this.target, name, namespace)],
      // A placement that cannot be computed must not block deletion: consider every cluster.
      clusters:
        placement.reason === AggregateReason.ComputePlacementFailed
          ? new Set(this.#opts.members.registry.list().map((c) => c.metadata.name ?? ''))
          : placement.clusters,
      keep: keepHostNamespace(this.target, this.#isNamespaces() ? this.#hostNamespaceUid(name) : undefined),
      event,
    };

    const orphan = fed.metadata.annotations?.[ORPHAN_ANNOTATION] === 'true';
    const options = orphan ? undefined : this.#deleteOptions(fed, event);
    const outcome = orphan
      ? await this.#dispatcher.release(req, timing.abandon)
      : // Members that are not ready are not waited for: their deletion is recorded below.
        await this.#dispatcher.remove(req, {
          deleteOptions: options,
          abandonUnready: timing.abandon,
          deferUnready: true,
        });
    const next = afterMembers(outcome, timing, orphan);
    switch (next.kind) {
      case 'retry':
        return retry(new ReportedFailure(next.message));
      case 'wait':
        this.#log.info({ object: objectKey(fed), waiting: next.waiting }, 'deletion is waiting for members');
        return requeueAfter(next.ms);
      case 'waitForRemoval':
        event('Normal', 'WaitForRemovalInCluster', next.message);
        return requeueAfter(next.ms);
      case 'release':
      case 'verify':
        break;
    }
    /** Cluster → the record of the deletion it still owes (deletion only; orphaning leaves copies anyway). */
    let records = new Map<string, string>();
    let deferred = new Map<string, string>();
    let abandoned = outcome.abandoned;
    if (next.kind === 'verify') {
      const left = await this.#dispatcher.verifyRemoved(
        req,
        new Set([...outcome.abandoned, ...outcome.deferred]),
      );
      const verified = afterVerify(left, (c) => this.#opts.members.registry.isReady(c), outcome, timing);
      if (verified.kind === 'wait') return requeueAfter(verified.ms);
      // Recorded before the finalizer goes, so a crash in between loses nothing: the object is still
      // there to be finalized again, and writing the same record twice is a no-op.
      try {
        records = await this.#recordPendingDeletions(fed, name, namespace, verified.owed, options);
        deferred = new Map([...records].filter(([c]) => !abandoned.includes(c)));
      } catch (e) {
        if (!timing.abandon)
          return retry(new Error(`recording pending member deletions failed: ${errorMessage(e)}`));
        // Never worse than without records: past the bound the object is released all the same.
        this.#log.warn({ object: objectKey(fed), err: errorMessage(e) }, 'cannot record pending deletions');
        abandoned = verified.owed;
      }
      for (const cluster of [...deferred.keys()].sort()) {
        this.#log.info({ object: objectKey(fed), cluster }, 'member deletion left pending');
      }
    }
    for (const e of releaseEvents({
      deferred,
      abandoned,
      records,
      kubefedNamespace: this.#opts.namespace,
      waitedMs: timing.waitedMs,
    })) {
      event(e.type, e.reason, e.message);
      if (e.reason === 'DeletionAbandoned') {
        this.#log.warn({ object: objectKey(fed), clusters: [...abandoned].sort() }, e.message);
      }
    }
    const w = await removeFinalizer(this.#client, this.fedType, fed, SYNC_FINALIZER);
    if (!w.done) return w.result;
    return ok();
  }

  /** The annotation's delete options; a bad value is reported and ignored. */
  #deleteOptions(fed: FederatedObject, event: EventSink): DeleteOptions | undefined {
    const raw = fed.metadata.annotations?.[DELETE_OPTION_ANNOTATION];
    if (!raw) return undefined;
    try {
      return pickDeleteOptions(JSON.parse(raw));
    } catch (e) {
      // KubeFed retried a bad value forever; deleting with default options cannot hang.
      event(
        'Warning',
        'InvalidDeleteOptions',
        `Ignoring annotation ${DELETE_OPTION_ANNOTATION}: ${errorMessage(e)}`,
      );
      return undefined;
    }
  }

  /** The managed copy last seen in a cluster, unless another source owns it. */
  #ownCopy(cluster: string, key: string): KubeObject | undefined {
    const copy = this.#memberCache?.lastSeen(cluster, key);
    return copy?.metadata.annotations?.[OWNER_ANNOTATION] === undefined ? copy : undefined;
  }

  /** Writes one pending-deletion record per cluster; returns cluster → record name. Throws on failure. */
  async #recordPendingDeletions(
    fed: FederatedObject,
    name: string,
    namespace: string | undefined,
    clusters: readonly string[],
    deleteOptions: DeleteOptions | undefined,
  ): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    const key = namespace ? `${namespace}/${name}` : name;
    await Promise.all(
      clusters.map(async (cluster) => {
        const record: PendingDeletion = {
          cluster,
          target: {
            group: this.target.group,
            version: this.target.version,
            plural: this.target.plural,
            kind: this.target.kind,
            namespaced: this.target.namespaced,
          },
          name,
          namespace,
          federated: { ...this.fedType, kind: this.#opts.ftc.spec.federatedType.kind },
          federatedNamespace: fed.metadata.namespace,
          federatedUid: fed.metadata.uid ?? '',
          memberUid: this.#ownCopy(cluster, key)?.metadata.uid,
          deletedAt: fed.metadata.deletionTimestamp ?? new Date().toISOString(),
          deleteOptions,
        };
        names.set(cluster, await this.#opts.pendingDeletions.write(record));
      }),
    );
    return names;
  }
}

function describeStatuses(statuses: ReadonlyMap<string, string>): string {
  return [...statuses]
    .filter(([, s]) => s)
    .map(([c, s]) => `${c}=${s}`)
    .join(', ');
}

/** KubeFed honours only these fields of the deleteoption annotation. */
function pickDeleteOptions(v: unknown): DeleteOptions {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
  const o = v as Record<string, unknown>;
  const out: DeleteOptions = {};
  if (o.propagationPolicy !== undefined) {
    if (
      o.propagationPolicy !== 'Orphan' &&
      o.propagationPolicy !== 'Background' &&
      o.propagationPolicy !== 'Foreground'
    ) {
      throw new Error(`unknown propagationPolicy ${JSON.stringify(o.propagationPolicy)}`);
    }
    out.propagationPolicy = o.propagationPolicy;
  }
  if (o.gracePeriodSeconds !== undefined) {
    if (typeof o.gracePeriodSeconds !== 'number') throw new Error('gracePeriodSeconds must be a number');
    out.gracePeriodSeconds = o.gracePeriodSeconds;
  }
  if (o.preconditions !== undefined) out.preconditions = o.preconditions as DeleteOptions['preconditions'];
  return out;
}
