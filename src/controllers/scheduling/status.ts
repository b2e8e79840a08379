import type { ReplicaSchedulingPreference } from '../../api/scheduling/v1alpha1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { conditionTimestamp, setCondition } from '../../util/conditions.ts';

type RspStatus = NonNullable<ReplicaSchedulingPreference['status']>;

/** What one reconcile of an RSP concluded. */
export type RspStatusInput =
  | { ready: false; reason: string; message: string }
  | {
      ready: true;
      reason: 'Scheduled';
      result: Record<string, number>;
      overflow: Record<string, number>;
      candidates: string[];
    };

function sortedRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The RSP status kubefed-ts writes (KubeFed left it empty): what was planned, when, for which clusters, and
 * a `Scheduled` condition that says why not when scheduling could not happen. A failed reconcile keeps the
 * last plan so users still see what is in effect.
 */
export function buildRspStatus(
  rsp: ReplicaSchedulingPreference & KubeObject,
  input: RspStatusInput,
  now: Date,
): RspStatus {
  const prev = rsp.status ?? {};
  const conditions = setCondition(
    prev.conditions,
    input.ready
      ? { type: 'Scheduled', status: 'True', reason: input.reason }
      : { type: 'Scheduled', status: 'False', reason: input.reason, message: input.message },
    now,
  );
  const out: RspStatus = {
    ...prev,
    observedGeneration: rsp.metadata.generation ?? 0,
    conditions,
  };
  if (input.ready) {
    const replicas = sortedRecord(input.result);
    const overflow = sortedRecord(input.overflow);
    const planChanged =
      !jsonEqual(prev.replicas ?? {}, replicas) ||
      !jsonEqual(prev.clusters ?? [], [...input.candidates].sort());
    out.clusters = [...input.candidates].sort();
    out.replicas = replicas;
    if (Object.keys(overflow).length > 0) out.overflow = overflow;
    else delete out.overflow;
    out.totalScheduled = Object.values(replicas).reduce((a, b) => a + b, 0);
    out.scheduledAt = planChanged || !prev.scheduledAt ? conditionTimestamp(now) : prev.scheduledAt;
  }
  return out;
}

/** Whether writing `next` changes anything a user can see (timestamps alone never trigger a write). */
export function rspStatusChanged(prev: RspStatus | undefined, next: RspStatus): boolean {
  // Key order differs between what the API server returns (sorted) and what we build: compare canonically.
  return !jsonEqual(prev ?? {}, next);
}
