// The binding controller (karmada pkg/controllers/binding and status): turns each ResourceBinding into a
// Work for the engine — the template, rendered per scheduled cluster with its replicas and overrides
// (render.ts), plus its dependencies when propagateDeps — and writes what happened back: per-cluster state
// in the binding's status, and the fleet's status into the template's own `.status`. Deleting a binding
// (its template went) removes the member copies unless preserveResourcesOnDeletion.

import { createHash } from 'node:crypto';
import {
  CONFLICT_RESOLUTION_ANNOTATION,
  CRB_FINALIZER,
  type MetaCondition,
  RB_FINALIZER,
  RETAIN_REPLICAS_LABEL,
} from '../../api/policy/v1alpha1/index.ts';
import {
  type AggregatedStatusItem,
  BindingCondition,
  BindingReason,
  type ResourceBindingStatus,
} from '../../api/work/v1alpha2/index.ts';
import { type DeletionRequest, Dispatcher } from '../../engine/dispatcher.ts';
import { OWNER_ANNOTATION } from '../../engine/ownership.ts';
import {
  type DesiredObject,
  type ObjectRef,
  RenderError,
  refKey,
  sameRef,
  type Work,
  type WorkOutcome,
  type WorkOwner,
} from '../../engine/work.ts';
import {
  apiVersionOf,
  errorMessage,
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../../kube/client/index.ts';
import type { MemberCache } from '../../members/member-caches.ts';
import type { Members } from '../../members/members.ts';
import { isRecoverable, MANAGED_LABEL } from '../../propagation/constants.ts';
import { canonicalJson, jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { ReportedFailure } from '../../runtime/failure-log.ts';
import { hasFinalizer, removeFinalizer } from '../../runtime/finalizers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { typeMetaOf } from '../../runtime/type-meta.ts';
import { conditionTimestamp, stampCondition } from '../../util/conditions.ts';
import { type BindingObject, claimMetadata } from './binding-spec.ts';
import { type Bindings, bindingTypeOf } from './bindings.ts';
import { claimOf } from './claim.ts';
import { policyClusterOf } from './clusters.ts';
import { putCondition } from './conditions.ts';
import { type DependencyRef, dependenciesOf } from './dependencies.ts';
import { bindingEvent } from './failover/events.ts';
import { createdScheduled } from './first-schedule.ts';
import { hostStatusWriter } from './host-controllers.ts';
import { bindingKey, bindingKeyOfTemplate } from './keys.ts';
import { OverrideError } from './overrides/apply.ts';
import { overridePoliciesFor } from './overrides/select.ts';
import type { Policies } from './policies.ts';
import { memberObject } from './render.ts';
import { everScheduled, SCHEDULED_MESSAGE, scheduledStatus } from './scheduled-status.ts';
import { aggregateStatus, type MemberStatusItem } from './status/aggregate.ts';
import { memberHealth } from './status/health.ts';
import { reflectStatus } from './status/reflect.ts';
import { kindKey, resolveKind, type TemplateKind, type Templates, type TemplateType } from './templates.ts';

/** The source name in owner annotations: `policy:ResourceBinding:<ns>/<name>`. */
export const POLICY_SOURCE = 'policy';
/** The member status when an override cannot be applied (Karmada reports the Work as failed to apply). */
export const APPLY_OVERRIDE_FAILED = 'ApplyOverridePolicyFailed';
/** The dependencies propagated last time, so that ones no longer referenced are removed from members. */
export const DEPENDENCIES_ANNOTATION = 'resourcebinding.karmada.io/dependencies';
/** A member cache still loading: look again soon. */
const PENDING_RECHECK_MS = 1_000;

/** The member status of a cluster that dispatching is suspended to (karmada WorkDispatching=False). */
export const DISPATCHING_SUSPENDED = 'DispatchingSuspended';
const SUSPENDED_MESSAGE = 'Work dispatching is in a suspended state.';
/**
 * The member status of a cluster a binding is being evicted from (a graceful eviction task): its copy is
 * kept as it is, neither updated nor deleted, until the task ends (failover/eviction-tasks.ts).
 */
export const GRACEFUL_EVICTION_IN_PROGRESS = 'GracefulEvictionInProgress';
const EVICTION_MESSAGE =
  'The binding is being evicted from this cluster: its copy is kept unchanged until the replacement is ready.';

export const FULLY_APPLIED_MESSAGE = 'All works have been successfully applied';
export const NOT_FULLY_APPLIED_MESSAGE = 'Failed to apply all works, see status.aggregatedStatus for details';

export interface BindingControllerOptions {
  host: KubeClient;
  /** Reconciles run at once (the sync controllers' `syncController.maxConcurrentReconciles`). */
  workers?: number;
  members: Members;
  templates: Templates;
  policies: Policies;
  bindings: Bindings;
  events: EventRecorder;
  /** How long deleting a binding waits for a member that cannot be reached before giving up on it. */
  deletionTimeoutMs: number;
  logger?: Logger;
  /** Delay between a member object changing and the reconcile it triggers. */
  memberEventDelayMs?: number;
}

export class BindingController {
  readonly #opts: BindingControllerOptions;
  readonly #log: Logger;
  readonly controller: Controller;
  readonly #dispatcher: Dispatcher;
  /** Member caches by `group/plural`, opened when a binding of that type first needs one. */
  readonly #caches = new Map<string, MemberCache>();
  /** Which bindings propagate a dependency: `kindKey|ns|name` → binding keys. */
  readonly #dependents = new Map<string, Set<string>>();
  /**
   * Per binding, the member versions written for each rendering. Lost on restart, when the rendering hash
   * stamped on each copy (DesiredObject.appliedHash) stands in for it.
   */
  readonly #recorded = new Map<string, Map<string, Recorded>>();
  /** When this process first saw each binding being deleted: the deletion timeout counts from there. */
  readonly #deletionSeen = new Map<string, number>();

  constructor(opts: BindingControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: 'policy-binding' });
    this.controller = new Controller({
      name: 'policy-binding',
      logger: this.#log,
      reconcile: (k) => this.reconcile(k),
      workers: opts.workers ?? 4,
    });
    this.#dispatcher = new Dispatcher({
      registry: opts.members.registry,
      cacheFor: (t) => this.#caches.get(`${t.group}/${t.plural}`),
      logger: this.#log,
    });
    this.controller
      .cache(opts.members.asCache())
      .source(opts.bindings.changes)
      // The scheduler's first status write, which `changes` leaves out (a status write) and which ends the
      // wait for a binding not scheduled yet (see reconcile); not this controller's own first report, which
      // carried the Scheduled status of a binding created with its schedule.
      .source((enqueue) =>
        opts.bindings.addListener((key, b, change, old) => {
          if (change === 'update' && old && !everScheduled(old) && everScheduled(b) && !reported(b))
            enqueue(key);
        }),
      )
      .source((enqueue) =>
        opts.templates.addListener((kind, obj) => {
          const t = { ...obj, apiVersion: kind.apiVersion, kind: kind.kind };
          enqueue(bindingKeyOfTemplate(t));
          for (const key of this.#dependents.get(depKey(kind, obj)) ?? []) enqueue(key);
        }),
      )
      // Any override policy change may change what any member receives.
      .source((enqueue) =>
        opts.policies.addListener((kind, obj, old) => {
          if (kind !== 'OverridePolicy' && kind !== 'ClusterOverridePolicy') return;
          // Its status (the policy controller's) changes nothing a member receives.
          if (old && old.metadata.generation === obj.metadata.generation) return;
          for (const key of opts.bindings.keys()) enqueue(key);
        }),
      )
      .onStop(async () => {
        await Promise.all([...this.#caches.values()].map((c) => c.close()));
        this.#caches.clear();
      });
  }

  #cacheFor(type: TemplateType): MemberCache {
    const id = `${type.group}/${type.plural}`;
    let cache = this.#caches.get(id);
    if (!cache) {
      const delay = this.#opts.memberEventDelayMs ?? 1_000;
      cache = this.#opts.members.caches.open(
        { type, labelSelector: `${MANAGED_LABEL}=true` },
        {
          onObject: (_cluster, o) => {
            const key = ownerBindingKey(o);
            if (key) this.controller.enqueue(key, delay);
            // A shared dependency removed by one depender is restored by the others, and an object with a
            // binding of its own by that binding.
            const kind = { apiVersion: apiVersionOf(type), kind: type.kind };
            for (const k of this.#dependents.get(depKey(kind, o)) ?? []) this.controller.enqueue(k, delay);
            const own = bindingKeyOfTemplate({ ...o, kind: type.kind });
            if (own !== key && this.#opts.bindings.get(own)) this.controller.enqueue(own, delay);
          },
          onCacheSynced: () => this.#enqueueUsing(type),
          onClusterChange: () => this.#enqueueUsing(type, delay),
        },
      );
      this.#caches.set(id, cache);
    }
    return cache;
  }

  /** Every binding that may hold objects of this type: its template's, or dependencies of that type. */
  #enqueueUsing(type: TemplateType, delayMs?: number): void {
    const apiVersion = apiVersionOf(type);
    for (const b of this.#opts.bindings.list()) {
      const r = b.spec.resource;
      const mayHold =
        (r.apiVersion === apiVersion && r.kind === type.kind) ||
        b.spec.propagateDeps === true ||
        b.metadata.annotations?.[DEPENDENCIES_ANNOTATION] !== undefined;
      if (mayHold) this.controller.enqueue(bindingKey(b), delayMs);
    }
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const b = this.#opts.bindings.get(key);
    if (!b) return ok();
    try {
      if (b.metadata.deletionTimestamp) return await this.#delete(b);
      // Not scheduled yet: nothing to apply and nothing to report; the scheduler's write brings it back
      // (karmada pkg/controllers/binding Reconcile syncs no binding before it is scheduled). One created with
      // its schedule is applied at once, and its first report carries the Scheduled status.
      if (!everScheduled(b) && !createdScheduled(b)) return ok();
      return await this.#sync(b);
    } catch (e) {
      if (isConflict(e)) return requeueAfter(500);
      if (isNotFound(e)) return ok();
      return retry(e);
    }
  }

  async #sync(b: BindingObject): Promise<ReconcileResult> {
    const { templates } = this.#opts;
    const res = b.spec.resource;
    const kind: TemplateKind = { apiVersion: res.apiVersion, kind: res.kind };
    const type = templates.typeOf(kind);
    // Not served by the federation API server (yet): nothing is known to change.
    if (!type) return ok();
    if (!templates.synced(kind)) return requeueAfter(PENDING_RECHECK_MS);
    const cached = templates.get(kind, res.namespace, res.name);
    // The template is gone or was re-created: the garbage collector deletes this binding.
    if (!cached || (res.uid && cached.metadata.uid !== res.uid)) return ok();
    const template: KubeObject = { ...cached, apiVersion: res.apiVersion, kind: res.kind };

    const built = this.#work(b, template, type);
    // A dependency kind still loading: its objects would look absent, and absent ones are removed.
    if (built === 'pending') return requeueAfter(PENDING_RECHECK_MS);
    const { work, deps, hashes } = built;
    const outcome = await this.#dispatcher.apply(work);
    this.#remember(bindingKey(b), outcome, hashes);
    await this.#recordDependencies(b, deps);
    if (outcome.pending) return requeueAfter(PENDING_RECHECK_MS);
    const items = statusItems(b, outcome, template, (cluster) =>
      this.#cacheFor(type).lastSeen(cluster, refKey({ type, namespace: res.namespace, name: res.name })),
    );
    const result = await this.#writeBindingStatus(b, template, items);
    if (result.kind !== 'ok') return result;
    // Member writes that failed (a namespace not there yet, a conflict, a timeout) are retried with backoff.
    const failed = [...outcome.clusters.values()].flatMap((co) =>
      co.objects
        .filter((o) => o.status !== undefined && isRecoverable(o.status))
        .map((o) => `${o.ref.name}: ${o.status}`),
    );
    return failed.length > 0
      ? retry(new ReportedFailure(`member operations failed: ${failed.join(', ')}`))
      : result;
  }

  /** The versions written (or found up to date), by the rendering they were written for. */
  #remember(key: string, outcome: WorkOutcome, hashes: ReadonlyMap<string, string>): void {
    const recorded = new Map<string, Recorded>();
    for (const [cluster, co] of outcome.clusters) {
      for (const o of co.objects) {
        const id = recordId(cluster, o.ref);
        const hash = hashes.get(id);
        if (o.status === '' && o.version && hash) recorded.set(id, { hash, version: o.version });
      }
    }
    this.#recorded.set(key, recorded);
  }

  /**
   * The Work of a binding, the dependencies it propagates, and each desired object's rendering hash (so an
   * unchanged rendering whose copy is unchanged is not written again); 'pending' while a dependency kind loads.
   */
  #work(
    b: BindingObject,
    template: KubeObject,
    type: TemplateType,
  ): { work: Work; deps: DependencyRef[]; hashes: Map<string, string> } | 'pending' {
    const { templates, policies, members } = this.#opts;
    const owner = ownerOf(b);
    const claim = claimOf(b.metadata);
    const claimMeta = claim ? claimMetadata(claim) : { labels: {}, annotations: {} };
    const { cops, ops } = policies.overridePolicies(template.metadata.namespace);
    const overrides = overridePoliciesFor(template, cops, ops);
    const ref: ObjectRef = {
      type,
      namespace: template.metadata.namespace,
      name: template.metadata.name ?? '',
    };
    this.#cacheFor(type);
    const retainReplicas = template.metadata.labels?.[RETAIN_REPLICAS_LABEL] === 'true';

    // Dependencies: the ones referenced now, sent along; the ones sent last time but no longer referenced
    // stay in the inventory so the engine removes them.
    const deps = b.spec.propagateDeps ? dependenciesOf(template) : [];
    this.#trackDependents(bindingKey(b), deps);
    const depObjects: Array<{ ref: ObjectRef; template: KubeObject }> = [];
    const inventory: ObjectRef[] = [ref];
    for (const d of [...deps, ...previousDependencies(b)]) {
      const dkind = { apiVersion: d.apiVersion, kind: d.kind };
      const dtype = templates.typeOf(dkind);
      if (!dtype) continue;
      if (!templates.synced(dkind)) return 'pending';
      this.#cacheFor(dtype);
      const dref: ObjectRef = { type: dtype, namespace: d.namespace, name: d.name };
      if (inventory.some((r) => sameRef(r, dref))) continue;
      inventory.push(dref);
      const obj = deps.some((x) => sameDep(x, d)) ? templates.get(dkind, d.namespace, d.name) : undefined;
      if (obj) depObjects.push({ ref: dref, template: { ...obj, apiVersion: d.apiVersion, kind: d.kind } });
    }

    // Dispatching suspended, everywhere or to some clusters: their copies are left exactly as they are, and
    // their status is still collected.
    const frozen = (cluster: string) =>
      b.spec.suspension?.dispatching === true ||
      (b.spec.suspension?.dispatchingOnClusters?.clusterNames ?? []).includes(cluster);
    const scheduledNames = new Set((b.spec.clusters ?? []).map((c) => c.name));
    const evicting = (cluster: string) => !scheduledNames.has(cluster);
    const recorded = this.#recorded.get(bindingKey(b));
    const hashes = new Map<string, string>();
    const desiredFor = (
      cluster: string,
      r: ObjectRef,
      build: (live?: KubeObject) => { object: KubeObject },
    ): DesiredObject => {
      const id = recordId(cluster, r);
      const hash = renderingHash(build);
      if (hash) hashes.set(id, hash);
      const rec = recorded?.get(id);
      return {
        ...r,
        recordedVersion: hash && rec?.hash === hash ? rec.version : undefined,
        // Stamped on the copy, so that after a restart (nothing recorded yet) a copy of this very rendering
        // counts as applied and is not written again.
        ...(hash ? { appliedHash: hash } : {}),
        ...(evicting(cluster)
          ? { invalid: { status: GRACEFUL_EVICTION_IN_PROGRESS, message: EVICTION_MESSAGE } }
          : frozen(cluster)
            ? { invalid: { status: DISPATCHING_SUSPENDED, message: SUSPENDED_MESSAGE } }
            : {}),
        render: (live) => renderMember(template, live, () => build(live)),
      };
    };
    const clusters = new Map<string, DesiredObject[]>();
    for (const target of placedClusters(b)) {
      const kfc = members.registry.get(target.name);
      if (!kfc) continue;
      const cluster = policyClusterOf(kfc);
      const desired: DesiredObject[] = [
        desiredFor(target.name, ref, (live) =>
          memberObject({
            template,
            cluster,
            replicas: target.replicas,
            overrides,
            claim: claimMeta,
            live,
            retainReplicas,
          }),
        ),
      ];
      for (const dep of depObjects) {
        const depOverrides = overridePoliciesFor(dep.template, cops, ops);
        desired.push(
          desiredFor(target.name, dep.ref, (live) =>
            memberObject({
              template: dep.template,
              cluster,
              overrides: depOverrides,
              claim: { labels: {}, annotations: {} },
              live,
              retainReplicas: false,
            }),
          ),
        );
      }
      clusters.set(target.name, desired);
    }
    const resolution = (
      template.metadata.annotations?.[CONFLICT_RESOLUTION_ANNOTATION] ??
      b.spec.conflictResolution ??
      'Abort'
    ).toLowerCase();
    const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
      this.#event(template, type, reason, message);
    return {
      work: { owner, objects: inventory, clusters, adopt: resolution === 'overwrite', event },
      deps,
      hashes,
    };
  }

  #trackDependents(key: string, deps: readonly DependencyRef[]): void {
    for (const set of this.#dependents.values()) set.delete(key);
    for (const d of deps) {
      const k = depKey(d, { metadata: { namespace: d.namespace, name: d.name } });
      const set = this.#dependents.get(k) ?? new Set<string>();
      this.#dependents.set(k, set);
      set.add(key);
    }
    for (const [k, set] of this.#dependents) if (set.size === 0) this.#dependents.delete(k);
  }

  /** Remembers the dependencies sent, on the binding, when they change. */
  async #recordDependencies(b: BindingObject, deps: readonly DependencyRef[]): Promise<void> {
    const previous = b.metadata.annotations?.[DEPENDENCIES_ANNOTATION];
    const next = deps.length > 0 ? JSON.stringify(deps) : undefined;
    if (previous === next) return;
    await this.#opts.host.patch(
      bindingTypeOf(b),
      b.metadata.name ?? '',
      { metadata: { annotations: { [DEPENDENCIES_ANNOTATION]: next ?? null } } },
      { namespace: b.metadata.namespace },
    );
  }

  async #writeBindingStatus(
    b: BindingObject,
    template: KubeObject,
    items: AggregatedStatusItem[] | undefined,
  ): Promise<ReconcileResult> {
    const fleet = items ? this.#templateStatus(template, items) : undefined;
    const now = conditionTimestamp(new Date());
    let firstScheduled = false;
    const w = await writeStatusIfChanged({
      client: this.#opts.host,
      type: bindingTypeOf(b),
      typeMeta: typeMetaOf(bindingTypeOf(b), bindingTypeOf(b).kind),
      object: b,
      compute: (current) => {
        const old: ResourceBindingStatus = current.status ?? {};
        // The scheduler's first write, folded into this one for a binding created with its schedule (judged
        // from the object this write reads: the scheduler may have written it meanwhile).
        firstScheduled = createdScheduled(current);
        const status: ResourceBindingStatus = firstScheduled
          ? scheduledStatus(old, {
              outcome: { ok: true },
              generation: current.metadata.generation,
              now,
              lastScheduledTime: old.lastScheduledTime ?? now,
            })
          : { ...old };
        let conditions = status.conditions ?? [];
        const set = (c: Omit<MetaCondition, 'lastTransitionTime'>) => {
          conditions = putCondition(conditions, stampCondition(c, conditions, now));
        };
        if (items) {
          status.aggregatedStatus = items;
          const full = fullyApplied(current.spec.clusters ?? [], items);
          // The generation it was computed for: a graceful eviction ends on health read for the current spec.
          set({
            type: BindingCondition.FullyApplied,
            status: full ? 'True' : 'False',
            reason: full ? BindingReason.FullyAppliedSuccess : BindingReason.FullyAppliedFailed,
            message: full ? FULLY_APPLIED_MESSAGE : NOT_FULLY_APPLIED_MESSAGE,
            ...(current.metadata.generation !== undefined
              ? { observedGeneration: current.metadata.generation }
              : {}),
          });
        }
        set(dispatchingCondition(current));
        if (fleet?.hostWriter) {
          set({
            type: 'StatusWrittenBack',
            status: 'False',
            reason: 'HostControllerOwnsStatus',
            message: `The template's status is written by ${fleet.hostWriter} on the federation API server, which runs workload controllers: kubefed-ts does not write it (see docs/federation-apiserver.md)`,
          });
        } else if (fleet) {
          set({
            type: 'StatusWrittenBack',
            status: 'True',
            reason: 'Aggregated',
            message: "The template's status is the sum of its member copies' statuses",
          });
        }
        status.conditions = conditions;
        return { status, changed: !jsonEqual(status, old) };
      },
    });
    if (w.kind === 'written' && firstScheduled)
      bindingEvent(this.#opts.events, w.object, 'Normal', 'ScheduleBindingSucceed', SCHEDULED_MESSAGE);
    const alreadyReported = b.status?.conditions?.some(
      (c) => c.type === 'StatusWrittenBack' && c.reason === 'HostControllerOwnsStatus',
    );
    if (fleet?.hostWriter) {
      if (!alreadyReported)
        this.#event(
          template,
          'Warning',
          'HostRunsWorkloadControllers',
          `Not writing the aggregated status: ${fleet.hostWriter} writes it`,
        );
    } else if (fleet?.status !== undefined) {
      const tw = await this.#writeTemplateStatus(template, fleet.status);
      if (tw.kind === 'failed' || tw.kind === 'conflict') return statusWriteResult(tw);
    }
    return statusWriteResult(w);
  }

  /** The fleet's status for the template, or who else writes it there. */
  #templateStatus(
    template: KubeObject,
    items: readonly AggregatedStatusItem[],
  ): { status?: Record<string, unknown>; hostWriter?: string } | undefined {
    const memberItems: MemberStatusItem[] = items.map((i) => ({
      clusterName: i.clusterName,
      status: i.status,
      applied: i.applied ?? false,
    }));
    const status = aggregateStatus(template, memberItems);
    if (status === undefined) return undefined;
    const writer = hostStatusWriter(template);
    return writer ? { hostWriter: writer } : { status };
  }

  #writeTemplateStatus(template: KubeObject, status: Record<string, unknown>) {
    const kind = { apiVersion: template.apiVersion ?? '', kind: template.kind ?? '' };
    const type = this.#opts.templates.typeOf(kind) as TemplateType;
    return writeStatusIfChanged({
      client: this.#opts.host,
      type,
      typeMeta: { apiVersion: kind.apiVersion, kind: kind.kind },
      object: template,
      compute: (current) => ({
        status,
        changed: !jsonEqual(status, (current as { status?: unknown }).status ?? {}),
      }),
    });
  }

  /**
   * The template is gone: its copies go too (Karmada's execution controller), or with
   * preserveResourcesOnDeletion they are released and kept. Unreachable members are waited for up to the
   * deletion timeout, then given up on, so that a dead member never holds a deletion forever.
   */
  async #delete(b: BindingObject): Promise<ReconcileResult> {
    const finalizer = b.metadata.namespace ? RB_FINALIZER : CRB_FINALIZER;
    const key = bindingKey(b);
    if (!hasFinalizer(b, finalizer)) return ok();
    const res = b.spec.resource;
    // The kind as discovery has it, even when no policy selects it any more. Not served at all (its CRD
    // removed from the federation API server): its copies cannot be named, and are left as they are.
    const type = await this.#typeOf({ apiVersion: res.apiVersion, kind: res.kind });
    if (type) {
      this.#cacheFor(type);
      const objects: ObjectRef[] = [{ type, namespace: res.namespace, name: res.name }];
      for (const d of previousDependencies(b)) {
        const dtype = await this.#typeOf(d);
        if (dtype) {
          this.#cacheFor(dtype);
          objects.push({ type: dtype, namespace: d.namespace, name: d.name });
        }
      }
      const clusters = new Set(this.#opts.members.registry.list().map((c) => c.metadata.name ?? ''));
      const req: DeletionRequest = { owner: ownerOf(b), objects, clusters, event: () => {} };
      // Counted from when this process first saw the deletion, so that a restart (member caches still
      // loading) never gives up on a member at once.
      const since = this.#deletionSeen.get(key) ?? Date.now();
      this.#deletionSeen.set(key, since);
      const abandonUnready = Date.now() - since > this.#opts.deletionTimeoutMs;
      const out = b.spec.preserveResourcesOnDeletion
        ? await this.#dispatcher.release(req, abandonUnready)
        : await this.#dispatcher.remove(req, { abandonUnready, deferUnready: false });
      if (out.errors.length > 0) return retry(new Error(out.errors.join('; ')));
      if (out.remaining.length > 0 || out.waiting.length > 0) return requeueAfter(2_000);
      if (!b.spec.preserveResourcesOnDeletion) {
        const left = await this.#dispatcher.verifyRemoved(req, new Set(out.abandoned));
        if (left.length > 0) return requeueAfter(2_000);
      }
      if (out.abandoned.length > 0) {
        this.#log.warn(
          { binding: key, clusters: out.abandoned },
          'gave up on unreachable members; copies may remain',
        );
      }
    } else {
      this.#log.warn(
        { binding: key, kind: `${res.apiVersion} ${res.kind}` },
        'the kind is not served by the federation API server any more; member copies are left as they are',
      );
    }
    const w = await removeFinalizer(this.#opts.host, bindingTypeOf(b), b, finalizer);
    if (!w.done) return w.result;
    this.#deletionSeen.delete(key);
    this.#recorded.delete(key);
    this.#trackDependents(key, []);
    return ok();
  }

  /** A watched kind's type, else discovery's (throws on a discovery error, so the caller retries). */
  async #typeOf(kind: TemplateKind): Promise<TemplateType | undefined> {
    return this.#opts.templates.typeOf(kind) ?? (await resolveKind(this.#opts.host, kind));
  }

  #event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.#opts.events.record(obj, type, reason, message).catch((e: unknown) => {
      this.#log.debug({ err: errorMessage(e) }, 'event not recorded');
    });
  }
}

function ownerOf(b: BindingObject): WorkOwner {
  return {
    source: POLICY_SOURCE,
    kind: bindingTypeOf(b).kind,
    namespace: b.metadata.namespace,
    name: b.metadata.name ?? '',
    uid: b.metadata.uid ?? '',
  };
}

/** The binding a member copy belongs to, from its owner annotation (`policy:<Kind>:<ns>/<name>`). */
export function ownerBindingKey(o: KubeObject): string | undefined {
  const id = o.metadata.annotations?.[OWNER_ANNOTATION];
  if (!id?.startsWith(`${POLICY_SOURCE}:`)) return undefined;
  const rest = id.slice(POLICY_SOURCE.length + 1);
  const colon = rest.indexOf(':');
  return colon < 0 ? undefined : rest.slice(colon + 1);
}

function previousDependencies(b: BindingObject): DependencyRef[] {
  const raw = b.metadata.annotations?.[DEPENDENCIES_ANNOTATION];
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed)
      ? (parsed as DependencyRef[]).filter((d) => typeof d?.name === 'string')
      : [];
  } catch {
    return [];
  }
}

function depKey(kind: TemplateKind, obj: { metadata: { namespace?: string; name?: string } }): string {
  return `${kindKey(kind)}|${obj.metadata.namespace ?? ''}|${obj.metadata.name ?? ''}`;
}

function sameDep(a: DependencyRef, b: DependencyRef): boolean {
  return a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

/** The member status when the member is the federation API server itself (the host joined as a member). */
export const TEMPLATE_IN_MEMBER = 'TemplateIsInThisCluster';

/**
 * Override errors as the member status Karmada would report (the Work could not be built); and never a write
 * over the template itself, which is what a "copy" in the host is when the host is also a member.
 */
function renderMember(
  template: KubeObject,
  live: KubeObject | undefined,
  build: () => { object: KubeObject },
): { object: KubeObject; warnings: [] } {
  if (live?.metadata.uid && live.metadata.uid === template.metadata.uid) {
    throw new RenderError(
      TEMPLATE_IN_MEMBER,
      'this member is the federation API server itself: the object there is the template, which is never overwritten',
    );
  }
  try {
    return { object: build().object, warnings: [] };
  } catch (e) {
    if (e instanceof OverrideError) throw new RenderError(APPLY_OVERRIDE_FAILED, e.message);
    throw e;
  }
}

/** A hash of what this cluster should receive before the member's own fields are merged in. */
function renderingHash(build: () => { object: KubeObject }): string | undefined {
  try {
    return createHash('sha256').update(canonicalJson(build().object)).digest('base64url');
  } catch {
    return undefined;
  }
}

function recordId(cluster: string, r: ObjectRef): string {
  return `${cluster}|${r.type.group}/${r.type.plural}|${refKey(r)}`;
}

interface Recorded {
  hash: string;
  version: string;
}

/**
 * Per scheduled cluster: applied or why not, health and the member's status (Karmada's aggregatedStatus).
 * A cluster that cannot be reached keeps what was last known of it; a frozen (suspended) copy is reported as
 * it is, so the template's status still counts it.
 */
function statusItems(
  b: BindingObject,
  outcome: WorkOutcome,
  template: KubeObject,
  lastSeen: (cluster: string) => KubeObject | undefined,
): AggregatedStatusItem[] {
  const kind = template.kind ?? '';
  const previous = new Map((b.status?.aggregatedStatus ?? []).map((i) => [i.clusterName, i]));
  return placedClusters(b)
    .map((target) => {
      const co = outcome.clusters.get(target.name);
      if (co?.status) {
        const last = previous.get(target.name);
        const member = lastSeen(target.name);
        const reflected = member ? reflectStatus(kind, member) : last?.status;
        return {
          clusterName: target.name,
          applied: last?.applied ?? false,
          appliedMessage: `${co.status}${co.message ? `: ${co.message}` : ''}`,
          health: 'Unknown',
          ...(reflected ? { status: reflected } : {}),
        };
      }
      const o = co?.objects.find((x) => x.ref.name === template.metadata.name && x.ref.type.kind === kind);
      const frozen =
        (o?.status === DISPATCHING_SUSPENDED || o?.status === GRACEFUL_EVICTION_IN_PROGRESS) &&
        o.object !== undefined;
      const applied = o?.status === '' || frozen;
      const why = o?.status && !applied ? `${o.status}${o.message ? `: ${o.message}` : ''}` : undefined;
      const member = o?.object;
      const item: AggregatedStatusItem = {
        clusterName: target.name,
        applied,
        ...(why ? { appliedMessage: why } : {}),
        health: member && applied ? memberHealth(kind, member) : 'Unknown',
      };
      const reflected = member && applied ? reflectStatus(kind, member) : undefined;
      if (reflected) item.status = reflected;
      return item;
    })
    .sort((x, y) => x.clusterName.localeCompare(y.clusterName));
}

/** This controller has reported on the binding: FullyApplied is in every report it writes. */
export function reported(b: Pick<BindingObject, 'status'>): boolean {
  return (b.status?.conditions ?? []).some((c) => c.type === BindingCondition.FullyApplied);
}

/**
 * Every scheduled cluster's copy is applied. The copies of clusters being evicted are reported in
 * aggregatedStatus but are not scheduled ones.
 */
export function fullyApplied(
  scheduled: ReadonlyArray<{ name: string }>,
  items: readonly AggregatedStatusItem[],
): boolean {
  const names = new Set(scheduled.map((c) => c.name));
  const mine = items.filter((i) => names.has(i.clusterName));
  return names.size > 0 && mine.length === names.size && mine.every((i) => i.applied);
}

/**
 * The clusters that hold copies: the scheduled ones, then those of graceful eviction tasks, whose copies
 * stay until their task ends.
 */
export function placedClusters(b: Pick<BindingObject, 'spec'>): Array<{ name: string; replicas?: number }> {
  const scheduled = b.spec.clusters ?? [];
  const names = new Set(scheduled.map((c) => c.name));
  const out: Array<{ name: string; replicas?: number }> = [...scheduled];
  for (const t of b.spec.gracefulEvictionTasks ?? []) {
    if (names.has(t.fromCluster)) continue;
    names.add(t.fromCluster);
    out.push(
      t.replicas !== undefined ? { name: t.fromCluster, replicas: t.replicas } : { name: t.fromCluster },
    );
  }
  return out;
}

function dispatchingCondition(b: BindingObject) {
  const suspended = b.spec.suspension?.dispatching === true;
  return suspended
    ? { type: 'Dispatching', status: 'False', reason: 'SuspendDispatching', message: SUSPENDED_MESSAGE }
    : {
        type: 'Dispatching',
        status: 'True',
        reason: 'Dispatching',
        message: 'Binding is being dispatched to member clusters',
      };
}
