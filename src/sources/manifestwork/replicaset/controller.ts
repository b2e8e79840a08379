// The ManifestWorkReplicaSet controller (ocm pkg/work/hub/controllers/manifestworkreplicasetcontroller):
// finalize (delete the works; Foreground waits for them), add the finalizer, deploy (one ManifestWork per
// decided cluster, as the rollout strategy allows: plan.ts, rollout.ts), then the status. The works carry no
// owner reference: they live in the clusters' namespaces, the MWRS in its own; the label ties them.

import { isDeepStrictEqual } from 'node:util';
import {
  PLACEMENT_LABEL,
  type Placement,
  type PlacementDecision,
} from '../../../api/ocm/cluster/v1beta1/index.ts';
import type { ManifestWork } from '../../../api/ocm/work/v1/index.ts';
import {
  type ManifestWorkReplicaSet,
  API_VERSION as MWRS_API_VERSION,
  MWRS_FINALIZER,
  MWRS_KIND,
  MWRS_LABEL,
} from '../../../api/ocm/work/v1alpha1/index.ts';
import {
  errorMessage,
  isAlreadyExists,
  isConflict,
  isNotFound,
  type KubeClient,
} from '../../../kube/client/index.ts';
import { Controller } from '../../../runtime/controller.ts';
import { ensureFinalizer, removeFinalizer } from '../../../runtime/finalizers.ts';
import { enqueueMapped, enqueueObject } from '../../../runtime/handlers.ts';
import { type Informer, withoutManagedFields } from '../../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import type { Runnable } from '../../../runtime/manager.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../../runtime/status.ts';
import { PlacementDecisionType, PlacementType } from '../placement/resource-types.ts';
import { deployStatus, mwrsKey, ownerKeyOfWork, planDeploy, summarizeWorks, workUpToDate } from './plan.ts';
import { ManifestWorkReplicaSetType, ManifestWorkType } from './resource-types.ts';

export interface ManifestWorkReplicaSetControllerOptions {
  host: KubeClient;
  logger?: Logger;
}

/** OCM requeues a MWRS at most this often without an event (maxRequeueTime is the resync period). */
const FOREGROUND_RECHECK_MS = 5_000;

export class ManifestWorkReplicaSetController implements Runnable {
  readonly name = 'manifestworkreplicaset';
  readonly leaderOnly = true;
  readonly #opts: ManifestWorkReplicaSetControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #sets: Informer<ManifestWorkReplicaSet>;
  readonly #works: Informer<ManifestWork>;
  readonly #placements: Informer<Placement>;
  readonly #decisions: Informer<PlacementDecision>;

  constructor(opts: ManifestWorkReplicaSetControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#log = log;
    this.#controller = new Controller({ name: this.name, logger: log, reconcile: (k) => this.reconcile(k) });
    const { host } = opts;
    this.#sets = this.#controller.watch<ManifestWorkReplicaSet>(
      { client: host, type: ManifestWorkReplicaSetType },
      enqueueObject(),
    );
    this.#works = this.#controller.watch<ManifestWork>(
      { client: host, type: ManifestWorkType, labelSelector: MWRS_LABEL, transform: withoutManagedFields },
      enqueueMapped((w) => {
        const key = ownerKeyOfWork(w);
        return key ? [key] : [];
      }),
    );
    this.#placements = this.#controller.watch<Placement>(
      { client: host, type: PlacementType },
      enqueueMapped((p) => this.#setsUsing(p.metadata.namespace ?? '', p.metadata.name ?? '')),
    );
    this.#decisions = this.#controller.watch<PlacementDecision>(
      { client: host, type: PlacementDecisionType, labelSelector: PLACEMENT_LABEL },
      enqueueMapped((d) =>
        this.#setsUsing(d.metadata.namespace ?? '', d.metadata.labels?.[PLACEMENT_LABEL] ?? ''),
      ),
    );
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  /** The MWRSs of `namespace` that reference the placement. */
  #setsUsing(namespace: string, placement: string): string[] {
    return this.#sets.store
      .list(namespace)
      .filter((s) => (s.spec.placementRefs ?? []).some((r) => r.name === placement))
      .map((s) => `${namespace}/${s.metadata.name}`);
  }

  #worksOf(mwrs: ManifestWorkReplicaSet): ManifestWork[] {
    const key = mwrsKey(mwrs);
    return this.#works.store.list().filter((w) => w.metadata.labels?.[MWRS_LABEL] === key);
  }

  async #deleteWork(w: ManifestWork): Promise<void> {
    try {
      await this.#opts.host.delete(ManifestWorkType, w.metadata.name ?? '', {
        namespace: w.metadata.namespace,
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const found = this.#sets.store.get(key);
    if (!found) return ok();
    const { host } = this.#opts;
    let mwrs = found;
    try {
      if (mwrs.metadata.deletionTimestamp) return await this.#finalize(mwrs);
      const added = await ensureFinalizer(host, ManifestWorkReplicaSetType, mwrs, MWRS_FINALIZER);
      if (!added.done) return added.result;
      // As OCM's addFinalizerReconciler: the finalizer write ends this pass; its event starts the next.
      if (added.written) return ok();
      mwrs = added.object;

      const works = this.#worksOf(mwrs);
      const now = Date.now();
      const plan = planDeploy({
        mwrs,
        works,
        now,
        placement: (name) => this.#placements.store.get(`${mwrs.metadata.namespace}/${name}`),
        decisions: (placement) =>
          this.#decisions.store
            .list(mwrs.metadata.namespace)
            .filter((d) => d.metadata.labels?.[PLACEMENT_LABEL] === placement),
      });
      const failures: unknown[] = [];
      for (const w of plan.delete) await this.#deleteWork(w).catch((e: unknown) => failures.push(e));
      const failedApplies = new Map<string, string>();
      for (const desired of plan.apply) {
        await this.#apply(desired).catch((e: unknown) => {
          failures.push(e);
          const { namespace, name } = desired.metadata;
          failedApplies.set(
            namespace ?? '',
            `failed to apply manifestwork ${namespace}/${name}: ${errorMessage(e)}`,
          );
        });
      }
      const deleted = new Set(plan.delete);
      const deployed = deployStatus(mwrs, plan, failedApplies, now);
      const status = plan.stop
        ? deployed
        : summarizeWorks(
            deployed,
            works.filter((w) => !deleted.has(w)),
            now,
          );
      const w = await writeStatusIfChanged({
        client: host,
        type: ManifestWorkReplicaSetType,
        typeMeta: { apiVersion: MWRS_API_VERSION, kind: MWRS_KIND },
        object: mwrs,
        compute: (current) => ({ status, changed: !isDeepStrictEqual(status, current.status) }),
        attempts: 1,
      });
      if (w.kind === 'conflict') return requeueAfter(0);
      const written = statusWriteResult(w);
      if (written.kind === 'error') return written;
      if (failures.length > 0) return retry(failures[0]);
      if (plan.errors.length > 0) return retry(new Error(plan.errors.join('; ')));
      return plan.requeueAfterMs !== undefined ? requeueAfter(plan.requeueAfterMs) : ok();
    } catch (e) {
      if (isConflict(e)) return requeueAfter(0);
      return retry(e);
    }
  }

  /**
   * Creates the work, or updates the live one when it differs (the workapplier's Apply). A work of that name
   * that belongs to another MWRS, or to none, is never taken over: the error says whose it is.
   */
  async #apply(desired: ManifestWork): Promise<void> {
    const { host } = this.#opts;
    const { namespace, name } = desired.metadata;
    const owner = desired.metadata.labels?.[MWRS_LABEL];
    const foreign = (w: ManifestWork) => {
      const other = w.metadata.labels?.[MWRS_LABEL];
      return new Error(
        `manifestwork ${namespace}/${name} already exists and belongs to ${other ? `ManifestWorkReplicaSet ${other}` : 'no ManifestWorkReplicaSet'}`,
      );
    };
    const live = this.#works.store.get(`${namespace}/${name}`);
    if (!live) {
      try {
        await host.create(ManifestWorkType, desired);
        this.#log.info({ work: `${namespace}/${name}` }, 'created ManifestWork');
        return;
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        // Ours, created moments ago and not yet in the cache: its event comes. Anyone else's: say so.
        const existing = await host.get<ManifestWork>(ManifestWorkType, name ?? '', namespace);
        if (existing.metadata.labels?.[MWRS_LABEL] !== owner) throw foreign(existing);
        return;
      }
    }
    if (live.metadata.labels?.[MWRS_LABEL] !== owner) throw foreign(live);
    if (live.metadata.deletionTimestamp || workUpToDate(live, desired)) return;
    await host.update(ManifestWorkType, {
      ...live,
      apiVersion: desired.apiVersion,
      kind: desired.kind,
      metadata: { ...live.metadata, labels: { ...(live.metadata.labels ?? {}), ...desired.metadata.labels } },
      spec: desired.spec,
    });
  }

  /** Deletes the works; Background removes the finalizer at once, Foreground once the works are gone. */
  async #finalize(mwrs: ManifestWorkReplicaSet): Promise<ReconcileResult> {
    if (!(mwrs.metadata.finalizers ?? []).includes(MWRS_FINALIZER)) return ok();
    const works = this.#worksOf(mwrs);
    for (const w of works) if (!w.metadata.deletionTimestamp) await this.#deleteWork(w);
    if (mwrs.spec.cascadeDeletionPolicy === 'Foreground' && works.length > 0)
      return requeueAfter(FOREGROUND_RECHECK_MS);
    const removed = await removeFinalizer(this.#opts.host, ManifestWorkReplicaSetType, mwrs, MWRS_FINALIZER);
    return removed.done ? ok() : removed.result;
  }
}
