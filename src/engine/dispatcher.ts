// Fans a Work out over the members: for each registered cluster, the plan (plan.ts) for each object, then the
// applier's operations, run concurrently and each bounded, so a slow or throttling member delays only its own
// entry (KubeFed's pkg/controller/sync/dispatch/operation.go waits for all of them with one timeout). Also the
// deletion fan-out: release (orphaning), remove, and the live check that nothing is left.

import { ApiError, isNotFound, type KubeObject, type ResourceType } from '../kube/client/index.ts';
import type { ClusterRegistry } from '../members/cluster-registry.ts';
import type { MemberCache, MemberCacheState } from '../members/member-caches.ts';
import { ClusterStatus, MANAGED_LABEL } from '../propagation/constants.ts';
import { logFailure } from '../runtime/failure-log.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import {
  Applier,
  type ApplyContext,
  type DeleteOptions,
  type MemberTarget,
  type OpResult,
  reportOwned,
} from './applier.ts';
import { deletionTarget } from './deletion-target.ts';
import { batchMemberEvents, type MemberEvent } from './event-batch.ts';
import { ALREADY_OWNED, ownershipOf } from './ownership.ts';
import { type MemberView, planCluster, planObject } from './plan.ts';
import { PullDispatcher } from './pull/pull-dispatcher.ts';
import {
  type ClusterOutcome,
  type DesiredObject,
  type EventSink,
  emptyWorkOutcome,
  type ObjectRef,
  refKey,
  sameRef,
  type Work,
  type WorkOutcome,
  type WorkOwner,
} from './work.ts';

/** KubeFed's dispatcher waits this long for the member operations of one reconcile. */
const OPERATION_TIMEOUT_MS = 30_000;

export interface DispatcherOptions {
  registry: ClusterRegistry;
  /** The member cache of a type (managed objects), opened by the source; undefined: not open (yet). */
  cacheFor(type: ResourceType): MemberCache | undefined;
  logger?: Logger;
  operationTimeoutMs?: number;
}

/** Who and what a deletion is about. */
export interface DeletionRequest {
  owner: WorkOwner;
  objects: readonly ObjectRef[];
  /** The clusters that may hold copies. */
  clusters: ReadonlySet<string>;
  keep?(cluster: string, live: KubeObject): boolean;
  event: EventSink;
}

export interface DeletionOutcome {
  /** Clusters still holding an object (deletion issued or in progress). */
  remaining: string[];
  /** Clusters not ready (or whose cache is unavailable), waited for until the deletion bound. */
  waiting: string[];
  /** Ready clusters where a delete or label removal failed, with why: retried with backoff. */
  errors: string[];
  /** Not-ready clusters given up on because the deletion bound passed. */
  abandoned: string[];
  /** Not-ready clusters whose deletion is left to a pending-deletion record (deletion only, not orphaning). */
  deferred: string[];
}

export class Dispatcher {
  readonly #opts: DispatcherOptions;
  readonly #log: Logger;
  readonly #applier: Applier;
  /** Pull clusters: the Work goes to their agents as ManifestWorks on the hub. */
  readonly #pull: PullDispatcher;

  constructor(opts: DispatcherOptions) {
    this.#opts = opts;
    this.#log = opts.logger ?? silentLogger;
    this.#applier = new Applier(this.#log);
    this.#pull = new PullDispatcher(opts.registry, this.#log);
  }

  /** Brings every member in line with the Work and says what happened in each. */
  async apply(work: Work): Promise<WorkOutcome> {
    const out = emptyWorkOutcome();
    const registry = this.#opts.registry;
    const { ctx, flushEvents } = this.#context(work.owner, work.adopt, work.event);
    const ops: Array<Promise<void>> = [];
    for (const cluster of registry.list()) {
      const name = cluster.metadata.name ?? '';
      const desired = work.clusters.get(name);
      const co: ClusterOutcome = { selected: desired !== undefined, objects: [] };
      if (registry.isPull(name)) {
        // Set now, filled in later: the clusters keep the registry's order.
        out.clusters.set(name, co);
        ops.push(
          this.#pull.apply(work, name, desired).then((r) => {
            if (r.pending) out.pending = true;
            if (r.written) out.written = true;
            if (r.outcome) Object.assign(co, r.outcome);
          }),
        );
        continue;
      }
      if (!registry.isReady(name)) {
        const plan = planCluster(name, { kind: 'notReady' }, co.selected);
        if (plan.kind === 'report') {
          if (plan.event) work.event(plan.event.type, plan.event.reason, plan.event.message);
          out.clusters.set(name, { ...co, status: plan.status, message: plan.message });
        }
        continue;
      }
      const member = this.#member(name);
      const keep = (live: KubeObject) => work.keep?.(name, live) ?? false;
      const clusterCtx: ApplyContext = { ...ctx, keep };
      for (const ref of objectsIn(work.objects, desired)) {
        const d = desired?.find((x) => sameRef(x, ref));
        const cache = this.#opts.cacheFor(ref.type);
        const plan = planCluster(name, viewOf(cache?.state(name)), d !== undefined);
        if (plan.kind === 'pending') {
          out.pending = true;
          continue;
        }
        if (plan.kind === 'skip') continue;
        if (plan.kind === 'report') {
          co.objects.push({ ref, status: plan.status, message: plan.message });
          continue;
        }
        const live = cache?.get(name, refKey(ref));
        const step = planObject({
          live,
          ownership: live ? ownershipOf(live, work.owner) : undefined,
          desired: d,
          keep: live ? keep(live) : false,
        });
        if (step.op === 'none') {
          if (step.status === ALREADY_OWNED) reportOwned(work.event, ref, name, step.message);
          if (step.status !== undefined) {
            co.objects.push({
              ref,
              status: step.status,
              message: step.message,
              object: d ? step.object : undefined,
            });
          }
          continue;
        }
        const run = (): Promise<OpResult> => {
          switch (step.op) {
            case 'create':
              return this.#applier.create(member, d as DesiredObject, clusterCtx);
            case 'update':
              return this.#applier.update(member, d as DesiredObject, step.live, clusterCtx);
            case 'delete':
              return this.#applier.delete(member, ref, step.live, undefined, clusterCtx);
            case 'unlabel':
              return this.#applier.unlabel(member, ref, step.live, clusterCtx);
          }
        };
        ops.push(
          this.#bounded(name, run(), step.timedOut).then((r) => {
            if (r.written) out.written = true;
            if (r.status === undefined && !d) return;
            co.objects.push({ ref, ...r, object: d ? (r.object ?? live) : undefined });
          }),
        );
      }
      out.clusters.set(name, co);
    }
    await Promise.all(ops).finally(flushEvents);
    for (const [name, co] of out.clusters) {
      if (co.status === undefined && co.objects.length === 0) out.clusters.delete(name);
    }
    return out;
  }

  /**
   * Releases the objects in the given clusters (KubeFed's orphaning deletion): the managed label goes, the
   * objects stay. Clusters that cannot be read are waited for until `abandonUnready`.
   */
  async release(req: DeletionRequest, abandonUnready: boolean): Promise<DeletionOutcome> {
    const out = emptyDeletionOutcome();
    const { ctx, flushEvents } = this.#context(req.owner, false, req.event);
    const [pull, push] = this.#byMode(req.clusters);
    await Promise.all(
      pull.map((name) => this.#pull.release(req.owner, req.objects, name, abandonUnready, req.event, out)),
    );
    await Promise.all(
      push.flatMap((name) =>
        req.objects.map(async (ref) => {
          const live = this.#deletionTarget(
            name,
            ref,
            req.owner,
            { abandonUnready, deferUnready: false },
            out,
          );
          if (!live || live.metadata.deletionTimestamp) return;
          const r = await this.#applier.unlabel(this.#member(name), ref, live, ctx);
          if (r.status) out.errors.push(`cluster "${name}": ${r.status}`);
        }),
      ),
    ).finally(flushEvents);
    return sortOutcome(out);
  }

  /**
   * Deletes the objects from the given clusters (kept ones are released instead). With `deferUnready`, a
   * cluster that is not ready is not waited for but listed in `deferred`, for the source to record.
   */
  async remove(
    req: DeletionRequest,
    opts: { deleteOptions?: DeleteOptions; abandonUnready: boolean; deferUnready: boolean },
  ): Promise<DeletionOutcome> {
    const out = emptyDeletionOutcome();
    const { ctx, flushEvents } = this.#context(req.owner, false, req.event);
    const [pull, push] = this.#byMode(req.clusters);
    await Promise.all(
      pull.map((name) => this.#pull.remove(req.owner, name, opts.abandonUnready, req.event, out)),
    );
    await Promise.all(
      push.flatMap((name) =>
        req.objects.map(async (ref) => {
          const live = this.#deletionTarget(name, ref, req.owner, opts, out);
          if (!live) return;
          const keep = req.keep?.(name, live) ?? false;
          if (keep && live.metadata.deletionTimestamp) return;
          if (!out.remaining.includes(name)) out.remaining.push(name);
          if (live.metadata.deletionTimestamp) return;
          const member = this.#member(name);
          const r = keep
            ? await this.#applier.unlabel(member, ref, live, ctx)
            : await this.#applier.delete(member, ref, live, opts.deleteOptions, ctx);
          if (r.status && r.status !== ClusterStatus.WaitingForRemoval)
            out.errors.push(`cluster "${name}": ${r.status}`);
        }),
      ),
    ).finally(flushEvents);
    return sortOutcome(out);
  }

  /**
   * Checks with live reads, not the caches, that no cluster still holds a managed copy of this owner's (KubeFed
   * waits for the same before it removes its finalizer). Returns the clusters that still do or cannot be checked.
   */
  async verifyRemoved(req: DeletionRequest, skip: ReadonlySet<string>): Promise<string[]> {
    const registry = this.#opts.registry;
    const left = new Set<string>();
    await Promise.all(
      [...req.clusters].flatMap((name) =>
        req.objects.map(async (ref) => {
          if (skip.has(name) || !registry.get(name)) return;
          if (registry.isPull(name)) {
            if (await this.#pull.holds(req.owner, name)) left.add(name);
            return;
          }
          if (!registry.isReady(name)) {
            left.add(name);
            return;
          }
          try {
            const obj = await registry
              .clientFor(name)
              .get(ref.type, ref.name, ref.type.namespaced ? ref.namespace : undefined);
            if (obj.metadata.labels?.[MANAGED_LABEL] !== 'true') return;
            if (ownershipOf(obj, req.owner).kind === 'other') return;
            if (req.keep?.(name, obj) && obj.metadata.deletionTimestamp) return;
            left.add(name);
          } catch (e) {
            if (isNotFound(e)) return;
            // A member that no longer serves the type cannot hold the object.
            if (e instanceof ApiError && e.statusCode === 404) return;
            left.add(name);
          }
        }),
      ),
    );
    return [...left].sort();
  }

  /**
   * The objects have no owner any more (or never had one here): managed copies that are not another owner's
   * are released, so they are left alone from now on. `skip` names clusters left to someone else (a copy
   * whose deletion is still owed). Returns what failed.
   */
  async releaseOrphans(
    req: Omit<DeletionRequest, 'clusters'>,
    skip: (cluster: string) => boolean,
  ): Promise<string[]> {
    const errors: string[] = [];
    const { ctx, flushEvents } = this.#context(req.owner, false, req.event);
    await Promise.all(
      this.#opts.registry.list().flatMap((c) =>
        req.objects.map(async (ref) => {
          const name = c.metadata.name ?? '';
          if (skip(name)) return;
          if (this.#opts.registry.isPull(name)) {
            // Once per cluster: the owner's work holds all its objects there. Not loaded yet: nothing is
            // known to be there, as for a member cache still loading.
            if (ref !== req.objects[0] || !this.#opts.registry.pullWorks.hasSynced()) return;
            const out = emptyDeletionOutcome();
            await this.#pull.release(req.owner, req.objects, name, false, req.event, out);
            errors.push(...out.errors, ...out.waiting.map((w) => `${name}: ${w}`));
            return;
          }
          const live = this.#opts.cacheFor(ref.type)?.get(name, refKey(ref));
          if (!live || live.metadata.deletionTimestamp) return;
          if (ownershipOf(live, req.owner).kind === 'other') return;
          const r = await this.#applier.unlabel(this.#member(name), ref, live, ctx);
          if (r.status) errors.push(`${name}: ${r.status}`);
        }),
      ),
    ).finally(flushEvents);
    return errors;
  }

  /** The clusters of a deletion: Pull ones (their agents delete), then Push ones (the engine deletes). */
  #byMode(clusters: ReadonlySet<string>): [string[], string[]] {
    const all = [...clusters];
    const pull = all.filter((n) => this.#opts.registry.isPull(n));
    return [pull, all.filter((n) => !pull.includes(n))];
  }

  /** The context of one pass, and the flush that records its batched member events once its operations end. */
  #context(
    owner: WorkOwner,
    adopt: boolean,
    event: EventSink,
  ): { ctx: ApplyContext; flushEvents: () => void } {
    const events = collectMemberEvents(event);
    return { ctx: { owner, adopt, event, memberEvent: events.note }, flushEvents: events.flush };
  }

  #member(cluster: string): MemberTarget {
    const registry = this.#opts.registry;
    return {
      cluster,
      client: () => registry.clientFor(cluster),
      ownWrite: (type, key, rv, write) => {
        const cache = this.#opts.cacheFor(type);
        return cache ? cache.ownWrite(cluster, key, rv, write) : write();
      },
      isUnresponsive: () => registry.isUnresponsive(cluster),
      markUnresponsive: () => registry.markUnresponsive(cluster),
    };
  }

  /** The copy to delete in a cluster, or undefined after noting why there is nothing to do there (yet). */
  #deletionTarget(
    name: string,
    ref: ObjectRef,
    owner: WorkOwner,
    opts: { abandonUnready: boolean; deferUnready: boolean },
    out: DeletionOutcome,
  ): KubeObject | undefined {
    const registry = this.#opts.registry;
    const registered = registry.get(name) !== undefined;
    const ready = registered && registry.isReady(name);
    const t = deletionTarget(
      name,
      {
        registered,
        ready,
        cache: ready ? cacheView(this.#opts.cacheFor(ref.type), name, refKey(ref)) : undefined,
      },
      opts,
    );
    switch (t.kind) {
      case 'skip':
        return undefined;
      case 'object':
        return ownershipOf(t.object, owner).kind === 'other' ? undefined : t.object;
      case 'defer':
        addOnce(out.deferred, name);
        return undefined;
      case 'abandon':
        addOnce(out.abandoned, name);
        return undefined;
      case 'wait':
        addOnce(out.waiting, t.why);
        return undefined;
    }
  }

  async #bounded(cluster: string, op: Promise<OpResult>, timedOut: string): Promise<OpResult> {
    const ms = this.#opts.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<OpResult>((resolve) => {
      timer = setTimeout(() => {
        logFailure(this.#log, 'member operation timed out', {
          cluster,
          err: `no answer within ${ms} ms`,
          kind: 'timeout',
        });
        resolve({ status: timedOut });
      }, ms);
    });
    try {
      return await Promise.race([
        op.catch((e: unknown): OpResult => {
          // The operations map their own errors; anything escaping is a bug, reported, never a crash.
          logFailure(this.#log, 'member operation threw', { cluster, err: e });
          return { status: ClusterStatus.ComputeResourceFailed };
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A member cache's state in the plan's terms. */
export function viewOf(state: MemberCacheState | undefined): MemberView {
  switch (state?.kind) {
    case undefined:
    case 'none':
    case 'syncing':
      return { kind: 'loading' };
    case 'synced':
      return { kind: 'synced' };
    case 'typeNotServed':
      return {
        kind: 'unavailable',
        status: ClusterStatus.TypeNotServed,
        message: state.message,
        failed: false,
      };
    case 'clientError':
      return {
        kind: 'unavailable',
        status: ClusterStatus.ClientRetrievalFailed,
        message: state.message,
        failed: false,
      };
    case 'failed':
      return {
        kind: 'unavailable',
        status: ClusterStatus.CachedRetrievalFailed,
        message: state.message,
        failed: true,
      };
  }
}

/** The cache of a ready cluster as the deletion rules see it. */
function cacheView(
  cache: MemberCache | undefined,
  cluster: string,
  key: string,
): { object?: KubeObject; pending?: boolean; unavailable?: string; typeNotServed?: boolean } {
  const state = cache?.state(cluster) ?? { kind: 'none' as const };
  switch (state.kind) {
    case 'synced':
      return { object: state.store.get(key) };
    case 'syncing':
      return { pending: true };
    case 'none':
      return { unavailable: 'cluster is not ready' };
    case 'typeNotServed':
      return { typeNotServed: true };
    default:
      return { unavailable: state.message };
  }
}

/** Every object to look at in one cluster: the owner's whole inventory, then anything desired beyond it. */
function objectsIn(
  objects: readonly ObjectRef[],
  desired: readonly DesiredObject[] | undefined,
): ObjectRef[] {
  const all: ObjectRef[] = [...objects];
  for (const d of desired ?? []) if (!all.some((r) => sameRef(r, d))) all.push(d);
  return all;
}

/**
 * The Normal member events of one pass, recorded together once its operations are done (event-batch.ts). One
 * noted after the flush (an operation that outlived its timeout) is recorded on its own rather than lost.
 */
export function collectMemberEvents(sink: EventSink): { note(e: MemberEvent): void; flush(): void } {
  let pending: MemberEvent[] | undefined = [];
  const record = (events: readonly MemberEvent[]) => {
    for (const b of batchMemberEvents(events)) sink(b.type, b.reason, b.message);
  };
  return {
    note: (e) => {
      if (pending) pending.push(e);
      else record([e]);
    },
    flush: () => {
      const events = pending ?? [];
      pending = undefined;
      record(events);
    },
  };
}

function addOnce(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

function emptyDeletionOutcome(): DeletionOutcome {
  return { remaining: [], waiting: [], errors: [], abandoned: [], deferred: [] };
}

function sortOutcome(o: DeletionOutcome): DeletionOutcome {
  o.remaining.sort();
  o.waiting.sort();
  o.errors.sort();
  o.abandoned.sort();
  o.deferred.sort();
  return o;
}
