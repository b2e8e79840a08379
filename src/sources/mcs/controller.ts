// The MCS controller (KEP-1645), the imperative shell around src/mcs: it gathers each exported service's
// facts from the member caches (ServiceExports, Services, EndpointSlices, Namespaces, ClusterProperties),
// has the pure decisions resolve them, writes what every member should hold through the engine (one Work
// per service `ns/name`), and reports on the members' ServiceExports and ServiceImports.
//
// Idle until some member has a ServiceExport: then only the ServiceExport caches run (one watch per member).
// Clusters taking part: ready Push members not joined with --scoped-rbac (whose credentials grant no MCS
// types); Pull members are left out (the hub reads nothing of theirs). A member that stops being ready keeps
// its exports and endpoints for the endpoint lease, then they are dropped everywhere.

import {
  CLUSTER_ID_PROPERTY,
  CLUSTERSET_PROPERTY,
  LEGACY_CLUSTER_ID_PROPERTY,
} from '../../api/about/v1alpha1/index.ts';
import { isScopedRbac } from '../../api/core/v1beta1/index.ts';
import { LABEL_SERVICE_NAME } from '../../api/mcs/v1beta1/index.ts';
import type { ServiceImportStatus } from '../../api/mcs/v1beta1/serviceimport.ts';
import { Dispatcher } from '../../engine/dispatcher.ts';
import { MemberStatusWriter } from '../../engine/member-status.ts';
import { OWNER_ANNOTATION, ownerId, ownershipOf } from '../../engine/ownership.ts';
import { type ObjectRef, refKey, sameRef, type WorkOutcome } from '../../engine/work.ts';
import { errorMessage, type KubeObject, type ResourceType } from '../../kube/client/index.ts';
import { clusterIdFor } from '../../mcs/cluster-id.ts';
import { importIps, missingFamilies } from '../../mcs/derived-service.ts';
import { sourceEndpoints } from '../../mcs/endpoint-slices.ts';
import { conditionsEqual, exportConditions } from '../../mcs/export-conditions.ts';
import { importStatus } from '../../mcs/import-status.ts';
import type { ExportFacts, ServiceExportObject, ServiceObject, SourceEndpoints } from '../../mcs/model.ts';
import { MANAGED_BY_LABEL, MCS_MANAGED_BY } from '../../mcs/names.ts';
import { resolveImport } from '../../mcs/resolve.ts';
import type { MemberCache, MemberCacheHandlers, MemberCacheState } from '../../members/member-caches.ts';
import type { Members } from '../../members/members.ts';
import { MANAGED_LABEL } from '../../propagation/constants.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import type { Enqueue } from '../../runtime/handlers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { conditionTimestamp } from '../../util/conditions.ts';
import { clusterPropertyWork, dnsVersionWork } from './clusterset-work.ts';
import { importsNameUnseen, incompleteView } from './member-picture.ts';
import { exportReady, type ImportOutcome, importReady } from './readiness.ts';
import { type ConsumerFacts, fixedRefs, type KeptFacts, serviceWork } from './service-work.ts';
import {
  ClusterPropertyType,
  clusterPropertyOwner,
  DnsEndpointType,
  EndpointSliceType,
  type KindedType,
  NamespaceType,
  ServiceExportType,
  ServiceImportType,
  ServiceType,
  serviceKeyOfOwnerId,
  serviceOwner,
  WRITTEN_TYPES,
} from './types.ts';

/** The queue key of the clusterset-wide objects (DNS schema record, ClusterProperties); never a `ns/name`. */
const CLUSTERSET_KEY = ':clusterset';
/** A Work still to be applied in full (the engine reports pending): look again soon. */
const PENDING_RECHECK_MS = 1_000;
/** kube's own EndpointSlice label naming the Service of a slice. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface McsControllerOptions {
  members: Members;
  /** The clusterset's name, written as each member's `clusterset.k8s.io` ClusterProperty where it has none. */
  clusterSetName: string;
  /** How long a member that is not ready keeps its exports and endpoints in the clusterset. */
  endpointLeaseMs: number;
  logger?: Logger;
  /** The clock (ms), for tests. */
  now?: () => number;
}

/** One member's view of a cache: synced, or why not. */
type View = MemberCacheState['kind'];

export class McsController implements Runnable {
  readonly name = 'mcs';
  readonly leaderOnly = true;
  readonly controller: Controller;
  readonly #opts: McsControllerOptions;
  readonly #log: Logger;
  readonly #dispatcher: Dispatcher;
  readonly #status: MemberStatusWriter;
  readonly #now: () => number;
  #enqueue: Enqueue | undefined;
  #exports: MemberCache | undefined;
  /** Opened once some member has a ServiceExport, kept open until the controller stops. */
  #facts:
    | { services: MemberCache; slices: MemberCache; namespaces: MemberCache; properties: MemberCache }
    | undefined;
  /** The managed caches of the written types, by `group/plural`. */
  readonly #managed = new Map<string, MemberCache>();
  /** When each member was first seen not ready (its lease counts from there). */
  readonly #unreadySince = new Map<string, number>();
  /** When each ready member was first seen with a read cache not loaded (syncing, failed): leased the same. */
  readonly #loadingSince = new Map<string, number>();
  /**
   * When the controller began loading the members (its source subscribed, once the lease is won; not its
   * construction, which a standby passes long before): for the first lease, members never seen keep what
   * they export.
   */
  #startedAt: number;
  /** Per service, the endpoints last seen of each exporting member: what an unready one keeps during its lease. */
  readonly #lastSources = new Map<string, Map<string, SourceEndpoints>>();
  /** Services that had exports or objects when last reconciled: looked at again when clusters change. */
  readonly #known = new Set<string>();

  constructor(opts: McsControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: 'mcs' });
    this.#now = opts.now ?? Date.now;
    this.#startedAt = this.#now();
    this.#status = new MemberStatusWriter(opts.members.registry, this.#log);
    this.controller = new Controller({
      name: 'mcs',
      logger: this.#log,
      reconcile: (k) => this.reconcile(k),
      workers: 2,
    });
    this.#dispatcher = new Dispatcher({
      registry: opts.members.registry,
      cacheFor: (t) => this.#managed.get(typeKey(t)),
      logger: this.#log,
    });
    this.controller.cache(opts.members.asCache()).source((enqueue) => {
      this.#startedAt = this.#now();
      this.#enqueue = enqueue;
      this.#exports = opts.members.caches.open(
        { type: ServiceExportType, fullAccessOnly: true },
        {
          onObject: (_c, o) => {
            this.#activate();
            enqueue(objectKeyOf(o));
          },
          onCacheSynced: (cluster) => {
            this.#enqueueAll();
            void this.#lookForLeftovers(cluster);
          },
          onClusterChange: (cluster, ready) => {
            this.#clusterChanged(cluster, ready);
            this.#enqueueAll();
          },
        },
      );
      return () => this.#close();
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  /** Opens the caches MCS needs beyond the ServiceExports, once (some member exports a service). */
  #activate(): void {
    if (this.#facts) return;
    const caches = this.#opts.members.caches;
    const enqueueKnown = (key: string) => {
      if (this.#isKnown(key)) this.#enqueue?.(key);
    };
    const synced: MemberCacheHandlers['onCacheSynced'] = () => this.#enqueueAll();
    this.#log.info('a member exports a service: starting the multi-cluster services caches');
    this.#facts = {
      services: caches.open(
        { type: ServiceType, fullAccessOnly: true },
        { onObject: (_c, o) => enqueueKnown(objectKeyOf(o)), onCacheSynced: synced },
      ),
      // Source slices only: ours (managed-by mcs.kubefed-ts.io) are not a service's endpoints.
      slices: caches.open(
        {
          type: EndpointSliceType,
          labelSelector: `${MANAGED_BY_LABEL}!=${MCS_MANAGED_BY}`,
          fullAccessOnly: true,
        },
        {
          onObject: (_c, o) => {
            const svc = o.metadata.labels?.[SERVICE_NAME_LABEL];
            if (svc) enqueueKnown(`${o.metadata.namespace ?? ''}/${svc}`);
          },
          onCacheSynced: synced,
        },
      ),
      namespaces: caches.open(
        { type: NamespaceType, fullAccessOnly: true },
        { onObject: (_c, o) => this.#enqueueAll(o.metadata.name), onCacheSynced: synced },
      ),
      properties: caches.open(
        { type: ClusterPropertyType, fullAccessOnly: true },
        { onObject: () => this.#enqueueAll(), onCacheSynced: synced },
      ),
    };
    for (const type of WRITTEN_TYPES) {
      this.#managed.set(
        typeKey(type),
        caches.open(
          { type, labelSelector: `${MANAGED_LABEL}=true`, fullAccessOnly: true },
          {
            onObject: (_c, o) => {
              const key = serviceKeyOfOwnerId(o.metadata.annotations?.[OWNER_ANNOTATION]);
              if (key) this.#enqueue?.(key);
              if (type === ServiceImportType || type === ClusterPropertyType) this.#enqueue?.(CLUSTERSET_KEY);
            },
            onCacheSynced: synced,
          },
        ),
      );
    }
  }

  /**
   * Idle (no ServiceExport seen), the controller still owes the removal of imports left from before it ran,
   * e.g. the last export deleted while no controller manager was up: one LIST of managed ServiceImports in
   * each member whose ServiceExports load, and their services reconciled if any are ours.
   */
  async #lookForLeftovers(cluster: string): Promise<void> {
    if (this.#facts || this.#exports?.state(cluster).kind !== 'synced') return;
    try {
      const list = await this.#opts.members.registry
        .clientFor(cluster)
        .list(ServiceImportType, { labelSelector: `${MANAGED_LABEL}=true` });
      const keys = list.items
        .map((i) => serviceKeyOfOwnerId(i.metadata.annotations?.[OWNER_ANNOTATION]))
        .filter((k): k is string => k !== undefined);
      if (keys.length === 0 || this.#facts) return;
      this.#log.info(
        { cluster, services: keys },
        'imports left from before: starting the multi-cluster services caches',
      );
      this.#activate();
      for (const key of keys) {
        this.#known.add(key);
        this.#enqueue?.(key);
      }
    } catch (e) {
      this.#log.debug({ cluster, err: errorMessage(e) }, 'cannot look for ServiceImports left from before');
    }
  }

  async #close(): Promise<void> {
    const all = [this.#exports, ...Object.values(this.#facts ?? {}), ...this.#managed.values()];
    this.#exports = undefined;
    this.#facts = undefined;
    this.#managed.clear();
    await Promise.all(all.map((c) => c?.close()));
  }

  #clusterChanged(cluster: string, ready: boolean): void {
    if (ready) this.#unreadySince.delete(cluster);
    else if (!this.#unreadySince.has(cluster)) this.#unreadySince.set(cluster, this.#now());
  }

  /** Every service known to take part (in `namespace` only, when given), and the clusterset key. */
  #enqueueAll(namespace?: string): void {
    const enqueue = this.#enqueue;
    if (!enqueue) return;
    const keys = new Set(this.#known);
    for (const cluster of this.#participants()) {
      const state = this.#exports?.state(cluster);
      if (state?.kind !== 'synced') continue;
      for (const e of state.store.list()) keys.add(objectKeyOf(e));
    }
    for (const key of keys) if (namespace === undefined || key.startsWith(`${namespace}/`)) enqueue(key);
    if (this.#facts && namespace === undefined) enqueue(CLUSTERSET_KEY);
  }

  #isKnown(key: string): boolean {
    if (this.#known.has(key)) return true;
    return this.#participants().some((c) => this.#exports?.get(c, key) !== undefined);
  }

  /** The members MCS works with: Push mode, joined with full access. */
  #participants(): string[] {
    const registry = this.#opts.members.registry;
    return registry
      .list()
      .filter((c) => !isScopedRbac(c))
      .map((c) => c.metadata.name ?? '')
      .filter((n) => n !== '' && !registry.isPull(n));
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    if (!this.#facts) return ok();
    try {
      if (key === CLUSTERSET_KEY) return await this.#reconcileClusterSet();
      const slash = key.indexOf('/');
      return await this.#reconcileService(key.slice(0, slash), key.slice(slash + 1));
    } catch (e) {
      this.#log.warn({ key, err: errorMessage(e) }, 'cannot reconcile multi-cluster service');
      return retry(e);
    }
  }

  async #reconcileService(namespace: string, name: string): Promise<ReconcileResult> {
    const facts = this.#facts;
    if (!facts) return ok();
    const key = `${namespace}/${name}`;
    const registry = this.#opts.members.registry;
    const now = this.#now();
    const participants = this.#participants();
    const registryReady = participants.filter((c) => registry.isReady(c));
    // A ready member whose read caches are not loaded (still syncing, or the list failed) is taken as not
    // ready: what it last showed, for the lease; an incomplete picture is never a reason to delete. The
    // others carry on; its onCacheSynced looks at every service again.
    const loading = registryReady.filter((c) => this.#loading(c));
    for (const c of registryReady) if (!loading.includes(c)) this.#loadingSince.delete(c);
    const ready = registryReady.filter((c) => !loading.includes(c));

    // The facts of every exporting member; those not ready keep theirs for the lease.
    const exportFacts: ExportFacts[] = [];
    const endpoints = new Map<string, SourceEndpoints>();
    const remembered = this.#lastSources.get(key) ?? new Map<string, SourceEndpoints>();
    /**
     * Absent members (not ready, loading) of which nothing was ever seen, during the first lease, with their
     * cluster id: undefined while their ClusterProperties never loaded (an admin's id.k8s.io may name it anything).
     */
    const unseen = new Map<string, string | undefined>();
    /** An absent member's export whose Service was never loaded: it cannot be judged, so nothing is changed. */
    let unjudged = false;
    let leaseRecheck: number | undefined;
    let startRecheck: number | undefined;
    for (const cluster of participants) {
      const isReady = ready.includes(cluster);
      if (!isReady) {
        const sinceMap = loading.includes(cluster) ? this.#loadingSince : this.#unreadySince;
        const since = sinceMap.get(cluster) ?? now;
        if (!sinceMap.has(cluster)) sinceMap.set(cluster, now);
        const left = since + this.#opts.endpointLeaseMs - now;
        if (left <= 0) {
          remembered.delete(cluster);
          continue;
        }
        const exp = this.#exports?.lastSeen(cluster, key) as ServiceExportObject | undefined;
        if (!exp) {
          // Seen with its exports loaded and none of this service: it does not export it.
          const startLeft = this.#startedAt + this.#opts.endpointLeaseMs - now;
          if (startLeft > 0 && this.#exports?.state(cluster).kind !== 'synced') {
            unseen.set(cluster, this.#seenClusterId(cluster));
            startRecheck = startLeft;
          }
          continue;
        }
        leaseRecheck = Math.min(leaseRecheck ?? left, left);
        const clusterId = this.#clusterId(cluster, false);
        const service = facts.services.lastSeen(cluster, key) as ServiceObject | undefined;
        exportFacts.push({ cluster, clusterId, export: exp, service });
        // A loaded slices cache of a loading member is as good as a ready one's.
        const source =
          facts.slices.state(cluster).kind === 'synced'
            ? sourceEndpoints(clusterId, name, this.#sourceSlices(cluster, namespace, name))
            : remembered.get(cluster);
        if (source) remembered.set(cluster, source);
        endpoints.set(cluster, source ?? { clusterId, byAddressType: new Map() });
        // After a (re)start a loading member may have shown nothing yet: no Service, no endpoints, no id.
        const unknown = (c: MemberCache, k: string) =>
          c.state(cluster).kind !== 'synced' && c.lastSeen(cluster, k) === undefined;
        if (
          loading.includes(cluster) &&
          (unknown(facts.services, key) ||
            source === undefined ||
            (unknown(facts.properties, CLUSTER_ID_PROPERTY) &&
              unknown(facts.properties, LEGACY_CLUSTER_ID_PROPERTY)))
        )
          unjudged = true;
        continue;
      }
      const exp = this.#exports?.get(cluster, key) as ServiceExportObject | undefined;
      if (!exp) {
        remembered.delete(cluster);
        continue;
      }
      const clusterId = this.#clusterId(cluster, true);
      exportFacts.push({
        cluster,
        clusterId,
        export: exp,
        service: facts.services.get(cluster, key) as ServiceObject | undefined,
      });
      const source = sourceEndpoints(clusterId, name, this.#sourceSlices(cluster, namespace, name));
      endpoints.set(cluster, source);
      remembered.set(cluster, source);
    }

    const resolution = resolveImport(exportFacts);
    const merged = resolution.merged;
    const sources = exportFacts
      .filter((f) => resolution.validity.get(f.cluster)?.valid === true)
      .map((f) => endpoints.get(f.cluster))
      .filter((s): s is SourceEndpoints => s !== undefined);

    const owner = serviceOwner(namespace, name);
    const liveIn = (cluster: string) => (ref: ObjectRef) =>
      this.#managed.get(typeKey(ref.type))?.get(cluster, refKey(ref));
    const derivedRef = fixedRefs(namespace, name)[1] as ObjectRef;
    // The members it is imported into: ready, the namespace there (never created), ServiceImports served.
    const consumers = new Map<string, ConsumerFacts>();
    const notServing: string[] = [];
    const unavailable: Array<{ cluster: string; message: string }> = [];
    for (const cluster of ready) {
      const ns = facts.namespaces.get(cluster, namespace);
      if (!ns || ns.metadata.deletionTimestamp) continue;
      const imports = this.#managed.get(typeKey(ServiceImportType))?.state(cluster);
      if (imports?.kind !== 'synced') {
        if (imports?.kind === 'failed' || imports?.kind === 'clientError')
          unavailable.push({ cluster, message: imports.message });
        else notServing.push(cluster);
        continue;
      }
      const taken = facts.services.get(cluster, refKey(derivedRef));
      consumers.set(cluster, {
        live: liveIn(cluster),
        dnsServed: this.#managedView(DnsEndpointType, cluster) === 'synced',
        derivedTaken: taken !== undefined && ownershipOf(taken, owner).kind !== 'ours',
      });
    }
    // Members whose objects stay as they are: loading ones; all of them while an absent member's export cannot
    // be judged (its Service never loaded), or while a member not seen since the start is named by a
    // ServiceImport (it likely still exports the service: do not delete, nor re-create with new IPs, until
    // its lease ends).
    const kept = new Map<string, KeptFacts>();
    for (const cluster of loading) kept.set(cluster, { live: liveIn(cluster) });
    const holdAll =
      unjudged ||
      (unseen.size > 0 && this.#importsNameUnseen(participants, ready, registryReady, key, unseen));
    if (holdAll) {
      for (const cluster of consumers.keys()) kept.set(cluster, { live: liveIn(cluster) });
      consumers.clear();
    }

    this.#log.debug(
      {
        service: key,
        exports: exportFacts.map(
          (f) => `${f.cluster}${ready.includes(f.cluster) ? '' : ' (not ready, leased)'}`,
        ),
        valid: [...resolution.validity].filter(([, v]) => v.valid).map(([c]) => c),
        consumers: [...consumers.keys()],
        kept: [...kept.keys()],
      },
      'reconciling multi-cluster service',
    );
    const work = serviceWork({
      namespace,
      name,
      merged,
      sources,
      consumers,
      kept,
      held: this.#heldSlices(registryReady, namespace, owner),
      event: (type, reason, message) => this.#log.debug({ service: key, type, reason, message }, 'mcs event'),
    });
    const outcome = await this.#dispatcher.apply(work);

    // Statuses: every export (valid or not) in ready members, the import in each consumer.
    const importRef = fixedRefs(namespace, name)[0] as ObjectRef;
    const importOutcomes = new Map<string, ImportOutcome>();
    // A loading member keeps what it holds: it counts as imported there if it has the import. Whether it
    // does is unknown while its ServiceImports load (briefly): the exports' Ready waits rather than flap.
    let importsUnknown = false;
    for (const [cluster, k] of kept) {
      if (consumers.has(cluster) || facts.namespaces.lastSeen(cluster, namespace) === undefined) continue;
      if (this.#managedView(ServiceImportType, cluster) !== 'synced') importsUnknown = true;
      importOutcomes.set(cluster, k.live(importRef) ? { kind: 'ok' } : { kind: 'pending' });
    }
    // After a (re)start the members load one by one: statuses computed from a partial picture would flip and
    // flip back (the CI restart test saw it), so they wait while the engine is pending or a member is still
    // loading within its lease; the requeue below comes back for them.
    const settling =
      outcome.pending ||
      loading.some((c) => now - (this.#loadingSince.get(c) ?? now) < this.#opts.endpointLeaseMs);
    if (settling) importsUnknown = true;
    const derivedOutcomes = new Map<string, ImportOutcome>();
    for (const cluster of consumers.keys()) {
      importOutcomes.set(cluster, importOutcomeOf(outcome, cluster, importRef));
      if (work.clusters.get(cluster)?.some((d) => sameRef(d, derivedRef)))
        derivedOutcomes.set(cluster, derivedOutcomeOf(outcome, cluster, derivedRef, consumers.get(cluster)));
    }
    const stamp = conditionTimestamp(new Date(now));
    const writes: Array<Promise<boolean>> = [];
    for (const f of holdAll || importsUnknown ? [] : exportFacts) {
      if (!ready.includes(f.cluster)) continue;
      const validity = resolution.validity.get(f.cluster);
      if (!validity) continue;
      const readyContent = exportReady({
        validity,
        consumers: importOutcomes,
        derived: derivedOutcomes,
        notServing,
        unavailable,
      });
      writes.push(
        this.#writeStatus(f.cluster, ServiceExportType, f.export, (current: ServiceExportObject) => {
          const previous = current.status?.conditions;
          const conditions = exportConditions({
            previous,
            validity,
            conflict: validity.valid ? resolution.conflicts.get(f.cluster) : undefined,
            ready: readyContent,
            generation: current.metadata.generation,
            now: stamp,
          });
          return {
            status: { ...(current.status ?? {}), conditions },
            changed: !conditionsEqual(previous ?? [], conditions),
          };
        }),
      );
    }
    if (merged && !settling) {
      for (const cluster of consumers.keys()) {
        const imp = objectOf(outcome, cluster, importRef) ?? consumers.get(cluster)?.live(importRef);
        if (!imp?.metadata.uid) continue;
        const consumer = consumers.get(cluster);
        const derived = consumer?.derivedTaken
          ? undefined
          : ((objectOf(outcome, cluster, derivedRef) ?? consumer?.live(derivedRef)) as
              | ServiceObject
              | undefined);
        const ips = importIps(merged.spec, derived);
        const readyContent = importReady(
          merged.spec,
          ips,
          missingFamilies(merged.spec, derived),
          derivedOutcomes.get(cluster),
        );
        const slicesPresent = (work.clusters.get(cluster) ?? []).some((d) => d.type === EndpointSliceType);
        writes.push(
          this.#writeStatus(
            cluster,
            ServiceImportType,
            imp,
            (current: KubeObject & { status?: ServiceImportStatus }) => {
              const status = importStatus({
                previous: current.status,
                clusterIds: merged.clusterIds,
                ready: readyContent,
                slicesPresent,
                generation: current.metadata.generation,
                now: stamp,
              });
              return { status, changed: !jsonEqual(status, current.status ?? {}) };
            },
          ),
        );
      }
    }
    const written = await Promise.all(writes);

    // Bookkeeping for the next events.
    const holds = work.objects.some((r) =>
      registryReady.some((c) => this.#managed.get(typeKey(r.type))?.get(c, refKey(r)) !== undefined),
    );
    if (exportFacts.length > 0 || holds) this.#known.add(key);
    else this.#known.delete(key);
    if (remembered.size > 0) this.#lastSources.set(key, remembered);
    else this.#lastSources.delete(key);

    if (outcome.pending) return requeueAfter(PENDING_RECHECK_MS);
    const failed =
      [...importOutcomes.values(), ...derivedOutcomes.values()].some((o) => o.kind === 'failed') ||
      written.includes(false);
    if (failed) return retry(new Error(`service ${key}: some member writes failed`));
    if (holdAll && startRecheck !== undefined)
      leaseRecheck = Math.min(leaseRecheck ?? startRecheck, startRecheck);
    if (leaseRecheck !== undefined) return requeueAfter(leaseRecheck + 100);
    return ok();
  }

  /**
   * Some ServiceImport of `key` the managed caches show in `clusters` (the registry's ready ones) names an
   * exporter that may be one of the `unseen` members: see importsNameUnseen.
   */
  #importsNameUnseen(
    participants: readonly string[],
    ready: readonly string[],
    clusters: readonly string[],
    key: string,
    unseen: ReadonlyMap<string, string | undefined>,
  ): boolean {
    const cache = this.#managed.get(typeKey(ServiceImportType));
    const judged = participants
      .filter((c) => !unseen.has(c))
      .map((c) => this.#clusterId(c, ready.includes(c)));
    return importsNameUnseen(
      clusters.map((c) => cache?.get(c, key) as (KubeObject & { status?: ServiceImportStatus }) | undefined),
      [...unseen.values()],
      judged,
    );
  }

  /** The DNS schema record and the ClusterProperties, while MCS is in use. */
  async #reconcileClusterSet(): Promise<ReconcileResult> {
    const facts = this.#facts;
    if (!facts) return ok();
    const registry = this.#opts.members.registry;
    const ready = this.#participants().filter((c) => registry.isReady(c));
    const event = (type: string, reason: string, message: string) =>
      this.#log.debug({ type, reason, message }, 'mcs clusterset event');
    const live = (cluster: string) => (ref: ObjectRef) =>
      this.#managed.get(typeKey(ref.type))?.get(cluster, refKey(ref));

    const importing = ready.some((c) => {
      const s = this.#managed.get(typeKey(ServiceImportType))?.state(c);
      return s?.kind === 'synced' && s.store.list().length > 0;
    });
    // Nothing imported as far as the loaded caches show: wait for the loading ones before releasing the
    // record anywhere. A loading member holds nothing else up (each member's properties are their own Work).
    const importsLoading = ready.some((c) => {
      const k = this.#managedView(ServiceImportType, c);
      return k === undefined || k === 'syncing' || k === 'none';
    });
    if (!importing && importsLoading) return requeueAfter(PENDING_RECHECK_MS);
    const dnsClusters = new Map(
      importing
        ? ready
            .filter((c) => this.#managedView(DnsEndpointType, c) === 'synced')
            .map((c) => [c, { live: live(c) }])
        : [],
    );
    const outcomes: WorkOutcome[] = [await this.#dispatcher.apply(dnsVersionWork(dnsClusters, event))];

    const exporting = ready.some((c) => {
      const s = this.#exports?.state(c);
      return s?.kind === 'synced' && s.store.list().length > 0;
    });
    if (exporting) {
      for (const cluster of ready) {
        if (this.#managedView(ClusterPropertyType, cluster) !== 'synced') continue;
        if (facts.properties.state(cluster).kind !== 'synced') continue;
        const owner = ownerId(clusterPropertyOwner(cluster));
        const userValue = (name: string) => {
          const p = facts.properties.get(cluster, name) as
            | (KubeObject & { spec?: { value?: string } })
            | undefined;
          if (!p || p.metadata.annotations?.[OWNER_ANNOTATION] === owner) return undefined;
          return p.spec?.value;
        };
        const existing = {
          clusterId: userValue(CLUSTER_ID_PROPERTY),
          legacyId: userValue(LEGACY_CLUSTER_ID_PROPERTY),
          clusterSet: userValue(CLUSTERSET_PROPERTY),
        };
        outcomes.push(
          await this.#dispatcher.apply(
            clusterPropertyWork({
              cluster,
              clusterId: clusterIdFor(cluster, {
                clusterId: existing.clusterId,
                legacyId: existing.legacyId,
              }),
              clusterSet: this.#opts.clusterSetName,
              facts: { existing: dropUndefined(existing), live: live(cluster) },
              event,
            }),
          ),
        );
      }
    }
    if (outcomes.some((o) => o.pending)) return requeueAfter(PENDING_RECHECK_MS);
    return ok();
  }

  /**
   * A ready member whose caches MCS reads are not loaded: still loading, or their list failed (429, 5xx,
   * timeout, no client). Its picture is incomplete; a type it does not serve is a complete one (none there).
   */
  #loading(cluster: string): boolean {
    const f = this.#facts;
    const all = [
      this.#exports,
      f?.services,
      f?.slices,
      f?.namespaces,
      f?.properties,
      ...this.#managed.values(),
    ];
    const read = new Set<MemberCache | undefined>([
      this.#exports,
      f?.services,
      f?.slices,
      f?.namespaces,
      f?.properties,
    ]);
    return all.some((c) => incompleteView(c?.state(cluster).kind, read.has(c)));
  }

  #managedView(type: ResourceType, cluster: string): View | undefined {
    return this.#managed.get(typeKey(type))?.state(cluster).kind;
  }

  /** The member's cluster id: its ClusterProperty, else its KubeFedCluster name. */
  #clusterId(cluster: string, ready: boolean): string {
    const props = this.#facts?.properties;
    const value = (name: string) => {
      const p = (ready ? props?.get(cluster, name) : props?.lastSeen(cluster, name)) as
        | (KubeObject & { spec?: { value?: string } })
        | undefined;
      return p?.spec?.value;
    };
    return clusterIdFor(
      cluster,
      dropUndefined({ clusterId: value(CLUSTER_ID_PROPERTY), legacyId: value(LEGACY_CLUSTER_ID_PROPERTY) }),
    );
  }

  /** An absent member's cluster id if its ClusterProperties were ever loaded; undefined while it may be any. */
  #seenClusterId(cluster: string): string | undefined {
    const props = this.#facts?.properties;
    const seen =
      props?.state(cluster).kind === 'synced' ||
      props?.lastSeen(cluster, CLUSTER_ID_PROPERTY) !== undefined ||
      props?.lastSeen(cluster, LEGACY_CLUSTER_ID_PROPERTY) !== undefined;
    return seen ? this.#clusterId(cluster, false) : undefined;
  }

  /** The member's own EndpointSlices of a Service. */
  #sourceSlices(cluster: string, namespace: string, name: string): KubeObject[] {
    const state = this.#facts?.slices.state(cluster);
    if (state?.kind !== 'synced') return [];
    return state.store.list(namespace).filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === name);
  }

  /** This service's imported slices the managed caches show in ready members (any source cluster). */
  #heldSlices(
    clusters: readonly string[],
    namespace: string,
    owner: ReturnType<typeof serviceOwner>,
  ): ObjectRef[] {
    const cache = this.#managed.get(typeKey(EndpointSliceType));
    const id = ownerId(owner);
    const names = new Set<string>();
    for (const cluster of clusters) {
      const state = cache?.state(cluster);
      if (state?.kind !== 'synced') continue;
      for (const s of state.store.list(namespace)) {
        if (
          s.metadata.annotations?.[OWNER_ANNOTATION] === id &&
          s.metadata.labels?.[LABEL_SERVICE_NAME] !== undefined
        )
          names.add(s.metadata.name ?? '');
      }
    }
    return [...names].sort().map((n) => ({ type: EndpointSliceType, namespace, name: n }));
  }

  /** Writes a member object's status; false when the write failed (retried by the reconcile). */
  async #writeStatus<T extends KubeObject, S>(
    cluster: string,
    type: KindedType,
    object: T,
    compute: (current: T) => { status: S; changed: boolean },
  ): Promise<boolean> {
    const w = await this.#status.write(cluster, type, object, compute);
    return w.kind !== 'failed' && w.kind !== 'conflict' && w.kind !== 'skipped';
  }
}

function typeKey(t: ResourceType): string {
  return `${t.group}/${t.plural}`;
}

function objectKeyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

function importOutcomeOf(outcome: WorkOutcome, cluster: string, ref: ObjectRef): ImportOutcome {
  const co = outcome.clusters.get(cluster);
  if (co?.status) return { kind: 'failed', status: co.status, message: co.message };
  const o = co?.objects.find((x) => sameRef(x.ref, ref));
  if (!o || o.status === undefined) return { kind: 'pending' };
  if (o.status === '') return { kind: 'ok' };
  return { kind: 'failed', status: o.status, message: o.message };
}

/** The derived Service's outcome; a name another Service holds is a failure whatever the engine did. */
function derivedOutcomeOf(
  outcome: WorkOutcome,
  cluster: string,
  ref: ObjectRef,
  consumer: ConsumerFacts | undefined,
): ImportOutcome {
  if (consumer?.derivedTaken)
    return {
      kind: 'failed',
      status: 'AlreadyExists',
      message: `Service "${ref.name}" is not kubefed-ts's: no clusterset IP or endpoints there`,
    };
  return importOutcomeOf(outcome, cluster, ref);
}

function objectOf(outcome: WorkOutcome, cluster: string, ref: ObjectRef): KubeObject | undefined {
  const o = outcome.clusters.get(cluster)?.objects.find((x) => sameRef(x.ref, ref));
  return o?.status === '' ? o.object : undefined;
}

function dropUndefined<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: string;
  };
}
