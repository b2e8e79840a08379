// Carries out one object's operation against one member: create, update (adopting an existing object when
// allowed), delete, or release (unlabel). The hub's dispatcher drives it for every member; an agent running
// in a member can drive it against its own cluster. The decisions are plan.ts's; this only does the I/O,
// as KubeFed's pkg/controller/sync/dispatch/managed.go does for one cluster.

import {
  ApiError,
  errorMessage,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  TransportError,
} from '../kube/client/index.ts';
import {
  ClusterStatus,
  inClusterFailureReason,
  MANAGED_LABEL,
  RENDERING_ANNOTATION,
} from '../propagation/constants.ts';
import { objectVersion } from '../propagation/versions.ts';
import { truncateMiddle } from '../runtime/events.ts';
import { logFailure } from '../runtime/failure-log.ts';
import { objectKey } from '../runtime/informer/index.ts';
import type { Logger } from '../runtime/logger.ts';
import { timedDispatch } from '../runtime/metrics.ts';
import { describeMemberObject as describe, type MemberEvent } from './event-batch.ts';
import {
  ALREADY_OWNED,
  FEDERATED_SOURCE,
  OWNER_ANNOTATION,
  ownershipOf,
  stampOwner,
  stampRendering,
} from './ownership.ts';
import { planExisting, planWrite, type RenderResult, tryRender } from './plan.ts';
import { type DesiredObject, type EventSink, type ObjectRef, refKey, type WorkOwner } from './work.ts';

/** The member an applier writes to: its client, its caches, and whether it answers at all. */
export interface MemberTarget {
  readonly cluster: string;
  /** Throws when no client can be built (ClusterConfigError). */
  client(): KubeClient;
  /**
   * Makes a write through the member cache of its type (Informer.ownWrite), so that the next read sees it at
   * once and its watch event does not come back as a change to reconcile.
   */
  ownWrite(
    type: ResourceType,
    key: string,
    previousResourceVersion: string | undefined,
    write: () => Promise<KubeObject>,
  ): Promise<KubeObject>;
  /** No answer recently: skip it rather than wait for another timeout. */
  isUnresponsive(): boolean;
  markUnresponsive(): void;
}

export interface ApplyContext {
  owner: WorkOwner;
  adopt: boolean;
  /** Work.keep for this member: only a create that finds the object already there asks it. */
  keep?: (live: KubeObject) => boolean;
  /** Warnings, recorded one by one (their messages carry each member's error). */
  event: EventSink;
  /** The Normal event of a member write about to be made, for the dispatcher to record with its pass's others. */
  memberEvent(e: MemberEvent): void;
}

export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** One operation's result: `status` '' is OK, undefined is nothing to report (the object was released). */
export interface OpResult {
  status: string | undefined;
  message?: string;
  object?: KubeObject;
  version?: string;
  written?: boolean;
}

export class Applier {
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  async create(m: MemberTarget, d: DesiredObject, ctx: ApplyContext): Promise<OpResult> {
    const plan = planWrite(m.cluster, this.#render(d, undefined, ctx), undefined, undefined);
    if (plan.op === 'fail') return this.#renderFailed(plan, ctx);
    if (plan.op === 'none') return { status: '' };
    if (m.isUnresponsive()) return { status: ClusterStatus.CreationTimedOut };
    ctx.memberEvent({ reason: 'CreateInCluster', object: d, cluster: m.cluster });
    let client: KubeClient;
    try {
      client = m.client();
    } catch (e) {
      return this.#fail(m, d, ctx, 'create', e, ClusterStatus.ClientRetrievalFailed);
    }
    try {
      const created = await m.ownWrite(d.type, objectKey(plan.object), undefined, () =>
        timedDispatch('create', m.cluster, client.create(d.type, plan.object)),
      );
      return { status: '', object: created, version: objectVersion(created), written: true };
    } catch (e) {
      // A Namespace create can time out at the gateway while the namespace is being made: look for it.
      const namespaceTimeout = d.type.kind === 'Namespace' && e instanceof ApiError && e.statusCode === 504;
      if (!isAlreadyExists(e) && !namespaceTimeout) {
        return this.#fail(m, d, ctx, 'create', e, ClusterStatus.CreationFailed);
      }
      let existing: KubeObject;
      try {
        existing = await client.get(d.type, d.name, d.type.namespaced ? d.namespace : undefined);
      } catch (getErr) {
        return this.#fail(m, d, ctx, 'retrieve', getErr, ClusterStatus.RetrievalFailed);
      }
      const next = planExisting({
        existing,
        ownership: ownershipOf(existing, ctx.owner),
        adopt: ctx.adopt,
        keep: ctx.keep?.(existing) ?? false,
      });
      if (next.op === 'none') {
        if (next.status === ALREADY_OWNED) reportOwned(ctx.event, d, m.cluster, next.message);
        return { status: next.status, message: next.message, object: next.object };
      }
      ctx.event(
        'Warning',
        'CreateInClusterFailed',
        `Failed to create ${describe(d)} in cluster "${m.cluster}": ${errorMessage(e)}. ` +
          'An update will be attempted instead of a creation due to an existing resource',
      );
      return this.update(m, d, next.live, ctx);
    }
  }

  async update(m: MemberTarget, d: DesiredObject, live: KubeObject, ctx: ApplyContext): Promise<OpResult> {
    // The cached path never gets here with such a copy (plan.ts); an adopted one can.
    if (live.metadata.labels?.[MANAGED_LABEL] === 'false') {
      return { status: ClusterStatus.ManagedLabelFalse, object: live };
    }
    const plan = planWrite(m.cluster, this.#render(d, live, ctx), live, d.recordedVersion, d.appliedHash);
    if (plan.op === 'fail') return this.#renderFailed(plan, ctx);
    if (plan.op === 'none') return { status: '', object: plan.object, version: plan.version };
    if (m.isUnresponsive()) return { status: ClusterStatus.UpdateTimedOut };
    ctx.memberEvent({ reason: 'UpdateInCluster', object: d, cluster: m.cluster });
    try {
      const updated = await m.ownWrite(d.type, objectKey(plan.object), live.metadata.resourceVersion, () =>
        timedDispatch('update', m.cluster, m.client().update(d.type, plan.object)),
      );
      return { status: '', object: updated, version: objectVersion(updated), written: true };
    } catch (e) {
      return this.#fail(m, d, ctx, 'update', e, ClusterStatus.UpdateFailed);
    }
  }

  async delete(
    m: MemberTarget,
    ref: ObjectRef,
    live: KubeObject,
    options: DeleteOptions | undefined,
    ctx: ApplyContext,
  ): Promise<OpResult> {
    if (m.isUnresponsive()) return { status: ClusterStatus.DeletionTimedOut };
    ctx.memberEvent({ reason: 'DeleteInCluster', object: ref, cluster: m.cluster });
    try {
      await timedDispatch(
        'delete',
        m.cluster,
        m
          .client()
          .delete(ref.type, live.metadata.name ?? '', { namespace: live.metadata.namespace, ...options }),
      );
      return { status: ClusterStatus.WaitingForRemoval };
    } catch (e) {
      if (isNotFound(e)) return { status: ClusterStatus.WaitingForRemoval };
      return this.#fail(m, ref, ctx, 'delete', e, ClusterStatus.DeletionFailed);
    }
  }

  /** Releases the object: it keeps everything but the managed label (and owner), and is left alone. */
  async unlabel(m: MemberTarget, ref: ObjectRef, live: KubeObject, ctx: ApplyContext): Promise<OpResult> {
    if (live.metadata.labels?.[MANAGED_LABEL] !== 'true') return { status: undefined };
    if (m.isUnresponsive()) return { status: ClusterStatus.LabelRemovalTimedOut };
    ctx.memberEvent({ reason: 'RemoveManagedLabelFromInCluster', object: ref, cluster: m.cluster });
    const metadata: Record<string, unknown> = { labels: { [MANAGED_LABEL]: null } };
    // The rendering stamp goes too: a released copy adopted again must be written (re-marked), not taken as ours.
    if (ctx.owner.source !== FEDERATED_SOURCE)
      metadata.annotations = { [OWNER_ANNOTATION]: null, [RENDERING_ANNOTATION]: null };
    try {
      await m
        .client()
        .patch(
          ref.type,
          live.metadata.name ?? '',
          { metadata },
          { namespace: live.metadata.namespace, patchType: 'merge' },
        );
      return { status: undefined };
    } catch (e) {
      if (isNotFound(e)) return { status: undefined };
      return this.#fail(m, ref, ctx, 'remove managed label from', e, ClusterStatus.LabelRemovalFailed);
    }
  }

  /**
   * The object to write, finished before planWrite compares it with the live copy: the owner marks and the
   * rendering hash are part of what the member should hold, so planWrite weighs what will really be written.
   */
  #render(d: DesiredObject, live: KubeObject | undefined, ctx: ApplyContext): RenderResult {
    const r = tryRender(() => d.render(live));
    if (!r.ok) return r;
    for (const w of r.rendered.warnings) ctx.event('Warning', w.reason, w.message);
    stampOwner(r.rendered.object, ctx.owner);
    stampRendering(r.rendered.object, d.appliedHash);
    return r;
  }

  #renderFailed(
    plan: {
      status: string;
      message: string;
      event: { type: 'Normal' | 'Warning'; reason: string; message: string };
    },
    ctx: ApplyContext,
  ): OpResult {
    ctx.event(plan.event.type, plan.event.reason, plan.event.message);
    return { status: plan.status, message: plan.message };
  }

  #fail(
    m: MemberTarget,
    ref: ObjectRef,
    ctx: ApplyContext,
    op: string,
    e: unknown,
    status: string,
  ): OpResult {
    if (e instanceof TransportError) m.markUnresponsive();
    const msg = `Failed to ${op} ${describe(ref)} in cluster "${m.cluster}": ${errorMessage(e)}`;
    ctx.event('Warning', inClusterFailureReason(op), msg);
    logFailure(this.#log, `${op} failed`, { cluster: m.cluster, err: e, fields: { object: refKey(ref) } });
    return { status, message: truncateMiddle(errorMessage(e), 1024) };
  }
}

/** The loser of an ownership conflict says so in an event too, naming the owner. */
export function reportOwned(
  event: EventSink,
  ref: ObjectRef,
  cluster: string,
  message: string | undefined,
): void {
  event('Warning', ALREADY_OWNED, `Not managing ${describe(ref)} in cluster "${cluster}": ${message ?? ''}`);
}
