// Removes applied resources from the member: deletes them (Background, with a UID precondition, so a
// same-named object made by someone else meanwhile is never touched), or orphans them by dropping this AMW's
// ownerRef; a resource another AppliedManifestWork still owns only loses our ownerRef
// (ocm pkg/work/helper/helpers.go DeleteAppliedResources; the decisions are delete-plan.ts's).

import {
  errorMessage,
  isConflict,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../../kube/client/index.ts';
import { timedDispatch } from '../../runtime/metrics.ts';
import { removal } from './delete-plan.ts';
import { withoutOwner } from './owner-refs.ts';
import type { ManifestResolver } from './resolver.ts';
import type { AppliedResource } from './types.ts';

export interface RemovalContext {
  member: KubeClient;
  cluster: string;
  resolver: ManifestResolver;
  /** The AppliedManifestWork's uid: the ownerRef to drop. */
  ownerUid: string;
}

export interface RemovalOutcome {
  /** Deleted but not gone yet (finalizers): the caller waits for them. */
  pending: AppliedResource[];
  /** Resources that could not be handled this time, with why. */
  failures: Array<{ resource: AppliedResource; message: string }>;
}

export async function removeResources(
  ctx: RemovalContext,
  items: ReadonlyArray<{ resource: AppliedResource; action: 'delete' | 'orphan' }>,
): Promise<RemovalOutcome> {
  const outcome: RemovalOutcome = { pending: [], failures: [] };
  for (const { resource, action } of items) {
    try {
      const left = await removeOne(ctx, resource, action);
      if (left) outcome.pending.push(resource);
    } catch (e) {
      outcome.failures.push({ resource, message: `${describe(resource)}: ${errorMessage(e)}` });
    }
  }
  return outcome;
}

/** True when the resource is still there after a delete (waiting for its finalizers). */
async function removeOne(
  ctx: RemovalContext,
  r: AppliedResource,
  action: 'delete' | 'orphan',
): Promise<boolean> {
  const type = await ctx.resolver.typeOf(r);
  // The member no longer serves the type: nothing of it is left to remove.
  if (!type) return false;
  const namespace = type.namespaced ? r.namespace : undefined;
  let live: KubeObject | undefined;
  try {
    live = await ctx.member.get(type, r.name, namespace);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  const step = removal(live, ctx.ownerUid, action, r.uid);
  if (step === 'gone' || step === 'none' || !live) return false;
  if (step === 'remove-owner') {
    try {
      await timedDispatch(
        'update',
        ctx.cluster,
        ctx.member.patch(
          type,
          r.name,
          {
            metadata: {
              ownerReferences: withoutOwner(live, ctx.ownerUid).metadata.ownerReferences ?? null,
              resourceVersion: live.metadata.resourceVersion,
            },
          },
          { namespace, patchType: 'merge' },
        ),
      );
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
    return false;
  }
  if (live.metadata.deletionTimestamp) return true;
  try {
    await timedDispatch(
      'delete',
      ctx.cluster,
      ctx.member.delete(type, r.name, {
        namespace,
        propagationPolicy: 'Background',
        preconditions: { uid: live.metadata.uid },
      }),
    );
  } catch (e) {
    // Gone meanwhile, or the uid precondition failed (a new object of that name): either way not ours.
    if (isNotFound(e) || isConflict(e)) return false;
    throw e;
  }
  // Deleted: still there only while finalizers run.
  try {
    await ctx.member.get(type, r.name, namespace);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

function describe(r: AppliedResource): string {
  const name = r.namespace ? `${r.namespace}/${r.name}` : r.name;
  return `${r.resource}${r.group ? `.${r.group}` : ''} ${name}`;
}
