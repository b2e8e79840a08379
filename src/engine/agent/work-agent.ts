// OCM's spoke work agent for one member cluster: it reads the ManifestWorks of the member's hub namespace,
// applies their manifests to the member, records what it applied in an AppliedManifestWork there, and
// reports per-manifest and work conditions and status feedback back on the ManifestWork
// (ocm pkg/work/spoke: manifestcontroller, statuscontroller, finalizercontroller, appliedmanifestcontroller).
// The decisions are the pure functions of this folder; this is the I/O around them.

import { memberCrds } from '../../api/crds.ts';
import {
  APPLIED_MANIFEST_WORK_FINALIZER,
  type AppliedManifestWork,
  type FeedbackValue,
  MANIFEST_WORK_FINALIZER,
  type ManifestCondition,
  type ManifestWork,
  type ManifestWorkStatus,
} from '../../api/ocm/work/v1/index.ts';
import {
  errorMessage,
  isAlreadyExists,
  isForbidden,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import { ensureFinalizer, removeFinalizer } from '../../runtime/finalizers.ts';
import { type Informer, withoutManagedFields } from '../../runtime/informer/index.ts';
import type { Logger } from '../../runtime/logger.ts';
import { afterWriteError, ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { typeMetaOf } from '../../runtime/type-meta.ts';
import {
  fromAppliedResourceMeta,
  mergeAppliedResources,
  staleResources,
  toAppliedResourceMeta,
} from './applied-resources.ts';
import { AMW_TYPE, ensureAppliedWork, MW_TYPE, writeAppliedWorkStatus } from './applied-work.ts';
import { evaluateConditionRules } from './condition-rules.ts';
import { isManifestComplete, manifestConditions, workConditions } from './conditions.ts';
import { manifestOptions, matchesIdentifier } from './config-match.ts';
import { deletionAction } from './delete-plan.ts';
import { removeResources } from './deletion.ts';
import { evictionDecision } from './eviction.ts';
import { statusFeedback } from './feedback.ts';
import { appliedManifestWorkName, hubHash } from './hub-hash.ts';
import { applyManifest, type ManifestApplyResult } from './manifest-applier.ts';
import { applyOrder } from './order.ts';
import { appliedManifestWorkOwner, isOwnedBy } from './owner-refs.ts';
import { ManifestResolver } from './resolver.ts';
import type { AppliedResource, ResolvedManifest } from './types.ts';

export interface WorkAgentOptions {
  /** The hub namespace whose ManifestWorks this agent applies (the cluster's name). */
  clusterName: string;
  /** May only read/update ManifestWorks (+status) and create events in namespace clusterName. */
  hub: KubeClient;
  /** The hub apiserver URL, for hubHash. */
  hubUrl: string;
  agentId: string;
  member: KubeClient;
  log: Logger;
  /** Status (feedback, conditions) resync interval; default 10 s. */
  statusSyncIntervalMs?: number;
  /** How long an AppliedManifestWork whose ManifestWork is gone is kept; default 60 min. */
  evictionGracePeriodMs?: number;
  /** JSONPaths feedback that hits a map or list returns JsonRaw (OCM's RawFeedbackJsonString); default true. */
  rawFeedbackJson?: boolean;
}

const WORK_KEY = 'work/';
const APPLIED_KEY = 'applied/';
/** How soon a deleting work whose resources are not gone yet looks again. */
const DELETION_POLL_MS = 1_000;
/** How soon a manifest the member did not answer for is tried again. */
const TRANSIENT_RETRY_MS = 2_000;
const MW_META = typeMetaOf(MW_TYPE);

export class WorkAgent {
  readonly #o: Required<Omit<WorkAgentOptions, 'log'>> & { log: Logger };
  readonly #hash: string;
  readonly #controller: Controller;
  readonly #resolver: ManifestResolver;
  readonly #works: Informer<ManifestWork>;
  readonly #applied: Informer<AppliedManifestWork>;

  constructor(opts: WorkAgentOptions) {
    // Defaults after the spread: a caller passing `undefined` (an unset flag) must not erase them — an undefined
    // grace period would evict at once and an undefined interval would requeue in a hot loop.
    this.#o = {
      ...opts,
      statusSyncIntervalMs: opts.statusSyncIntervalMs ?? 10_000,
      evictionGracePeriodMs: opts.evictionGracePeriodMs ?? 60 * 60_000,
      rawFeedbackJson: opts.rawFeedbackJson ?? true,
      log: opts.log.child({ component: 'work-agent', cluster: opts.clusterName }),
    };
    this.#hash = hubHash(opts.hubUrl);
    this.#resolver = new ManifestResolver(opts.member);
    this.#controller = new Controller({
      name: `work-agent-${opts.clusterName}`,
      logger: this.#o.log,
      reconcile: (key) => this.#reconcile(key),
      workers: 2,
    });
    this.#controller.cache(crdSource(opts.member, this.#o.log));
    this.#works = this.#controller.watch<ManifestWork>(
      // A work's field ownership lists every field of every manifest in it, and the agent never reads it.
      { client: opts.hub, type: MW_TYPE, namespace: opts.clusterName, transform: withoutManagedFields },
      (enqueue) => {
        const handle = (w: ManifestWork) => {
          enqueue(WORK_KEY + (w.metadata.name ?? ''));
          enqueue(APPLIED_KEY + appliedManifestWorkName(this.#hash, w.metadata.name ?? ''));
        };
        return { onAdd: handle, onUpdate: (_, w) => handle(w), onDelete: handle };
      },
    );
    this.#applied = this.#controller.watch<AppliedManifestWork>(
      { client: opts.member, type: AMW_TYPE, backoffMaxMs: 5_000 },
      (enqueue) => {
        const handle = (a: AppliedManifestWork) => {
          enqueue(APPLIED_KEY + (a.metadata.name ?? ''));
          if (a.spec?.hubHash === this.#hash) enqueue(WORK_KEY + a.spec.manifestWorkName);
        };
        return { onAdd: handle, onUpdate: (_, a) => handle(a), onDelete: handle };
      },
    );
  }

  async start(): Promise<void> {
    this.#controller.start();
  }

  async stop(): Promise<void> {
    await this.#controller.stop();
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  async #reconcile(key: string): Promise<ReconcileResult> {
    if (key.startsWith(WORK_KEY)) return this.#reconcileWork(key.slice(WORK_KEY.length));
    if (key.startsWith(APPLIED_KEY)) return this.#reconcileApplied(key.slice(APPLIED_KEY.length));
    return ok();
  }

  #work(name: string): ManifestWork | undefined {
    return this.#works.store.get(`${this.#o.clusterName}/${name}`);
  }

  async #reconcileWork(name: string): Promise<ReconcileResult> {
    let work = this.#work(name);
    if (!work) return ok();
    const amwName = appliedManifestWorkName(this.#hash, name);
    if (work.metadata.deletionTimestamp) return this.#finalize(work, amwName);
    // The finalizer first: nothing is applied that the hub could forget to clean up (work#29).
    const fin = await ensureFinalizer(this.#o.hub, MW_TYPE, work, MANIFEST_WORK_FINALIZER);
    if (!fin.done) return fin.result;
    work = fin.object;

    const liveAmw = this.#applied.store.get(amwName);
    // Being deleted on the member: apply again once it is gone and a new one can own the resources.
    if (liveAmw?.metadata.deletionTimestamp) return requeueAfter(DELETION_POLL_MS);
    let amw: AppliedManifestWork;
    try {
      amw = await ensureAppliedWork(
        this.#o.member,
        { name: amwName, hubHash: this.#hash, agentId: this.#o.agentId },
        work,
        liveAmw,
      );
    } catch (e) {
      this.#o.log.warn({ err: errorMessage(e), work: name }, 'could not write the AppliedManifestWork');
      // A conflict (our cache was behind): look again at once; anything else backs off.
      return afterWriteError(e);
    }
    const owner = appliedManifestWorkOwner({ name: amwName, uid: amw.metadata.uid ?? '' });

    const manifests = work.spec.workload?.manifests ?? [];
    let resolved: ResolvedManifest[];
    try {
      resolved = await Promise.all(manifests.map((m, i) => this.#resolver.resolve(m, i)));
    } catch (e) {
      return retry(e);
    }
    const prevManifests = work.status?.resourceStatus?.manifests ?? [];
    const results = new Map<number, ManifestApplyResult>();
    for (const r of applyOrder(resolved)) {
      const options = manifestOptions(work.spec.manifestConfigs ?? [], identifierOf(r));
      const prev = prevManifests.find((m) => m.resourceMeta.ordinal === r.ordinal);
      // A Complete manifest is no longer updated (ocm conditions/rules): only read for its status.
      const complete = prev && sameResource(prev, r) && isManifestComplete(prev.conditions);
      const result = await applyManifest(
        {
          member: this.#o.member,
          cluster: this.#o.clusterName,
          owner,
          options: complete ? { ...options, updateStrategy: { type: 'ReadOnly' } } : options,
          executor: work.spec.executor,
          ownedByTheWork:
            deletionAction(identifierOf(r), { deleteOption: work.spec.deleteOption, readOnly: false }) ===
            'delete',
        },
        r,
      );
      results.set(r.ordinal, result);
    }

    // What the AMW owns now; what left the bundle goes (per the delete options).
    const prevApplied = (amw.status?.appliedResources ?? []).map(fromAppliedResourceMeta);
    const current: AppliedResource[] = [];
    for (const r of resolved) {
      const result = results.get(r.ordinal);
      const live = result?.live;
      // Recorded when applied (or read) now, or ours from before; not an object we were refused.
      const recorded = result?.applied || (live !== undefined && isOwnedBy(live, amw.metadata.uid ?? ''));
      if (live?.metadata.uid && r.resource && recorded)
        current.push({ ...identifierOf(r), version: r.version, uid: live.metadata.uid });
    }
    const inBundle = new Set(resolved.filter((r) => r.resource).map((r) => identityKey(r)));
    const untracked = staleResources(prevApplied, current);
    // While a manifest cannot be resolved (discovery of its group failed, a kind not served yet), nothing is
    // garbage collected: an unresolved manifest may be the very resource that looks stale.
    const unresolved = resolved.some((r) => !r.resource);
    // Still in the bundle but not applied this time (a failure): kept, never deleted for it.
    const failing = untracked.filter((s) => unresolved || inBundle.has(identityKey(s)));
    const stale = untracked.filter((s) => !unresolved && !inBundle.has(identityKey(s)));
    const removed = await removeResources(
      this.#removalContext(amw),
      stale.map((s) => ({
        resource: s,
        action: deletionAction(s, { deleteOption: work?.spec.deleteOption, readOnly: false }),
      })),
    );
    const applied = mergeAppliedResources(
      [...failing, ...removed.pending, ...removed.failures.map((f) => f.resource)],
      current,
    );
    try {
      await writeAppliedWorkStatus(this.#o.member, amw, {
        appliedResources: applied.map(toAppliedResourceMeta),
        evictionStartTime: undefined,
      });
    } catch (e) {
      this.#o.log.warn(
        { err: errorMessage(e), work: name },
        'could not write the AppliedManifestWork status',
      );
      // What was applied this pass is not recorded: deleting or orphaning would miss it. Try again first.
      return afterWriteError(e);
    }

    const status = await this.#writeStatus(work, resolved, results, false);
    if (status.kind === 'error') return status;
    const transient =
      [...results.values()].some((r) => r.transient) ||
      removed.failures.length > 0 ||
      removed.pending.length > 0;
    for (const f of removed.failures)
      this.#o.log.warn({ work: name, err: f.message }, 'could not remove a resource');
    return requeueAfter(transient ? TRANSIENT_RETRY_MS : this.#o.statusSyncIntervalMs);
  }

  /** Conditions and feedback from the apply results; written only when they changed. */
  async #writeStatus(
    work: ManifestWork,
    resolved: ResolvedManifest[],
    results: ReadonlyMap<number, ManifestApplyResult>,
    deleting: boolean,
  ): Promise<ReconcileResult> {
    const compute = (current: ManifestWork) => {
      const now = new Date();
      const generation = current.metadata.generation ?? 0;
      const prev = current.status?.resourceStatus?.manifests ?? [];
      const manifests: ManifestCondition[] = resolved.map((r) => {
        const result = results.get(r.ordinal) ?? {
          applied: false,
          reason: 'AppliedManifestFailed',
          message: 'Failed to apply manifest: not applied',
          written: false,
        };
        const options = manifestOptions(current.spec.manifestConfigs ?? [], identifierOf(r));
        const feedback = statusFeedback(
          { group: r.group, kind: r.kind },
          result.live,
          options.feedbackRules,
          {
            rawJson: this.#o.rawFeedbackJson,
          },
        );
        const rules = evaluateConditionRules(
          options.conditionRules,
          { group: r.group, version: r.version, kind: r.kind },
          result.live,
          generation,
        );
        const before = prev.find((m) => m.resourceMeta.ordinal === r.ordinal && sameResource(m, r));
        const conditions = manifestConditions(before?.conditions, {
          generation,
          apply: result,
          feedback,
          rules,
          now,
          previousValues: sameAsBefore(before?.statusFeedback?.values ?? [], feedback.values),
        });
        return {
          resourceMeta: {
            ordinal: r.ordinal,
            group: r.group,
            version: r.version,
            kind: r.kind,
            resource: r.resource,
            name: r.name,
            namespace: r.namespace,
          },
          ...(feedback.values.length > 0 ? { statusFeedback: { values: feedback.values } } : {}),
          conditions,
        } as ManifestCondition;
      });
      const conditions = workConditions(current.status?.conditions, manifests, { generation, now, deleting });
      const status: ManifestWorkStatus = { conditions, resourceStatus: { manifests } };
      return { status, changed: !jsonEqual(status, current.status ?? {}) };
    };
    const w = await writeStatusIfChanged({
      client: this.#o.hub,
      type: MW_TYPE,
      typeMeta: MW_META,
      object: work,
      compute,
    });
    if (w.kind === 'failed' || w.kind === 'conflict') {
      this.#o.log.warn(
        { work: work.metadata.name, err: errorMessage('error' in w ? w.error : '') },
        'could not write the ManifestWork status',
      );
    }
    return statusWriteResult(w);
  }

  /**
   * The work is being deleted: its resources are deleted or orphaned as deleteOption says (Foreground waits
   * until they are gone), the Deleting condition says so meanwhile; then the AMW goes and the finalizer.
   */
  async #finalize(work: ManifestWork, amwName: string): Promise<ReconcileResult> {
    if (!(work.metadata.finalizers ?? []).includes(MANIFEST_WORK_FINALIZER)) return ok();
    // Deleting=True first, as OCM's finalize controller does, so a slow cleanup is visible.
    await this.#writeDeleting(work);
    const amw = this.#applied.store.get(amwName);
    let pending = 0;
    if (amw) {
      const resources = (amw.status?.appliedResources ?? []).map(fromAppliedResourceMeta);
      const readOnly = (r: AppliedResource) =>
        (work.spec.manifestConfigs ?? []).some(
          (c) =>
            c.updateStrategy?.type === 'ReadOnly' && matchesIdentifier(c.resourceIdentifier, identifierOf(r)),
        );
      const removed = await removeResources(
        this.#removalContext(amw),
        resources.map((r) => ({
          resource: r,
          action: deletionAction(r, { deleteOption: work.spec.deleteOption, readOnly: readOnly(r) }),
        })),
      );
      pending = removed.pending.length + removed.failures.length;
      if (pending > 0) return requeueAfter(DELETION_POLL_MS);
      const done = await this.#deleteAppliedWork(amw);
      if (done) return done;
    }
    const fin = await removeFinalizer(this.#o.hub, MW_TYPE, work, MANIFEST_WORK_FINALIZER);
    return fin.done ? ok() : fin.result;
  }

  /** The Deleting condition while resources are still going (ocm#1062). */
  async #writeDeleting(work: ManifestWork): Promise<void> {
    const compute = (current: ManifestWork) => {
      const conditions = workConditions(
        current.status?.conditions,
        current.status?.resourceStatus?.manifests ?? [],
        {
          generation: current.metadata.generation ?? 0,
          now: new Date(),
          deleting: true,
        },
      );
      const status: ManifestWorkStatus = { ...(current.status ?? {}), conditions };
      return { status, changed: !jsonEqual(status, current.status ?? {}) };
    };
    await writeStatusIfChanged({
      client: this.#o.hub,
      type: MW_TYPE,
      typeMeta: MW_META,
      object: work,
      compute,
    });
  }

  #removalContext(amw: AppliedManifestWork) {
    return {
      member: this.#o.member,
      cluster: this.#o.clusterName,
      resolver: this.#resolver,
      ownerUid: amw.metadata.uid ?? '',
    };
  }

  /** Deletes every resource the AMW owns, then lets the AMW go (deleting it too when `andDelete`). */
  async #cleanUpAppliedWork(amw: AppliedManifestWork, andDelete: boolean): Promise<ReconcileResult> {
    const removed = await removeResources(
      this.#removalContext(amw),
      (amw.status?.appliedResources ?? []).map((a) => ({
        resource: fromAppliedResourceMeta(a),
        action: 'delete' as const,
      })),
    );
    if (removed.pending.length > 0 || removed.failures.length > 0) return requeueAfter(DELETION_POLL_MS);
    if (andDelete) return (await this.#deleteAppliedWork(amw)) ?? ok();
    const fin = await removeFinalizer(this.#o.member, AMW_TYPE, amw, APPLIED_MANIFEST_WORK_FINALIZER);
    return fin.done ? ok() : fin.result;
  }

  /** Removes our finalizer from the AMW and deletes it; a result when that must be tried again. */
  async #deleteAppliedWork(amw: AppliedManifestWork): Promise<ReconcileResult | undefined> {
    const fin = await removeFinalizer(this.#o.member, AMW_TYPE, amw, APPLIED_MANIFEST_WORK_FINALIZER);
    if (!fin.done) return fin.result.kind === 'ok' ? undefined : fin.result;
    try {
      await this.#o.member.delete(AMW_TYPE, amw.metadata.name ?? '');
    } catch (e) {
      if (!isNotFound(e)) return retry(e);
    }
    return undefined;
  }

  /** An AMW whose work is gone from the hub (or from another hub) is evicted after the grace period. */
  async #reconcileApplied(name: string): Promise<ReconcileResult> {
    const amw = this.#applied.store.get(name);
    if (
      !amw ||
      (amw.metadata.deletionTimestamp &&
        !(amw.metadata.finalizers ?? []).includes(APPLIED_MANIFEST_WORK_FINALIZER))
    ) {
      return ok();
    }
    // Deleted on the member: its resources go with it (OCM's AppliedManifestWorkFinalizeController); the
    // work, still on the hub, makes a new one and applies again.
    if (amw.metadata.deletionTimestamp && (amw.spec?.agentID ?? '') === this.#o.agentId) {
      try {
        return await this.#cleanUpAppliedWork(amw, false);
      } catch (e) {
        return retry(e);
      }
    }
    const workName = amw.spec?.manifestWorkName ?? '';
    const decision = evictionDecision(amw, {
      agentId: this.#o.agentId,
      hubHash: this.#hash,
      workExists: this.#work(workName) !== undefined,
      now: Date.now(),
      gracePeriodMs: this.#o.evictionGracePeriodMs,
    });
    const status = {
      appliedResources: amw.status?.appliedResources ?? [],
      evictionStartTime: amw.status?.evictionStartTime,
    };
    try {
      switch (decision.kind) {
        case 'ignore':
          return ok();
        case 'keep':
          if (decision.clear)
            await writeAppliedWorkStatus(this.#o.member, amw, { ...status, evictionStartTime: undefined });
          return ok();
        case 'start':
          this.#o.log.info(
            { appliedManifestWork: name },
            'ManifestWork missing on the hub: eviction grace period started',
          );
          await writeAppliedWorkStatus(this.#o.member, amw, {
            ...status,
            evictionStartTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          });
          return requeueAfter(this.#o.evictionGracePeriodMs);
        case 'wait':
          return requeueAfter(decision.ms);
        case 'evict': {
          this.#o.log.info(
            { appliedManifestWork: name },
            'evicting the AppliedManifestWork of a missing ManifestWork',
          );
          return await this.#cleanUpAppliedWork(amw, true);
        }
      }
    } catch (e) {
      if (isNotFound(e)) return ok();
      return retry(e);
    }
  }
}

/** The ResourceIdentifier of a resolved manifest, for manifestConfigs and orphaning rules. */
function identifierOf(r: Pick<ResolvedManifest, 'group' | 'resource' | 'name' | 'namespace'>) {
  return { group: r.group, resource: r.resource, name: r.name, namespace: r.namespace };
}
function identityKey(r: Pick<ResolvedManifest, 'group' | 'resource' | 'name' | 'namespace'>): string {
  return JSON.stringify([r.group, r.resource, r.namespace, r.name]);
}

/**
 * The previous feedback values for manifestConditions, which compares them as written: the server returns
 * them with sorted keys, so equal values are handed back as the new ones.
 */
function sameAsBefore(previous: readonly FeedbackValue[], values: FeedbackValue[]): readonly FeedbackValue[] {
  return jsonEqual(previous, values) ? values : previous;
}

/** A recorded manifest condition still describes the manifest at that ordinal. */
function sameResource(m: ManifestCondition, r: ResolvedManifest): boolean {
  const meta = m.resourceMeta;
  return (
    (meta.kind ?? '') === r.kind &&
    (meta.group ?? '') === r.group &&
    (meta.name ?? '') === r.name &&
    (meta.namespace ?? '') === r.namespace
  );
}

/** The member's AppliedManifestWork CRD, created when missing (a 403 means the installer owns it). */
function crdSource(member: KubeClient, log: Logger) {
  const crdType = {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    namespaced: false,
    kind: 'CustomResourceDefinition',
  };
  const stop = new AbortController();
  let synced = false;
  let ready: Promise<void> | undefined;
  const ensure = async () => {
    for (let delay = 500; !stop.signal.aborted; delay = Math.min(delay * 2, 30_000)) {
      try {
        for (const crd of memberCrds()) {
          // Read first: a restart or a new leader must write nothing to a member that already has it.
          try {
            await member.get(crdType, crd.metadata.name);
            continue;
          } catch (e) {
            if (isForbidden(e)) continue;
            if (!isNotFound(e)) throw e;
          }
          try {
            await member.create(crdType, crd as unknown as KubeObject);
          } catch (e) {
            if (!isAlreadyExists(e) && !isForbidden(e)) throw e;
          }
        }
        synced = true;
        return;
      } catch (e) {
        log.warn({ err: errorMessage(e) }, 'could not ensure the AppliedManifestWork CRD on the member');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };
  return {
    start: () => {
      ready ??= ensure();
    },
    waitForSync: async () => {
      await ready;
    },
    hasSynced: () => synced,
    stop: async () => {
      stop.abort();
      await ready;
    },
  };
}
