import type { ReplicaSchedulingPreference } from '../../api/scheduling/v1alpha1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';

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

const stamp = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

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
  const prevCond = prev.conditions?.find((c) => c.type === 'Scheduled');
  const status = input.ready ? 'True' : 'False';
  const message = input.ready ? undefined : input.message;
  const transition = !prevCond || prevCond.status !== status || prevCond.reason !== input.reason;
  const condition = {
    type: 'Scheduled',
    status,
    reason: input.reason,
    ...(message ? { message } : {}),
    lastTransitionTime: transition ? stamp(now) : (prevCond?.lastTransitionTime ?? stamp(now)),
  };
  const out: RspStatus = {
    ...prev,
    observedGeneration: rsp.metadata.generation ?? 0,
    conditions: [condition],
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
    out.scheduledAt = planChanged || !prev.scheduledAt ? stamp(now) : prev.scheduledAt;
  }
  return out;
}

/** Whether writing `next` changes anything a user can see (timestamps alone never trigger a write). */
export function rspStatusChanged(prev: RspStatus | undefined, next: RspStatus): boolean {
  // Key order differs between what the API server returns (sorted) and what we build: compare canonically.
  return !jsonEqual(prev ?? {}, next);
}
