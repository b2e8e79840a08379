// The engine's I/O for a Pull cluster: instead of applying a Work's objects to the member, it writes (only
// when the content changed) or deletes the owner's ManifestWork in the hub namespace named after the
// cluster, through the host client, and reads the agent's answer from the works' shared hub informer.
// The decisions are manifest-work.ts's and outcome.ts's.

import { WorkCondition } from '../../api/ocm/work/v1/index.ts';
import type { KubeClient } from '../../kube/client/index.ts';
import { errorMessage, isNotFound } from '../../kube/client/index.ts';
import type { PullWorks, WorkObject } from '../../members/pull-works.ts';
import { ClusterStatus } from '../../propagation/constants.ts';
import { truncateMiddle } from '../../runtime/events.ts';
import { logFailure } from '../../runtime/failure-log.ts';
import type { Logger } from '../../runtime/logger.ts';
import { ALREADY_OWNED, OWNER_ANNOTATION, ownerId } from '../ownership.ts';
import { planCluster } from '../plan.ts';
import type {
  ClusterOutcome,
  DesiredObject,
  EventSink,
  ObjectOutcome,
  ObjectRef,
  Work,
  WorkOwner,
} from '../work.ts';
import {
  manifestIs,
  manifestWorkFor,
  type PullManifest,
  refsIn,
  renderForPull,
  sameManifestWork,
} from './manifest-work.ts';
import { MANIFEST_WORK_TYPE, manifestWorkName } from './names.ts';
import { outcomeFromManifestWork } from './outcome.ts';

export interface PullApplyResult {
  /** Undefined: nothing to say about this cluster. */
  outcome?: ClusterOutcome;
  /** The works' informer is still loading: the answer would be incomplete. */
  pending: boolean;
  written: boolean;
}

/** Where a deletion stands, in the dispatcher's DeletionOutcome terms. */
export interface PullDeletionOutcome {
  remaining: string[];
  waiting: string[];
  errors: string[];
  abandoned: string[];
}

/** What the pull path needs of the cluster registry (members/cluster-registry.ts). */
export interface PullRegistry {
  isReady(name: string): boolean;
  readonly pullWorks: Pick<PullWorks, 'hasSynced' | 'get' | 'ownWrite'> & {
    readonly hostClient: Pick<KubeClient, 'get' | 'create' | 'update' | 'delete'>;
  };
}

export class PullDispatcher {
  readonly #registry: PullRegistry;
  readonly #log: Logger;

  constructor(registry: PullRegistry, log: Logger) {
    this.#registry = registry;
    this.#log = log;
  }

  /** Hands the cluster's part of the Work to its agent and reads back what the agent reported. */
  async apply(
    work: Work,
    cluster: string,
    desired: readonly DesiredObject[] | undefined,
  ): Promise<PullApplyResult> {
    const works = this.#registry.pullWorks;
    if (!works.hasSynced()) return { pending: true, written: false };
    const ready = this.#registry.isReady(cluster);
    const existing = works.get(cluster, manifestWorkName(work.owner));
    if (existing && !ownsWork(existing, work.owner)) {
      if (!desired) return { pending: false, written: false };
      const message = `the ManifestWork "${cluster}/${existing.metadata.name ?? ''}" holds ${existing.metadata.annotations?.[OWNER_ANNOTATION] ?? 'another owner'}'s objects`;
      return {
        pending: false,
        written: false,
        outcome: {
          selected: true,
          objects: desired.map((d) => ({ ref: refOf(d), status: ALREADY_OWNED, message })),
        },
      };
    }
    if (!desired) return this.#unselected(work, existing, ready);

    const r = renderForPull(cluster, desired, existing);
    for (const w of r.warnings) work.event(w.type, w.reason, w.message);
    const failures: ObjectOutcome[] = r.failures.map((f) => {
      if (f.event) work.event(f.event.type, f.event.reason, f.event.message);
      // What the member holds of it stays as the agent last reported it.
      const kept = outcomeFromManifestWork(existing, [f.ref], { name: cluster, ready: true }).objects[0];
      return {
        ref: f.ref,
        status: f.status,
        message: f.message,
        object: kept?.status === '' ? kept.object : undefined,
      };
    });
    if (!ready) {
      const plan = planCluster(cluster, { kind: 'notReady' }, true);
      if (plan.kind === 'report' && plan.event)
        work.event(plan.event.type, plan.event.reason, plan.event.message);
    }
    let current = existing;
    let written = false;
    if (r.objects.length === 0) {
      // Nothing can be sent; what the work held is no longer wanted.
      if (existing && !existing.metadata.deletionTimestamp) {
        const err = await this.#delete(existing, work.event);
        if (err)
          return {
            pending: false,
            written: false,
            outcome: { selected: true, objects: [...failures, ...err(r.failures.map((f) => f.ref))] },
          };
      }
      return {
        pending: false,
        written: false,
        outcome: notReadyOr(ready, { selected: true, objects: failures }),
      };
    }
    // The agent still removes an earlier owner's work of this name: the new one is written once it is gone.
    if (!existing?.metadata.deletionTimestamp) {
      const mw = manifestWorkFor(work.owner, cluster, r.objects, {
        keep: (_ref, m) => work.keep?.(cluster, m) ?? false,
      });
      if (!existing || !sameManifestWork(existing, mw)) {
        const w = await this.#write(mw, existing, work.event);
        if ('failed' in w) {
          const status = existing ? ClusterStatus.UpdateFailed : ClusterStatus.CreationFailed;
          const objects = r.objects.map((o) => ({ ref: o.ref, status, message: w.failed }));
          return {
            pending: false,
            written: false,
            outcome: { selected: true, objects: [...objects, ...failures] },
          };
        }
        current = w.written;
        written = true;
      }
    }
    const co = outcomeFromManifestWork(
      current,
      r.objects.map((o) => o.ref),
      { name: cluster, ready },
    );
    co.objects.push(...failures);
    return { pending: false, written, outcome: co };
  }

  /** Nothing of this owner belongs in the cluster: its work goes (the agent removes the objects first). */
  async #unselected(work: Work, existing: WorkObject | undefined, ready: boolean): Promise<PullApplyResult> {
    if (!existing) return { pending: false, written: false };
    // As for a Push cluster (KubeFed's dispatcher skips members that are not ready), nothing is removed from a
    // cluster that is not ready: a lease blip must not make the agent delete workloads on its return.
    if (!ready) return { pending: false, written: false };
    const refs = refsIn(existing, work.objects);
    if (!existing.metadata.deletionTimestamp) {
      const err = await this.#delete(existing, work.event);
      if (err) return { pending: false, written: false, outcome: { selected: false, objects: err(refs) } };
    }
    return {
      pending: false,
      written: false,
      outcome: {
        selected: false,
        objects: refs.map((ref) => ({ ref, status: ClusterStatus.WaitingForRemoval })),
      },
    };
  }

  /** Deletes the owner's work in a cluster (the agent deletes the objects as its deleteOption says). */
  async remove(
    owner: WorkOwner,
    cluster: string,
    abandonUnready: boolean,
    event: EventSink,
    out: PullDeletionOutcome,
  ): Promise<void> {
    const existing = this.#loaded(cluster, owner, abandonUnready, out);
    if (!existing) return;
    if (!existing.metadata.deletionTimestamp) {
      const err = await this.#delete(existing, event);
      if (err) {
        out.errors.push(`cluster "${cluster}": ${ClusterStatus.DeletionFailed}`);
        return;
      }
    }
    // A cluster that is not ready owes the deletion: the work being deleted, held by the agent's finalizer,
    // is its record, carried out when the agent returns.
    if (this.#registry.isReady(cluster)) addOnce(out.remaining, cluster);
  }

  /**
   * Releases the owner's objects in a cluster (KubeFed's orphaning deletion): first the work without the
   * ownership marks and with deleteOption Orphan, which the agent applies (so the member objects lose the
   * marks), then, once the agent has reported that generation, the work is deleted and the objects stay.
   */
  async release(
    owner: WorkOwner,
    objects: readonly ObjectRef[],
    cluster: string,
    abandonUnready: boolean,
    event: EventSink,
    out: PullDeletionOutcome,
  ): Promise<void> {
    const existing = this.#loaded(cluster, owner, abandonUnready, out);
    if (!existing || existing.metadata.deletionTimestamp) return;
    const manifests = existing.spec.workload?.manifests ?? [];
    const held: PullManifest[] = refsIn(existing, objects).map((ref) => ({
      ref,
      object: structuredClone(manifests.find((m) => manifestIs(m, ref)) ?? { metadata: {} }),
    }));
    const released = manifestWorkFor(owner, cluster, held, { release: true });
    const ready = this.#registry.isReady(cluster);
    if (held.length > 0 && !sameManifestWork(existing, released)) {
      const w = await this.#write(released, existing, event);
      if ('failed' in w) out.errors.push(`cluster "${cluster}": ${ClusterStatus.LabelRemovalFailed}`);
      else out.waiting.push(`cluster "${cluster}": waiting for its agent to release the objects`);
      return;
    }
    if (held.length > 0 && !observed(existing)) {
      if (ready || !abandonUnready) {
        out.waiting.push(`cluster "${cluster}": waiting for its agent to release the objects`);
        return;
      }
      addOnce(out.abandoned, cluster);
    }
    if (await this.#delete(existing, event))
      out.errors.push(`cluster "${cluster}": ${ClusterStatus.LabelRemovalFailed}`);
  }

  /** Whether the cluster still holds the owner's work, read live (not from the informer). */
  async holds(owner: WorkOwner, cluster: string): Promise<boolean> {
    try {
      await this.#registry.pullWorks.hostClient.get(MANIFEST_WORK_TYPE, manifestWorkName(owner), cluster);
    } catch (e) {
      return !isNotFound(e);
    }
    // Not ready: handed over to the agent (see remove).
    return this.#registry.isReady(cluster);
  }

  /** The owner's work once the works are loaded; otherwise why not, noted in `out`. */
  #loaded(
    cluster: string,
    owner: WorkOwner,
    abandonUnready: boolean,
    out: PullDeletionOutcome,
  ): WorkObject | undefined {
    const works = this.#registry.pullWorks;
    if (!works.hasSynced()) {
      if (abandonUnready) addOnce(out.abandoned, cluster);
      else addOnce(out.waiting, `cluster "${cluster}": ManifestWorks not loaded yet`);
      return undefined;
    }
    const existing = works.get(cluster, manifestWorkName(owner));
    return existing && ownsWork(existing, owner) ? existing : undefined;
  }

  async #write(
    mw: WorkObject,
    existing: WorkObject | undefined,
    event: EventSink,
  ): Promise<{ written: WorkObject } | { failed: string }> {
    const works = this.#registry.pullWorks;
    const host = works.hostClient;
    const id = `ManifestWork "${mw.metadata.namespace ?? ''}/${mw.metadata.name ?? ''}"`;
    const op = existing ? 'update' : 'create';
    try {
      const written = await works.ownWrite(
        mw.metadata.namespace ?? '',
        mw.metadata.name ?? '',
        existing?.metadata.resourceVersion,
        () =>
          existing
            ? host.update<WorkObject>(MANIFEST_WORK_TYPE, {
                ...mw,
                // Keep what others (the agent's finalizer) put on it.
                metadata: {
                  ...existing.metadata,
                  labels: { ...(existing.metadata.labels ?? {}), ...mw.metadata.labels },
                  annotations: { ...(existing.metadata.annotations ?? {}), ...mw.metadata.annotations },
                },
              })
            : host.create<WorkObject>(MANIFEST_WORK_TYPE, mw),
      );
      event(
        'Normal',
        existing ? 'UpdateManifestWork' : 'CreateManifestWork',
        `${existing ? 'Updating' : 'Creating'} ${id} for the agent of cluster "${mw.metadata.namespace ?? ''}"`,
      );
      return { written };
    } catch (e) {
      event(
        'Warning',
        existing ? 'UpdateManifestWorkFailed' : 'CreateManifestWorkFailed',
        `Failed to ${op} ${id}: ${errorMessage(e)}`,
      );
      logFailure(this.#log, `${op} of a ManifestWork failed`, {
        cluster: mw.metadata.namespace ?? '',
        err: e,
      });
      return { failed: truncateMiddle(errorMessage(e), 1024) };
    }
  }

  /** Deletes a work; on failure, the outcomes to report for `refs`. */
  async #delete(
    mw: WorkObject,
    event: EventSink,
  ): Promise<((refs: readonly ObjectRef[]) => ObjectOutcome[]) | undefined> {
    const cluster = mw.metadata.namespace ?? '';
    const id = `ManifestWork "${cluster}/${mw.metadata.name ?? ''}"`;
    try {
      await this.#registry.pullWorks.hostClient.delete(MANIFEST_WORK_TYPE, mw.metadata.name ?? '', {
        namespace: cluster,
        preconditions: { uid: mw.metadata.uid },
      });
      event(
        'Normal',
        'DeleteManifestWork',
        `Deleting ${id}: the agent of cluster "${cluster}" removes its objects`,
      );
      return undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      event('Warning', 'DeleteManifestWorkFailed', `Failed to delete ${id}: ${errorMessage(e)}`);
      logFailure(this.#log, 'delete of a ManifestWork failed', { cluster, err: e });
      const message = truncateMiddle(errorMessage(e), 1024);
      return (refs) => refs.map((ref) => ({ ref, status: ClusterStatus.DeletionFailed, message }));
    }
  }
}

/** The work is this owner's (the owner annotation; a same-named work of someone else's is left alone). */
function ownsWork(mw: WorkObject, owner: WorkOwner): boolean {
  return mw.metadata.annotations?.[OWNER_ANNOTATION] === ownerId(owner);
}

/** The agent has reported the work's current generation. */
function observed(mw: WorkObject): boolean {
  const applied = mw.status?.conditions?.find((c) => c.type === WorkCondition.Applied);
  return applied !== undefined && (applied.observedGeneration ?? 0) >= (mw.metadata.generation ?? 0);
}

function notReadyOr(ready: boolean, co: ClusterOutcome): ClusterOutcome {
  return ready ? co : { selected: true, status: ClusterStatus.ClusterNotReady, objects: [] };
}

function refOf(d: DesiredObject): ObjectRef {
  return { type: d.type, namespace: d.namespace, name: d.name };
}

function addOnce(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}
