// When an AppliedManifestWork outlives its ManifestWork: the hub lost the work (or this agent now talks to
// another hub), so the resources it applied are evicted after a grace period, unless the work comes back
// (ocm pkg/work/spoke/controllers/appliedmanifestcontroller/unmanaged_appliedwork_controller.go).

import type { AppliedManifestWork } from '../../api/ocm/work/v1/index.ts';

export type EvictionDecision =
  /** Another agent's AMW: not ours to judge. */
  | { kind: 'ignore' }
  /** The work is there: nothing to evict; `clear` when an eviction had started. */
  | { kind: 'keep'; clear: boolean }
  /** Start the grace period now (write evictionStartTime). */
  | { kind: 'start' }
  /** Within the grace period: look again after `ms`. */
  | { kind: 'wait'; ms: number }
  /** The grace period is over: remove the resources and the AMW. */
  | { kind: 'evict' };

export function evictionDecision(
  amw: AppliedManifestWork,
  opts: { agentId: string; hubHash: string; workExists: boolean; now: number; gracePeriodMs: number },
): EvictionDecision {
  if ((amw.spec?.agentID ?? '') !== opts.agentId) return { kind: 'ignore' };
  const started = amw.status?.evictionStartTime;
  if (amw.spec?.hubHash === opts.hubHash && opts.workExists)
    return { kind: 'keep', clear: started !== undefined };
  if (started === undefined) return { kind: 'start' };
  const left = Date.parse(started) + opts.gracePeriodMs - opts.now;
  return Number.isNaN(left) || left <= 0 ? { kind: 'evict' } : { kind: 'wait', ms: left };
}
