// KubeFed's replica planner (pkg/controller/util/planner/planner.go), reproduced step by step so that a
// migration from KubeFed gives the same replicas per cluster for the same inputs, tie-break included.
// Pure: no I/O, no clock. The RSP controller and `kubefedctl plan` both call it.

import { hasOwn, setOwn } from '../propagation/json.ts';

/** One cluster's preferences with KubeFed's defaults applied (min 0, weight 0, max unbounded). */
export interface ClusterPreferences {
  minReplicas: number;
  maxReplicas?: number;
  weight: number;
}

export interface PlannerInput {
  /** By cluster name, or `"*"` for every cluster without an entry of its own. */
  preferences: Record<string, ClusterPreferences>;
  totalReplicas: number;
  rebalance: boolean;
  /** The candidate clusters; every one of them appears in the plan. */
  clusters: readonly string[];
  /** Replicas running and ready per cluster (only clusters that have the workload object). */
  current: Readonly<Record<string, number>>;
  /** Estimated capacity per cluster, known only where pods have been unschedulable. */
  capacity: Readonly<Record<string, number>>;
  /** The tie-break key: `namespace/name` of the federated object. */
  key: string;
}

export interface PlanResult {
  /** Replicas per candidate cluster, in the order of `input.clusters`. */
  plan: Record<string, number>;
  /** Replicas that did not fit a cluster's capacity, per cluster (only non-zero entries). */
  overflow: Record<string, number>;
}

/** One row of `explainPlan`: what a cluster got and why. */
export interface PlanExplanation {
  cluster: string;
  weight: number;
  min: number;
  max?: number;
  capacity?: number;
  current?: number;
  planned: number;
  overflow: number;
  reason: string;
}

const FNV32_OFFSET = 2166136261;
const FNV32_PRIME = 16777619;
const utf8 = new TextEncoder();

/** FNV-1 (not 1a), 32 bits, over the UTF-8 bytes of `s`: Go's hash/fnv New32. */
export function fnv1_32(s: string): number {
  let h = FNV32_OFFSET;
  for (const byte of utf8.encode(s)) {
    h = Math.imul(h, FNV32_PRIME) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return h;
}

/** Distributes `input.totalReplicas` over `input.clusters` exactly as KubeFed's Planner.Plan does. */
export function plan(input: PlannerInput): PlanResult {
  return run(input, undefined);
}

/** Runs the planner and explains, per candidate cluster, how it arrived at its number. */
export function explainPlan(input: PlannerInput): PlanExplanation[] {
  const traces = new Map<string, Trace>();
  const result = run(input, traces);
  const rows: PlanExplanation[] = [];
  const seen = new Set<string>();
  for (const cluster of input.clusters) {
    if (seen.has(cluster)) continue;
    seen.add(cluster);
    const pref = preferenceFor(input.preferences, cluster);
    const row: PlanExplanation = {
      cluster,
      weight: pref?.weight ?? 0,
      min: pref?.minReplicas ?? 0,
      ...(pref?.maxReplicas !== undefined ? { max: pref.maxReplicas } : {}),
      ...(hasOwn(input.capacity, cluster) ? { capacity: input.capacity[cluster]! } : {}),
      ...(hasOwn(input.current, cluster) ? { current: input.current[cluster]! } : {}),
      planned: result.plan[cluster] ?? 0,
      overflow: hasOwn(result.overflow, cluster) ? result.overflow[cluster]! : 0,
      reason: '',
    };
    row.reason = pref ? describe(row, pref, traces.get(cluster)!, input.rebalance) : NO_PREFERENCE;
    rows.push(row);
  }
  return rows;
}

const NO_PREFERENCE = 'no preference (no entry, no "*")';

interface Named {
  name: string;
  hash: number;
  pref: ClusterPreferences;
}

/** What happened to one cluster in each phase, for explainPlan. */
interface Trace {
  minAssigned: number;
  afterKeep: number;
  weightedGain: number;
  cappedAtMax: boolean;
  cappedAtCapacity: boolean;
}

function preferenceFor(prefs: Record<string, ClusterPreferences>, cluster: string) {
  if (hasOwn(prefs, cluster)) return prefs[cluster];
  if (hasOwn(prefs, '*')) return prefs['*'];
  return undefined;
}

function lookup(map: Readonly<Record<string, number>>, cluster: string): number | undefined {
  return hasOwn(map, cluster) ? map[cluster] : undefined;
}

/** Go's `(dist*weight + wsum - 1) / wsum` on int64: a ceiling for non-negative inputs, truncating division. */
function ceilShare(dist: number, weight: number, wsum: number): number {
  const numerator = dist * weight + wsum - 1;
  // Float division truncates exactly while the numerator is a safe integer; beyond that, BigInt.
  if (Number.isSafeInteger(dist * weight) && Number.isSafeInteger(numerator)) {
    return Math.trunc(numerator / wsum);
  }
  return Number((BigInt(dist) * BigInt(weight) + BigInt(wsum) - 1n) / BigInt(wsum));
}

function run(input: PlannerInput, traces: Map<string, Trace> | undefined): PlanResult {
  const planned = new Map<string, number>();
  const overflow = new Map<string, number>();
  const get = (c: string) => planned.get(c) ?? 0;

  let prefs: Named[] = [];
  for (const cluster of input.clusters) {
    const pref = preferenceFor(input.preferences, cluster);
    if (!pref) {
      planned.set(cluster, 0);
      continue;
    }
    prefs.push({ name: cluster, hash: fnv1_32(cluster + input.key), pref });
  }
  // Weight descending, then hash ascending: the hash (of cluster name + object key) keeps single
  // replicas from always landing on the alphabetically first cluster.
  prefs.sort((a, b) => b.pref.weight - a.pref.weight || a.hash - b.hash);

  const trace = (c: string): Trace | undefined => {
    if (!traces) return undefined;
    let t = traces.get(c);
    if (!t) {
      t = { minAssigned: 0, afterKeep: 0, weightedGain: 0, cappedAtMax: false, cappedAtCapacity: false };
      traces.set(c, t);
    }
    return t;
  };

  let remaining = input.totalReplicas;

  // 1. Minimums, in sorted order: with too few replicas the first clusters get theirs first.
  for (const p of prefs) {
    let m = Math.min(p.pref.minReplicas, remaining);
    const cap = lookup(input.capacity, p.name);
    if (cap !== undefined) m = Math.min(m, cap);
    remaining -= m;
    planned.set(p.name, m);
    const t = trace(p.name);
    if (t) t.minAssigned = t.afterKeep = m;
  }

  // 2. Without rebalance, replicas already running stay where they are ("preallocated"); the weighted
  //    passes below count them against the cluster's share before adding more.
  const preallocated = new Map<string, number>();
  if (!input.rebalance) {
    for (const p of prefs) {
      const start = get(p.name);
      const count = lookup(input.current, p.name);
      if (count === undefined || count <= start) continue;
      let target = count;
      if (p.pref.maxReplicas !== undefined) target = Math.min(p.pref.maxReplicas, target);
      const cap = lookup(input.capacity, p.name);
      if (cap !== undefined) target = Math.min(cap, target);
      const extra = Math.max(0, Math.min(target - start, remaining));
      remaining -= extra;
      preallocated.set(p.name, extra);
      planned.set(p.name, start + extra);
      const t = trace(p.name);
      if (t) t.afterKeep = start + extra;
    }
  }

  // 3. Weighted distribution, repeated while something changes: each pass shares the replicas left at
  //    its start (rounding up, so earlier clusters get the odd replica); full clusters drop out.
  let modified = true;
  while (modified && remaining > 0) {
    modified = false;
    let wsum = 0;
    for (const p of prefs) wsum += p.pref.weight;
    const next: Named[] = [];
    const dist = remaining;
    for (const p of prefs) {
      if (wsum <= 0) break;
      const start = get(p.name);
      let extra = Math.min(ceilShare(dist, p.pref.weight, wsum), remaining);
      const prealloc = preallocated.get(p.name) ?? 0;
      const used = Math.min(extra, prealloc);
      preallocated.set(p.name, prealloc - used);
      extra -= used;
      if (used > 0) modified = true;

      let total = start + extra;
      let full = false;
      const t = trace(p.name);
      if (p.pref.maxReplicas !== undefined && total > p.pref.maxReplicas) {
        total = p.pref.maxReplicas;
        full = true;
        if (t) t.cappedAtMax = true;
      }
      const cap = lookup(input.capacity, p.name);
      if (cap !== undefined && total > cap) {
        overflow.set(p.name, total - cap);
        total = cap;
        full = true;
        if (t) t.cappedAtCapacity = true;
      }
      if (!full) next.push(p);
      remaining -= total - start;
      planned.set(p.name, total);
      if (total > start) {
        modified = true;
        if (t) t.weightedGain += total - start;
      }
    }
    prefs = next;
  }

  const result: PlanResult = { plan: {}, overflow: {} };
  for (const cluster of input.clusters) setOwn(result.plan, cluster, get(cluster));
  // 4. Without rebalance, overflow is trimmed to the replicas that could not be placed anywhere.
  for (const cluster of input.clusters) {
    if (!overflow.has(cluster) || hasOwn(result.overflow, cluster)) continue;
    const value = input.rebalance ? overflow.get(cluster)! : Math.min(overflow.get(cluster)!, remaining);
    if (value > 0) setOwn(result.overflow, cluster, value);
  }
  return result;
}

function describe(row: PlanExplanation, pref: ClusterPreferences, t: Trace, rebalance: boolean): string {
  const parts: string[] = [];
  if (pref.minReplicas > 0) {
    parts.push(
      t.minAssigned >= pref.minReplicas
        ? `minimum ${pref.minReplicas}`
        : `minimum ${pref.minReplicas} cut to ${t.minAssigned} (${
            row.capacity !== undefined && t.minAssigned === row.capacity ? 'capacity' : 'not enough replicas'
          })`,
    );
  }
  if (!rebalance && t.afterKeep > t.minAssigned && row.current !== undefined) {
    parts.push(
      t.afterKeep >= row.current
        ? `kept current ${row.current} (rebalance off)`
        : `kept ${t.afterKeep} of current ${row.current} (rebalance off)`,
    );
  }
  if (t.weightedGain > 0) parts.push('weighted share');
  if (t.cappedAtMax) parts.push(`capped at max ${pref.maxReplicas}`);
  else if (pref.maxReplicas !== undefined && row.planned > 0 && row.planned === pref.maxReplicas)
    parts.push(`at max ${pref.maxReplicas}`);
  if (t.cappedAtCapacity) parts.push(`capacity ${row.capacity} (unschedulable pods)`);
  if (parts.length > 0) return parts.join(', ');
  if (pref.weight === 0) return 'weight 0';
  return 'no replicas left';
}
