// The engine's decisions for one member, as pure functions: what to do about a cluster as a whole, then
// about each object in it, and what to report. KubeFed makes the same decisions inline in
// pkg/controller/sync/controller.go (syncToClusters) and pkg/controller/sync/dispatch/managed.go
// (Create, Update, Delete, RemoveManagedLabel); the applier and dispatcher only carry them out.

import { errorMessage, type KubeObject } from '../kube/client/index.ts';
import { ClusterStatus, MANAGED_LABEL, RENDERING_ANNOTATION } from '../propagation/constants.ts';
import { needsUpdate, objectVersion } from '../propagation/versions.ts';
import { holdsManifest } from './agent/drift.ts';
import { ALREADY_OWNED, describeOwnerId, type Ownership } from './ownership.ts';
import { RenderError, type Rendered } from './work.ts';

/** A member's cache of one type, as the dispatcher finds it. */
export type MemberView =
  | { kind: 'notReady' }
  /** Not loaded yet (or no informer yet): the answer would be incomplete. */
  | { kind: 'loading' }
  /** Cannot be read: `failed` when the cache itself broke (reported even where nothing is selected). */
  | { kind: 'unavailable'; status: string; message: string; failed: boolean }
  | { kind: 'synced' };

export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type ClusterPlan =
  /** Nothing of this owner is or should be there that can be known: say nothing. */
  | { kind: 'skip' }
  | { kind: 'pending' }
  /** Report this for the cluster as a whole and do nothing there. */
  | { kind: 'report'; status: string; message?: string; event?: PlannedEvent }
  /** The cache is loaded: plan each object. */
  | { kind: 'objects' };

export function planCluster(cluster: string, view: MemberView, selected: boolean): ClusterPlan {
  switch (view.kind) {
    case 'notReady':
      return selected
        ? {
            kind: 'report',
            status: ClusterStatus.ClusterNotReady,
            event: {
              type: 'Warning',
              reason: 'ClusterNotReady',
              message: `Cluster "${cluster}" is not ready`,
            },
          }
        : { kind: 'skip' };
    case 'loading':
      return { kind: 'pending' };
    case 'unavailable':
      return selected || view.failed
        ? { kind: 'report', status: view.status, message: view.message }
        : { kind: 'skip' };
    case 'synced':
      return { kind: 'objects' };
  }
}

export interface ObjectPlanInput {
  /** The cached member object, if any. */
  live: KubeObject | undefined;
  /** Who holds `live`, from this owner's point of view. */
  ownership?: Ownership;
  /** Whether (and how) the object is desired in this cluster. */
  desired: { invalid?: { status: string; message: string } } | undefined;
  /** `live` is never deleted, only released (Work.keep). */
  keep: boolean;
}

export type ObjectPlan =
  /** No write. `status` undefined: nothing to report; `object`: the member object to report with it. */
  | { op: 'none'; status?: string; message?: string; object?: KubeObject }
  | { op: 'create'; timedOut: string }
  /** Render against the live object, then write if it differs (planWrite). */
  | { op: 'update'; live: KubeObject; timedOut: string }
  | { op: 'delete'; live: KubeObject; timedOut: string }
  /** Release: remove the managed label, leave the object. */
  | { op: 'unlabel'; live: KubeObject; timedOut: string };

export function planObject({ live, ownership, desired, keep }: ObjectPlanInput): ObjectPlan {
  const foreign = live !== undefined && ownership?.kind === 'other' ? ownership : undefined;
  if (desired === undefined) {
    if (!live || foreign) return { op: 'none' };
    if (live.metadata.deletionTimestamp) return { op: 'none', status: ClusterStatus.WaitingForRemoval };
    return keep
      ? { op: 'unlabel', live, timedOut: ClusterStatus.LabelRemovalTimedOut }
      : { op: 'delete', live, timedOut: ClusterStatus.DeletionTimedOut };
  }
  if (foreign) {
    return { op: 'none', status: ALREADY_OWNED, message: ownedByMessage(foreign.owner) };
  }
  if (desired.invalid) return { op: 'none', ...desired.invalid, object: live };
  if (!live) return { op: 'create', timedOut: ClusterStatus.CreationTimedOut };
  if (live.metadata.labels?.[MANAGED_LABEL] === 'false') {
    return { op: 'none', status: ClusterStatus.ManagedLabelFalse, object: live };
  }
  return { op: 'update', live, timedOut: ClusterStatus.UpdateTimedOut };
}

/** The rendered object, or why it could not be rendered. */
export type RenderResult = { ok: true; rendered: Rendered } | { ok: false; error: unknown };

export function tryRender(render: () => Rendered): RenderResult {
  try {
    return { ok: true, rendered: render() };
  } catch (error) {
    return { ok: false, error };
  }
}

export type WritePlan =
  | { op: 'write'; object: KubeObject }
  /** Up to date: the recorded version still holds. */
  | { op: 'none'; status: ''; object: KubeObject; version: string | undefined }
  | { op: 'fail'; status: string; message: string; event: PlannedEvent };

/**
 * After rendering: write, nothing to do, or the render failed (KubeFed's ObjectForCluster errors). With nothing
 * recorded (after a restart), a managed live copy stamped with `appliedHash` (RENDERING_ANNOTATION) that still
 * holds every field the rendering sets counts as applied at its current version; the version rule then decides
 * as for a recorded one. A released copy (no managed label) being adopted again is never current, whatever its
 * stamp says, or it would stay out of the managed member cache and be POSTed again (409) on every reconcile. An
 * in-memory record always wins.
 */
export function planWrite(
  cluster: string,
  render: RenderResult,
  live: KubeObject | undefined,
  recorded: string | undefined,
  appliedHash?: string,
): WritePlan {
  if (!render.ok) {
    const status =
      render.error instanceof RenderError ? render.error.status : ClusterStatus.ComputeResourceFailed;
    const message = errorMessage(render.error);
    return {
      op: 'fail',
      status,
      message,
      event: { type: 'Warning', reason: status, message: `Cluster "${cluster}": ${message}` },
    };
  }
  const desired = render.rendered.object;
  // The stamp says this rendering was written once, not that the copy still holds it: an edit made while no
  // record was kept (a restart, a pass whose write failed) keeps the annotation, and so does a released copy.
  // So the copy must also still hold every field the rendering sets, its owner marks included.
  const recordedVersion =
    !recorded &&
    live &&
    live.metadata.labels?.[MANAGED_LABEL] === 'true' &&
    appliedHash !== undefined &&
    live.metadata.annotations?.[RENDERING_ANNOTATION] === appliedHash &&
    holdsManifest(desired, live)
      ? objectVersion(live)
      : recorded;
  if (live && !needsUpdate({ recordedVersion, member: live, desired })) {
    return { op: 'none', status: '', object: live, version: recordedVersion };
  }
  return { op: 'write', object: desired };
}

export type ExistingPlan =
  | { op: 'none'; status: string; message?: string; object?: KubeObject }
  /** Take it over: update it instead of creating (KubeFed's adoptResources). */
  | { op: 'adopt'; live: KubeObject };

/** A create found the object already there (the cache had not seen it): adopt it, or say why not. */
export function planExisting(input: {
  existing: KubeObject;
  ownership: Ownership;
  adopt: boolean;
  keep: boolean;
}): ExistingPlan {
  if (input.ownership.kind === 'other') {
    return { op: 'none', status: ALREADY_OWNED, message: ownedByMessage(input.ownership.owner) };
  }
  if (!input.adopt && !input.keep)
    return { op: 'none', status: ClusterStatus.AlreadyExists, object: input.existing };
  return { op: 'adopt', live: input.existing };
}

export function ownedByMessage(owner: string | undefined): string {
  return `the object is managed by ${describeOwnerId(owner)}`;
}
