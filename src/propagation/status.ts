// The federated object's status after a reconcile: observedGeneration, the Propagation condition
// and the per-cluster list (KubeFed pkg/controller/sync/status/status.go).

import { AggregateReason } from './constants.ts';
import { compareCodePoints, deepCopy, isPlainObject, type JsonObject, jsonEqual } from './json.ts';
import type { PropagatedVersionStatus } from './versions.ts';
import type { WorkloadAggregate } from './workload-aggregate.ts';

export interface ClusterStatusEntry {
  name: string;
  /** Absent means OK. */
  status?: string;
  /** kubefed-ts: why a cluster failed (e.g. the API server's message), absent when OK. */
  message?: string;
  remoteStatus?: unknown;
}

export interface PropagationCondition {
  type: 'Propagation';
  status: 'True' | 'False';
  reason?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface FederatedStatus {
  observedGeneration?: number;
  conditions?: PropagationCondition[];
  clusters?: ClusterStatusEntry[];
  /** kubefed-ts extension: roll-up of the member workloads. */
  aggregate?: WorkloadAggregate;
  /**
   * kubefed-ts extension: the member versions last propagated, in the shape of a PropagatedVersion's status
   * (KubeFed keeps them in that separate object; here it costs no write of its own).
   */
  propagatedVersion?: PropagatedVersionStatus;
  [k: string]: unknown;
}

export interface ComputeFederatedStatusInput {
  current: FederatedStatus | undefined;
  /** metadata.generation of the federated object as seen in this reconcile. */
  generation: number;
  /** Aggregate reason; '' is success. */
  reason: string;
  /** Every cluster that gets an entry; '' is OK. */
  clusterStatuses: ReadonlyMap<string, string>;
  /** Why a cluster's status is not OK, where known; only written next to a non-empty status. */
  clusterMessages?: ReadonlyMap<string, string>;
  /** Collected member `.status` per cluster; undefined when collection is off. */
  remoteStatuses: ReadonlyMap<string, unknown> | undefined;
  /**
   * Whether remote-status collection is on; defaults to `remoteStatuses !== undefined`. Separate
   * only so KubeFed's own test table (a map passed with collection off) can be ported.
   */
  remoteStatusCollection?: boolean;
  /** Some member object was created or updated in this reconcile. */
  resourcesUpdated: boolean;
  aggregate?: WorkloadAggregate;
  /** The member versions recorded this round, to keep in `status.propagatedVersion`; absent leaves it as is. */
  propagatedVersion?: PropagatedVersionStatus;
  /**
   * Members were written since the recorded versions were last saved (defaults to `resourcesUpdated`): only
   * then does a `propagatedVersion` change alone need a write. Otherwise it rides along with another change,
   * so versions merely seeded (from a PropagatedVersion) or unchanged cost no write.
   */
  versionsUnsaved?: boolean;
  /**
   * Versions are kept in PropagatedVersions (`--propagated-versions=true`): a `status.propagatedVersion` left
   * by a run in the default mode goes stale as members are written, and is dropped with the next status write
   * (never a write of its own), so that switching back does not seed from it.
   */
  dropPropagatedVersion?: boolean;
  now: Date;
}

/** RFC 3339 in UTC with second precision, like Go's time.RFC3339 of a UTC time. */
export function rfc3339Seconds(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

// Remote statuses are compared the way they will read back from the API server.
function normalizeRemote(value: unknown): unknown {
  const json = JSON.stringify(value);
  return json === undefined ? undefined : JSON.parse(json);
}

/**
 * The status to write. Unknown fields of the current status are kept; the clusters list is
 * rebuilt (sorted by name) only when its content differs. `changed` is true iff the result differs
 * from `current`, i.e. iff an UpdateStatus is needed.
 */
export function computeFederatedStatus(input: ComputeFederatedStatusInput): {
  status: FederatedStatus;
  changed: boolean;
} {
  const current: FederatedStatus = isPlainObject(input.current) ? input.current : {};
  const status: FederatedStatus = deepCopy(current);
  const collection = input.remoteStatusCollection ?? input.remoteStatuses !== undefined;
  const remote = new Map<string, unknown>();
  for (const [name, value] of input.remoteStatuses ?? []) {
    const normalized = value === null ? undefined : normalizeRemote(value);
    if (normalized !== undefined && normalized !== null) remote.set(name, normalized);
  }
  const now = rfc3339Seconds(input.now);

  const observed = typeof current.observedGeneration === 'number' ? current.observedGeneration : 0;
  if (observed !== input.generation) {
    if (input.generation === 0) delete status.observedGeneration;
    else status.observedGeneration = input.generation;
  }

  let reason = input.reason;
  if (reason === '') {
    for (const [name, value] of input.clusterStatuses) {
      if (value !== '' || (collection && !remote.has(name))) {
        reason = AggregateReason.CheckClusters;
        break;
      }
    }
  }

  const messages = new Map<string, string>();
  for (const [name, value] of input.clusterStatuses) {
    const message = input.clusterMessages?.get(name);
    if (value !== '' && message) messages.set(name, message);
  }
  const clustersChanged = clustersDiffer(
    current.clusters,
    input.clusterStatuses,
    messages,
    remote,
    collection,
  );
  if (clustersChanged) {
    const clusters = [...input.clusterStatuses.keys()].sort(compareCodePoints).map((name) => {
      const entry: ClusterStatusEntry = { name };
      const value = input.clusterStatuses.get(name);
      if (value) entry.status = value;
      const message = messages.get(name);
      if (message) entry.message = message;
      if (remote.has(name)) entry.remoteStatus = remote.get(name);
      return entry;
    });
    if (clusters.length > 0) status.clusters = clusters;
    else delete status.clusters;
  }

  // Quirk kept from KubeFed: with collection off, member updates alone do not bump lastUpdateTime.
  const changesPropagated =
    clustersChanged || (input.clusterStatuses.size > 0 && remote.size > 0 && input.resourcesUpdated);
  status.conditions = propagationConditions(current.conditions, reason, changesPropagated, now);

  if (input.aggregate !== undefined) status.aggregate = { ...input.aggregate };
  else delete status.aggregate;

  let changed = !jsonEqual(status, current);
  const versions = input.propagatedVersion;
  if (versions !== undefined && !jsonEqual(versions, current.propagatedVersion)) {
    if (changed || (input.versionsUnsaved ?? input.resourcesUpdated)) {
      status.propagatedVersion = deepCopy(versions);
      changed = true;
    }
  }
  if (input.dropPropagatedVersion && changed) delete status.propagatedVersion;
  return { status, changed };
}

function clustersDiffer(
  existing: unknown,
  statuses: ReadonlyMap<string, string>,
  messages: ReadonlyMap<string, string>,
  remote: ReadonlyMap<string, unknown>,
  collection: boolean,
): boolean {
  const list = existing === undefined || existing === null ? [] : existing;
  if (!Array.isArray(list)) return true;
  if (list.length !== statuses.size || (collection && list.length !== remote.size)) return true;
  const seen = new Set<string>();
  for (const entry of list) {
    if (!isPlainObject(entry) || typeof entry.name !== 'string' || seen.has(entry.name)) return true;
    seen.add(entry.name);
    // Go reads a missing map entry as "" (OK); a renamed cluster would go unnoticed, so compare presence too.
    const wanted = statuses.get(entry.name);
    if (wanted === undefined || (entry.status ?? '') !== wanted) return true;
    if ((entry.message ?? '') !== (messages.get(entry.name) ?? '')) return true;
    // Compared even with collection off, as in KubeFed, so stale remote statuses get cleared.
    if (!jsonEqual(remote.get(entry.name), entry.remoteStatus ?? undefined)) return true;
  }
  return false;
}

/**
 * The conditions with the Propagation condition updated: lastTransitionTime when (status, reason)
 * changes or the condition is new, lastUpdateTime then or when changes were propagated. Other
 * conditions are kept as they are.
 */
function propagationConditions(
  existing: unknown,
  reason: string,
  changesPropagated: boolean,
  now: string,
): PropagationCondition[] {
  const conditions: unknown[] = Array.isArray(existing) ? deepCopy(existing) : [];
  const index = conditions.findIndex((c) => isPlainObject(c) && c.type === 'Propagation');
  const old = index >= 0 ? (conditions[index] as JsonObject) : undefined;
  const newStatus = reason === '' ? 'True' : 'False';
  const cond: JsonObject = old ?? { type: 'Propagation', status: newStatus };
  const transition = old === undefined || old.status !== newStatus || (old.reason ?? '') !== reason;
  if (transition) {
    cond.status = newStatus;
    if (reason === '') delete cond.reason;
    else cond.reason = reason;
    cond.lastTransitionTime = now;
  }
  if (transition || changesPropagated) cond.lastUpdateTime = now;
  if (old === undefined) conditions.push(cond);
  return conditions as PropagationCondition[];
}
