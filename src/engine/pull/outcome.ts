// A Pull cluster's answer, read from the status its agent wrote on the ManifestWork (pure): per object, the
// engine's ObjectOutcome with KubeFed's status vocabulary, so that every source's status (KubeFed's
// status.clusters, a binding's aggregatedStatus, workload health) reads a Pull cluster as it reads a Push one.

import { createHash } from 'node:crypto';
import {
  type FeedbackValue,
  type ManifestCondition,
  type ManifestWork,
  WorkCondition,
} from '../../api/ocm/work/v1/index.ts';
import type { MetaCondition } from '../../api/policy/v1alpha1/propagationpolicy.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { ClusterStatus } from '../../propagation/constants.ts';
import { canonicalJson, isPlainObject } from '../../propagation/json.ts';
import { ALREADY_OWNED } from '../ownership.ts';
import type { ClusterOutcome, ObjectOutcome, ObjectRef } from '../work.ts';
import { GENERATION_FEEDBACK, manifestIndex, STATUS_FEEDBACK } from './manifest-work.ts';

/**
 * The member status of an object handed to a Pull cluster's agent that the agent has not reported yet (or
 * not for the work's current generation). A kubefed-ts status, like AlreadyOwned: not retried with backoff,
 * the agent's report requeues the owner.
 */
export const WAITING_FOR_AGENT = 'WaitingForAgent';

export interface PullCluster {
  name: string;
  /** The KubeFedCluster's Ready condition, which the agent's lease keeps. */
  ready: boolean;
}

/** The outcome in one Pull cluster of the objects `refs` that the work `mw` holds (undefined: not there yet). */
export function outcomeFromManifestWork(
  mw: ManifestWork | undefined,
  refs: readonly ObjectRef[],
  cluster: PullCluster,
): ClusterOutcome {
  if (!cluster.ready) return { selected: true, status: ClusterStatus.ClusterNotReady, objects: [] };
  const waiting = waitingReason(mw, cluster.name);
  const objects: ObjectOutcome[] = [];
  for (const ref of refs) {
    if (waiting !== undefined || !mw) {
      objects.push({ ref, status: WAITING_FOR_AGENT, message: waiting });
      continue;
    }
    const ordinal = manifestIndex(mw, ref);
    if (ordinal < 0) continue;
    const mc = mw.status?.resourceStatus?.manifests?.find((m) => m.resourceMeta.ordinal === ordinal);
    objects.push(objectOutcome(ref, mw, ordinal, mc, cluster.name));
  }
  return { selected: true, objects };
}

/** Why nothing the work says can be trusted yet, or undefined. */
function waitingReason(mw: ManifestWork | undefined, cluster: string): string | undefined {
  if (!mw) return `the agent of cluster "${cluster}" has not been handed the ManifestWork yet`;
  const id = `ManifestWork "${mw.metadata.namespace ?? ''}/${mw.metadata.name ?? ''}"`;
  if (mw.metadata.deletionTimestamp) return `the previous ${id} is being deleted by the agent`;
  const applied = condition(mw.status?.conditions, WorkCondition.Applied);
  if (!applied) return `the agent of cluster "${cluster}" has not reported ${id} yet`;
  const generation = mw.metadata.generation;
  if (
    applied.observedGeneration !== undefined &&
    generation !== undefined &&
    applied.observedGeneration < generation
  ) {
    return `the agent of cluster "${cluster}" has not reported generation ${generation} of ${id} yet`;
  }
  return undefined;
}

function objectOutcome(
  ref: ObjectRef,
  mw: ManifestWork,
  ordinal: number,
  mc: ManifestCondition | undefined,
  cluster: string,
): ObjectOutcome {
  const applied = condition(mc?.conditions, WorkCondition.Applied);
  if (!applied || applied.status === 'Unknown') {
    return {
      ref,
      status: WAITING_FOR_AGENT,
      message: `the agent of cluster "${cluster}" has not applied this manifest yet`,
    };
  }
  const manifest = mw.spec.workload?.manifests?.[ordinal] as KubeObject;
  if (applied.status === 'True') {
    return {
      ref,
      status: '',
      object: memberObject(manifest, mc?.statusFeedback?.values ?? []),
      version: manifestVersion(manifest),
    };
  }
  const message = applied.message ?? '';
  if (
    applied.reason === ALREADY_OWNED ||
    message.includes(ALREADY_OWNED) ||
    message.includes('is managed by')
  ) {
    return { ref, status: ALREADY_OWNED, message };
  }
  // The agent says only that the apply failed: whether the object exists tells a create from an update.
  const exists = condition(mc?.conditions, WorkCondition.Available)?.status === 'True';
  return { ref, status: exists ? ClusterStatus.UpdateFailed : ClusterStatus.CreationFailed, message };
}

/** The member object as the hub can know it: the manifest applied, with the status the agent fed back. */
export function memberObject(manifest: KubeObject, values: readonly FeedbackValue[]): KubeObject {
  const obj = structuredClone(manifest);
  const status = values.find((v) => v.name === STATUS_FEEDBACK)?.fieldValue;
  if (status?.type === 'JsonRaw' && status.jsonRaw !== undefined) {
    try {
      const parsed: unknown = JSON.parse(status.jsonRaw);
      if (isPlainObject(parsed)) obj.status = parsed;
    } catch {
      // A truncated or malformed value says nothing: the status stays unknown.
    }
  }
  const generation = values.find((v) => v.name === GENERATION_FEEDBACK)?.fieldValue;
  if (generation?.type === 'Integer' && typeof generation.integer === 'number') {
    obj.metadata = { ...obj.metadata, generation: generation.integer };
  }
  return obj;
}

/** A version of what was applied (PropagatedVersions): it changes only when the manifest does. */
export function manifestVersion(manifest: KubeObject): string {
  return `pull:${createHash('sha256').update(canonicalJson(manifest)).digest('hex').slice(0, 16)}`;
}

function condition(
  conditions: readonly MetaCondition[] | undefined,
  type: string,
): MetaCondition | undefined {
  return conditions?.find((c) => c.type === type);
}
