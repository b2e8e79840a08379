// kubefed-ts extension: a roll-up of the member workloads' status into the federated object's
// status (KubeFed only ever offered raw per-cluster remoteStatus; aggregation was its most
// requested missing feature).

import type { KubeObject } from '../kube/client/index.ts';
import { isPlainObject, type JsonObject } from './json.ts';

export interface WorkloadAggregate {
  /** Selected clusters (ready or not). */
  clusters: number;
  /** Clusters whose workload is healthy by the per-kind rule. */
  healthyClusters: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  active?: number;
  succeeded?: number;
  failed?: number;
}

export const WORKLOAD_KINDS: readonly string[] = [
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
];

export function isWorkloadKind(kind: string | undefined): boolean {
  return kind !== undefined && WORKLOAD_KINDS.includes(kind);
}

/** A non-negative count from a status field; anything else counts as 0. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function field(obj: KubeObject, name: 'spec' | 'status'): JsonObject {
  const value = obj[name];
  return isPlainObject(value) ? value : {};
}

/** The member controller has seen the latest spec (checked only when both numbers are present). */
function observedLatest(obj: KubeObject, status: JsonObject): boolean {
  const generation = isPlainObject(obj.metadata) ? obj.metadata.generation : undefined;
  const observed = status.observedGeneration;
  if (typeof generation !== 'number' || typeof observed !== 'number') return true;
  return observed >= generation;
}

interface Totals {
  healthy: number;
  sums: Record<string, number>;
}

function add(totals: Totals, key: string, value: number): void {
  totals.sums[key] = (totals.sums[key] ?? 0) + value;
}

/** Deployment, ReplicaSet, StatefulSet: ready (and for Deployments available and updated) ≥ desired. */
function replicated(kind: string, obj: KubeObject, t: Totals): void {
  const spec = field(obj, 'spec');
  const status = field(obj, 'status');
  // The API server defaults spec.replicas to 1.
  const desired = spec.replicas === undefined || spec.replicas === null ? 1 : count(spec.replicas);
  const ready = count(status.readyReplicas);
  const available = count(status.availableReplicas);
  const updated = count(status.updatedReplicas);
  add(t, 'replicas', desired);
  add(t, 'readyReplicas', ready);
  add(t, 'availableReplicas', available);
  if (kind !== 'ReplicaSet') add(t, 'updatedReplicas', updated);
  let healthy = observedLatest(obj, status) && ready >= desired;
  if (kind === 'Deployment') healthy &&= available >= desired && updated >= desired;
  if (healthy) t.healthy++;
}

/** DaemonSet: every scheduled pod ready and available. */
function daemonSet(obj: KubeObject, t: Totals): void {
  const status = field(obj, 'status');
  const desired = count(status.desiredNumberScheduled);
  const ready = count(status.numberReady);
  const available = count(status.numberAvailable);
  add(t, 'replicas', desired);
  add(t, 'readyReplicas', ready);
  add(t, 'availableReplicas', available);
  add(t, 'updatedReplicas', count(status.updatedNumberScheduled));
  if (observedLatest(obj, status) && ready >= desired && available >= desired) t.healthy++;
}

function hasCondition(status: JsonObject, type: string): boolean {
  const conditions = status.conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isPlainObject(c) && c.type === type && c.status === 'True')
  );
}

/**
 * Job: healthy when it completed (Complete=True), or when it has not failed (no Failed=True) and
 * is making progress (active + succeeded > 0). A job that has not started yet is not healthy.
 */
function job(obj: KubeObject, t: Totals): void {
  const status = field(obj, 'status');
  const active = count(status.active);
  const succeeded = count(status.succeeded);
  add(t, 'active', active);
  add(t, 'succeeded', succeeded);
  add(t, 'failed', count(status.failed));
  const healthy =
    hasCondition(status, 'Complete') || (!hasCondition(status, 'Failed') && active + succeeded > 0);
  if (healthy) t.healthy++;
}

const SUM_KEYS: Record<string, readonly string[]> = {
  Deployment: ['replicas', 'readyReplicas', 'availableReplicas', 'updatedReplicas'],
  ReplicaSet: ['replicas', 'readyReplicas', 'availableReplicas'],
  StatefulSet: ['replicas', 'readyReplicas', 'availableReplicas', 'updatedReplicas'],
  DaemonSet: ['replicas', 'readyReplicas', 'availableReplicas', 'updatedReplicas'],
  Job: ['active', 'succeeded', 'failed'],
};

/**
 * Rolls up the member objects of a workload kind; undefined for other kinds. `members` has one
 * entry per selected cluster; an undefined object (absent, unreachable, not ready) is unhealthy
 * and adds nothing to the sums.
 */
export function aggregateWorkloadStatus(
  kind: string,
  members: ReadonlyMap<string, KubeObject | undefined>,
): WorkloadAggregate | undefined {
  // Checked first: SUM_KEYS is a plain object, so SUM_KEYS['constructor'] exists.
  if (!isWorkloadKind(kind)) return undefined;
  const t: Totals = { healthy: 0, sums: {} };
  for (const key of SUM_KEYS[kind]!) t.sums[key] = 0;
  for (const obj of members.values()) {
    if (obj === undefined) continue;
    if (kind === 'DaemonSet') daemonSet(obj, t);
    else if (kind === 'Job') job(obj, t);
    else replicated(kind, obj, t);
  }
  return { clusters: members.size, healthyClusters: t.healthy, ...t.sums };
}
