// The deletion of a federated object as pure decisions: KubeFed's pkg/controller/sync/controller.go
// (ensureDeletion, deleteFromClusters, removeManagedLabel) waits for every placement cluster forever;
// kubefed-ts bounds the wait for members that cannot be read and leaves members that are not ready a
// recorded deletion instead (src/sources/federated/pending-deletion). The shell in sync-controller.ts only
// carries these out.

import type { DeletionOutcome } from '../../engine/dispatcher.ts';

/** KubeFed rechecks a deletion that waits for members every 10 s. */
export const DELETION_RECHECK_MS = 10_000;

export interface DeletionTiming {
  /** How long the object has been deleting. */
  waitedMs: number;
  /** The bound has passed: members that still cannot be read are given up on. */
  abandon: boolean;
  /** When to look again while waiting: every 10 s, but no later than the bound (and no sooner than 1 s). */
  recheckMs: number;
}

export function deletionTiming(
  deletionTimestamp: string | undefined,
  nowMs: number,
  boundMs: number,
): DeletionTiming {
  const deletedAt = Date.parse(deletionTimestamp ?? '');
  const waitedMs = Number.isFinite(deletedAt) ? nowMs - deletedAt : 0;
  return {
    waitedMs,
    abandon: waitedMs >= boundMs,
    recheckMs: Math.max(1000, Math.min(DELETION_RECHECK_MS, boundMs - waitedMs)),
  };
}

export type AfterMembers =
  /** A ready member refused: retried with backoff (the bound is for members that are gone, not these). */
  | { kind: 'retry'; message: string }
  /** Members that cannot be read yet: look again no later than the bound. */
  | { kind: 'wait'; ms: number; waiting: string[] }
  /** Deletions issued or in progress: look again in 10 s, saying which clusters still hold copies. */
  | { kind: 'waitForRemoval'; ms: number; message: string }
  /** Nothing left in the caches: check with live reads (deletion), or release the object (orphaning). */
  | { kind: 'verify' }
  | { kind: 'release' };

/** After deleting from (or unlabelling in) the members. */
export function afterMembers(
  outcome: DeletionOutcome,
  timing: DeletionTiming,
  orphan: boolean,
): AfterMembers {
  if (outcome.errors.length > 0) {
    return { kind: 'retry', message: `deleting from members failed: ${outcome.errors.join('; ')}` };
  }
  if (outcome.waiting.length > 0) return { kind: 'wait', ms: timing.recheckMs, waiting: outcome.waiting };
  if (outcome.remaining.length > 0) {
    return {
      kind: 'waitForRemoval',
      ms: DELETION_RECHECK_MS,
      message: `Waiting for managed resources to be removed from the following clusters: ${outcome.remaining.join(', ')}`,
    };
  }
  return orphan ? { kind: 'release' } : { kind: 'verify' };
}

export type AfterVerify =
  /** A ready member still holds a copy (or could not be read): look again. */
  | { kind: 'wait'; ms: number }
  /** Record a pending deletion for each of `owed` (not ready now), then release the object. */
  | { kind: 'record'; owed: string[] };

/**
 * After the live check: clusters still holding a copy that are not ready (any more) owe a deletion, recorded
 * with the deferred ones; one that is ready and still holds it is waited for.
 */
export function afterVerify(
  left: readonly string[],
  isReady: (cluster: string) => boolean,
  outcome: Pick<DeletionOutcome, 'deferred' | 'abandoned'>,
  timing: DeletionTiming,
): AfterVerify {
  const gone = left.filter((c) => !isReady(c));
  if (left.length > gone.length) return { kind: 'wait', ms: timing.recheckMs };
  const deferred = [...new Set([...outcome.deferred, ...gone])];
  return { kind: 'record', owed: [...deferred, ...outcome.abandoned.filter((c) => !deferred.includes(c))] };
}

/** What the release says about members that still owe a deletion, as events. */
export interface ReleaseEvent {
  type: 'Warning';
  reason: 'DeletionPending' | 'DeletionAbandoned';
  message: string;
}

export function releaseEvents(input: {
  /** Not-ready clusters whose deletion was recorded, with the record's name. */
  deferred: ReadonlyMap<string, string>;
  /** Clusters given up on after the bound (whether or not a record was written for them). */
  abandoned: readonly string[];
  /** Cluster → record name, for every record written. */
  records: ReadonlyMap<string, string>;
  kubefedNamespace: string;
  waitedMs: number;
}): ReleaseEvent[] {
  const events: ReleaseEvent[] = [];
  for (const [cluster, record] of [...input.deferred].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    events.push({
      type: 'Warning',
      reason: 'DeletionPending',
      message:
        `Cluster "${cluster}" is not ready: deleting its copy is pending (ConfigMap ` +
        `${input.kubefedNamespace}/${record}) and is carried out when it is ready again`,
    });
  }
  if (input.abandoned.length > 0) {
    const owed = [...input.abandoned].sort();
    events.push({
      type: 'Warning',
      reason: 'DeletionAbandoned',
      message:
        `Released after waiting ${Math.round(input.waitedMs / 1000)}s for clusters that cannot be read: ` +
        `${owed.join(', ')}; ` +
        (owed.every((c) => input.records.has(c))
          ? 'deleting their copies is pending and is carried out once they can be read'
          : 'they may still hold a copy of the object'),
    });
  }
  return events;
}
