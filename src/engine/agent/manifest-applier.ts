// Applies one manifest to the member with its update strategy, as OCM's appliers do
// (ocm pkg/work/spoke/apply: update_apply.go, create_only_apply.go, server_side_apply.go, read_only_apply.go).
// Nothing throws out of here: every failure becomes the manifest's Applied condition; `transient` tells the
// caller to retry soon (the member did not answer), which marks nothing permanently.

import {
  DEFAULT_FIELD_MANAGER,
  type ManifestWorkExecutor,
  OBJECT_HASH_ANNOTATION,
  WorkReason,
} from '../../api/ocm/work/v1/index.ts';
import {
  ApiError,
  errorMessage,
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeObject,
  TransportError,
} from '../../kube/client/index.ts';
import { MANAGED_LABEL } from '../../propagation/constants.ts';
import { timedDispatch } from '../../runtime/metrics.ts';
import { describeOwnerId, OWNER_ANNOTATION } from '../ownership.ts';
import { holdsManifest } from './drift.ts';
import { checkExecutor, executorVerbs } from './executor.ts';
import { ssaBody } from './ignore-fields.ts';
import { objectHash, withObjectHash } from './object-hash.ts';
import { isOwnedBy, type OwnerReference, withOwner, withoutOwner } from './owner-refs.ts';
import { resourceTypeOf } from './resolver.ts';
import type { ApplyResult, ManifestOptions, ResolvedManifest } from './types.ts';

export interface ManifestApplyContext {
  member: KubeClient;
  /** For the dispatch metrics. */
  cluster: string;
  owner: OwnerReference;
  options: ManifestOptions;
  executor?: ManifestWorkExecutor;
  /** The work deletes the resource with itself (not orphaned): the executor then needs `delete` too. */
  ownedByTheWork?: boolean;
}

export type ManifestApplyResult = ApplyResult & {
  /** The member did not answer or answered 5xx/429: try again soon. */
  transient?: boolean;
};

const APPLIED_MESSAGE = 'Apply manifest complete';

export async function applyManifest(
  ctx: ManifestApplyContext,
  r: ResolvedManifest,
): Promise<ManifestApplyResult> {
  if (!r.kind || !r.version) return failed('the manifest has no apiVersion or kind');
  if (!r.name) return failed('the manifest has no metadata.name');
  if (!r.resource) {
    return failed(`no matches for kind "${r.kind}" in version "${r.group ? `${r.group}/` : ''}${r.version}"`);
  }
  const strategy = ctx.options.updateStrategy.type ?? 'Update';
  try {
    const denied = await checkExecutor(
      ctx.member,
      ctx.executor,
      { group: r.group, version: r.version, resource: r.resource, namespace: r.namespace, name: r.name },
      strategy === 'ReadOnly' ? ['get'] : executorVerbs(r, ctx.ownedByTheWork ?? true),
    );
    if (denied) return failed(denied);
    const live = await getLive(ctx.member, r);
    if (strategy === 'ReadOnly') {
      return live
        ? {
            applied: true,
            reason: WorkReason.AppliedManifestComplete,
            message: APPLIED_MESSAGE,
            live,
            written: false,
          }
        : failed(`${r.resource} "${r.name}" not found`);
    }
    const foreign = live ? managedElsewhere(live, r.manifest) : undefined;
    if (foreign) return failed(foreign, live);
    switch (strategy) {
      case 'CreateOnly':
        return await createOnly(ctx, r, live);
      case 'ServerSideApply':
        return await serverSideApply(ctx, r, live);
      default:
        return await update(ctx, r, live);
    }
  } catch (e) {
    return { ...failed(errorMessage(e)), transient: isTransient(e) };
  }
}

/**
 * The two-front-ends rule: an object kubefed-ts propagates from a Federated<Kind> or a policy (the managed
 * label) is that owner's, unless the manifest names that same owner in its owner annotation.
 */
export function managedElsewhere(live: KubeObject, manifest: KubeObject): string | undefined {
  if (live.metadata.labels?.[MANAGED_LABEL] !== 'true') return undefined;
  const holder = live.metadata.annotations?.[OWNER_ANNOTATION];
  // A manifest without the annotation claims nothing: a Federated<Kind> object (no annotation) stays its own.
  if (holder !== undefined && holder === manifest.metadata?.annotations?.[OWNER_ANNOTATION]) return undefined;
  return `the object is managed by ${describeOwnerId(holder)}`;
}

async function getLive(member: KubeClient, r: ResolvedManifest): Promise<KubeObject | undefined> {
  try {
    return await member.get(resourceTypeOf(r), r.name, r.namespaced ? r.namespace : undefined);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * Whether the AppliedManifestWork owns the object: not when the delete option orphans it. OCM's
 * manageOwnerRef then applies the owner with a `-` suffixed UID, which removes it, so an orphaned resource
 * carries no ownerRef a garbage collector or an eviction could follow.
 */
function owns(ctx: ManifestApplyContext): boolean {
  return ctx.ownedByTheWork ?? true;
}

/** The live object's ownerRefs with ours added, or removed when the work does not own it. */
function ownerRefsFor(
  ctx: ManifestApplyContext,
  live: KubeObject,
): KubeObject['metadata']['ownerReferences'] {
  // [] rather than undefined: a merge patch must say "none" to remove the last one.
  return (
    (owns(ctx) ? withOwner(live, ctx.owner) : withoutOwner(live, ctx.owner.uid)).metadata.ownerReferences ??
    []
  );
}

/** The manifest as it is written: a copy with our ownerRef only (OCM sets the owner list to [owner]). */
function required(ctx: ManifestApplyContext, r: ResolvedManifest): KubeObject {
  const copy = structuredClone(r.manifest) as KubeObject;
  copy.metadata = { ...(copy.metadata ?? {}), ownerReferences: owns(ctx) ? [ctx.owner] : [] };
  if (!r.namespaced) delete copy.metadata.namespace;
  return copy;
}

/**
 * ocm update_apply.go: create when missing; otherwise skip when the object-hash annotation matches and the
 * member object still holds the manifest (no write, so no generation bump), else update with the existing labels, annotations and ownerRefs merged under ours
 * and the existing finalizers kept.
 */
async function update(
  ctx: ManifestApplyContext,
  r: ResolvedManifest,
  live: KubeObject | undefined,
): Promise<ManifestApplyResult> {
  // The hash of the manifest with our ownerRef, as OCM computes it (hashOfResourceStruct of `required`).
  const base = required(ctx, r);
  const want = withObjectHash(base, objectHash(base));
  const type = resourceTypeOf(r);
  if (!live) {
    const created = await timedDispatch(
      'create',
      ctx.cluster,
      ctx.member.create(type, want, { fieldManager: DEFAULT_FIELD_MANAGER }),
    );
    return done(created, true);
  }
  const hash = want.metadata.annotations?.[OBJECT_HASH_ANNOTATION];
  if (
    hash !== undefined &&
    live.metadata.annotations?.[OBJECT_HASH_ANNOTATION] === hash &&
    isOwnedBy(live, ctx.owner.uid) === owns(ctx) &&
    // kubefed-ts corrects in-place edits too (drift.ts); OCM keeps them while the hash matches.
    holdsManifest(r.manifest, live)
  ) {
    return done(live, false);
  }
  const merged: KubeObject = {
    ...want,
    metadata: {
      ...want.metadata,
      labels: { ...(live.metadata.labels ?? {}), ...(want.metadata.labels ?? {}) },
      annotations: { ...(live.metadata.annotations ?? {}), ...(want.metadata.annotations ?? {}) },
      ownerReferences: ownerRefsFor(ctx, live),
      finalizers: live.metadata.finalizers,
      resourceVersion: live.metadata.resourceVersion,
    },
  };
  const updated = await timedDispatch(
    'update',
    ctx.cluster,
    ctx.member.update(type, merged, { fieldManager: DEFAULT_FIELD_MANAGER }),
  );
  return done(updated, true);
}

/** ocm create_only_apply.go: create when missing, never update; only our ownerRef is added. */
async function createOnly(
  ctx: ManifestApplyContext,
  r: ResolvedManifest,
  live: KubeObject | undefined,
): Promise<ManifestApplyResult> {
  const type = resourceTypeOf(r);
  if (!live) {
    const created = await timedDispatch(
      'create',
      ctx.cluster,
      ctx.member.create(type, required(ctx, r), { fieldManager: DEFAULT_FIELD_MANAGER }),
    );
    return done(created, true);
  }
  return addOwner(ctx, r, live);
}

/** Adds our ownerRef to an object the strategy does not otherwise write (removes it when orphaned). */
async function addOwner(
  ctx: ManifestApplyContext,
  r: ResolvedManifest,
  live: KubeObject,
): Promise<ManifestApplyResult> {
  const type = resourceTypeOf(r);
  if (isOwnedBy(live, ctx.owner.uid) === owns(ctx)) return done(live, false);
  const patched = await timedDispatch(
    'update',
    ctx.cluster,
    ctx.member.patch(
      type,
      r.name,
      {
        metadata: {
          ownerReferences: ownerRefsFor(ctx, live),
          resourceVersion: live.metadata.resourceVersion,
        },
      },
      { namespace: r.namespaced ? r.namespace : undefined, patchType: 'merge' },
    ),
  );
  return done(patched, true);
}

/**
 * ocm server_side_apply.go: an apply patch with the field manager (default work-agent) and force as
 * configured; a conflict with another manager is the manifest's Applied=False, not an error to retry.
 */
async function serverSideApply(
  ctx: ManifestApplyContext,
  r: ResolvedManifest,
  live: KubeObject | undefined,
): Promise<ManifestApplyResult> {
  const ssa = ctx.options.updateStrategy.serverSideApply;
  const desired = required(ctx, r);
  const shaped = ssaBody(desired, live, ssa?.ignoreFields ?? []);
  if ('error' in shaped) {
    return {
      applied: false,
      reason: WorkReason.AppliedManifestSSAIgnoreFieldError,
      message: shaped.error,
      live,
      written: false,
    };
  }
  // OnSpokeChange: the manifest is as last applied, so the member's changes stay; only our ownerRef is added.
  if (shaped.skip && live) return addOwner(ctx, r, live);
  try {
    const applied = await timedDispatch(
      'update',
      ctx.cluster,
      ctx.member.patch(resourceTypeOf(r), r.name, shaped.body, {
        namespace: r.namespaced ? r.namespace : undefined,
        patchType: 'apply',
        fieldManager: ssa?.fieldManager || DEFAULT_FIELD_MANAGER,
        force: ssa?.force ?? false,
      }),
    );
    return done(applied, applied.metadata.resourceVersion !== live?.metadata.resourceVersion);
  } catch (e) {
    if (isConflict(e)) return failed(errorMessage(e), live);
    throw e;
  }
}

function done(live: KubeObject, written: boolean): ManifestApplyResult {
  return {
    applied: true,
    reason: WorkReason.AppliedManifestComplete,
    message: APPLIED_MESSAGE,
    live,
    written,
  };
}

function failed(message: string, live?: KubeObject): ManifestApplyResult {
  return {
    applied: false,
    reason: WorkReason.AppliedManifestFailed,
    message: `Failed to apply manifest: ${message}`,
    live,
    written: false,
  };
}

/** No answer, or one that says "later": the same apply may well work on the next try. */
export function isTransient(e: unknown): boolean {
  if (e instanceof TransportError) return true;
  return e instanceof ApiError && (e.statusCode >= 500 || e.statusCode === 429 || isConflict(e));
}
