// Dividing a workload's replicas by the room each cluster has (Karmada's dynamicWeight: AvailableReplicas
// and Aggregated, karmada pkg/scheduler/core/division_algorithm.go and assignment.go), with KubeFed's
// replica planner (src/scheduling/planner.ts, the one ReplicaSchedulingPreference uses) so that scaling
// keeps existing replicas where they are unless the binding is rescheduled afresh. Pure.

import { type ClusterPreferences, plan } from '../../scheduling/planner.ts';

/** A cluster that may take replicas: its room is its estimated free replicas plus what it already has. */
export interface RoomCandidate {
  name: string;
  /** Replicas of this workload the cluster can hold in all (available + previous). */
  room: number;
  /** Replicas this binding has there now (0 when not scheduled there). */
  previous: number;
}

export type Division = { ok: true; replicas: Map<string, number> } | { ok: false; message: string };

/** karmada division_algorithm.go: the candidates together cannot hold the replicas. */
export function notEnoughMessage(total: number): string {
  return `Clusters available replicas ${total} are not enough to schedule.`;
}

/**
 * Divides `replicas` in proportion to each candidate's room, never above it. Without `fresh` the
 * replicas a cluster already has are kept (KubeFed's rebalance off): a scale up adds, a scale down
 * removes, both by room; `fresh` divides from scratch. `seeds` get at least one replica each (the
 * planner's minReplicas), so that spread constraints survive the division. Fails when the rooms add up
 * to less than replicas.
 */
export function divideByRoom(
  replicas: number,
  candidates: readonly RoomCandidate[],
  opts: { fresh: boolean; key: string; seeds?: ReadonlySet<string> },
): Division {
  const total = candidates.reduce((sum, c) => sum + Math.max(0, c.room), 0);
  if (total < replicas) return { ok: false, message: notEnoughMessage(total) };
  const preferences: Record<string, ClusterPreferences> = {};
  const capacity: Record<string, number> = {};
  const current: Record<string, number> = {};
  for (const c of candidates) {
    const room = Math.max(0, c.room);
    preferences[c.name] = { minReplicas: opts.seeds?.has(c.name) ? 1 : 0, weight: room };
    capacity[c.name] = room;
    if (c.previous > 0) current[c.name] = c.previous;
  }
  const result = plan({
    preferences,
    totalReplicas: replicas,
    rebalance: opts.fresh,
    clusters: candidates.map((c) => c.name),
    current,
    capacity,
    key: opts.key,
  });
  const out = new Map<string, number>();
  let placed = 0;
  for (const c of candidates) {
    const n = result.plan[c.name] ?? 0;
    placed += n;
    if (n > 0) out.set(c.name, n);
  }
  // Weights equal to capacities always place everything that fits; guard the invariant all the same.
  if (placed !== replicas) return { ok: false, message: notEnoughMessage(total) };
  return { ok: true, replicas: out };
}

/**
 * Aggregated: as few clusters as their room allows. Without `fresh` the clusters already holding replicas
 * all stay (so a steady workload never moves, and a scale up fills them first); then the roomiest, then
 * by name, until the room suffices. The chosen clusters are divided like dynamic weights.
 */
export function aggregateByRoom(
  replicas: number,
  candidates: readonly RoomCandidate[],
  opts: { fresh: boolean; key: string },
): Division {
  const holding = (c: RoomCandidate) => !opts.fresh && c.previous > 0;
  const order = [...candidates].sort(
    (a, b) =>
      Number(holding(b)) - Number(holding(a)) ||
      b.room - a.room ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const chosen: RoomCandidate[] = [];
  let room = 0;
  for (const c of order) {
    if (room >= replicas && chosen.length > 0 && !holding(c)) break;
    if (c.room <= 0) continue;
    chosen.push(c);
    room += c.room;
  }
  if (room < replicas) return { ok: false, message: notEnoughMessage(room) };
  return divideByRoom(replicas, chosen, opts);
}
