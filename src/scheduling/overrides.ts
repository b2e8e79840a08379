// Writing a schedule into a federated object (KubeFed pkg/schedulingtypes/plugin.go Reconcile): the RSP
// owns `spec.placement.clusters` and the `/spec/replicas` override of every cluster, nothing else.

import { deepCopy, isPlainObject, type JsonObject } from '../propagation/json.ts';
import { normalizeOverridePath } from '../propagation/overrides.ts';

export const REPLICAS_PATH = '/spec/replicas';

/** The federated object's placement or overrides have a shape KubeFed could not have decoded. */
export class ScheduleApplyError extends Error {
  override name = 'ScheduleApplyError';
}

export interface ScheduleChanges {
  /** The new `spec.placement.clusters` names, or undefined when the name set is unchanged. */
  placementClusters: string[] | undefined;
  /** The new `spec.overrides`, or undefined when every `/spec/replicas` override already matches. */
  overrides: unknown[] | undefined;
}

/** True for `/spec/replicas` and its dotted shorthand `spec.replicas`. */
export function isReplicasPath(path: unknown): boolean {
  if (typeof path !== 'string') return false;
  try {
    return normalizeOverridePath(path) === REPLICAS_PATH;
  } catch {
    return false;
  }
}

/**
 * What must change in a federated object so that it carries `result` (replicas per cluster, every
 * candidate cluster included): the placement names and the `/spec/replicas` overrides. Other
 * overrides are kept as they are. Unlike KubeFed, whose overrides came out of a Go map in random
 * order, the order is stable: existing clusters keep their place and new ones are appended sorted.
 * Throws ScheduleApplyError for malformed placement or overrides (KubeFed failed the reconcile too).
 */
export function applySchedule(
  fed: { spec?: { placement?: unknown; overrides?: unknown } },
  result: Readonly<Record<string, number>>,
): ScheduleChanges {
  const wanted = Object.keys(result);
  return {
    placementClusters: placementChange(fed.spec?.placement, wanted),
    overrides: overridesChange(fed.spec?.overrides, result),
  };
}

function placementNames(placement: unknown): string[] {
  if (placement === undefined || placement === null) return [];
  if (!isPlainObject(placement)) throw new ScheduleApplyError('spec.placement must be an object');
  const list = placement['clusters'];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new ScheduleApplyError('spec.placement.clusters must be a list');
  return list.map((ref: unknown, i) => {
    if (!isPlainObject(ref) || typeof ref['name'] !== 'string')
      throw new ScheduleApplyError(`spec.placement.clusters[${i}] must be an object with a string name`);
    return ref['name'];
  });
}

/** KubeFed's PlacementUpdateNeeded compares the sorted lists, so duplicates also force a write. */
function placementChange(placement: unknown, wanted: readonly string[]): string[] | undefined {
  const existing = placementNames(placement);
  const a = [...existing].sort();
  const b = [...wanted].sort();
  if (a.length === b.length && a.every((name, i) => name === b[i])) return undefined;
  const want = new Set(wanted);
  const kept = [...new Set(existing.filter((name) => want.has(name)))];
  const keptSet = new Set(kept);
  return [...kept, ...b.filter((name) => !keptSet.has(name))];
}

interface OverrideItem extends JsonObject {
  clusterName: string;
}

function overrideItems(raw: unknown): OverrideItem[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ScheduleApplyError('spec.overrides must be a list');
  const seen = new Set<string>();
  return raw.map((item: unknown, i) => {
    if (!isPlainObject(item) || typeof item['clusterName'] !== 'string')
      throw new ScheduleApplyError(`spec.overrides[${i}] must be an object with a string clusterName`);
    const cluster = item['clusterName'];
    if (seen.has(cluster))
      throw new ScheduleApplyError(`cluster ${JSON.stringify(cluster)} appears more than once`);
    seen.add(cluster);
    const list = item['clusterOverrides'];
    if (list !== undefined && list !== null && !Array.isArray(list))
      throw new ScheduleApplyError(`spec.overrides[${i}].clusterOverrides must be a list`);
    return item as OverrideItem;
  });
}

function clusterOverrides(item: JsonObject): unknown[] {
  const list = item['clusterOverrides'];
  return Array.isArray(list) ? list : [];
}

const isReplicasOverride = (o: unknown): o is JsonObject => isPlainObject(o) && isReplicasPath(o['path']);

/**
 * KubeFed's OverrideUpdateNeeded: every `/spec/replicas` override must belong to a scheduled cluster
 * and hold its number, and there must be exactly one per scheduled cluster. Values are compared as
 * numbers. A `remove` op on the path also needs rewriting, since it would drop the replicas.
 */
function overridesNeedUpdate(
  items: readonly OverrideItem[],
  result: Readonly<Record<string, number>>,
): boolean {
  let matched = 0;
  for (const item of items) {
    for (const o of clusterOverrides(item)) {
      if (!isReplicasOverride(o)) continue;
      const value = o['value'];
      if (typeof value !== 'number' || o['op'] === 'remove') return true;
      if (!Object.hasOwn(result, item.clusterName) || value !== result[item.clusterName]) return true;
      matched++;
    }
  }
  return matched !== Object.keys(result).length;
}

function overridesChange(raw: unknown, result: Readonly<Record<string, number>>): unknown[] | undefined {
  const items = overrideItems(raw);
  if (!overridesNeedUpdate(items, result)) return undefined;

  const out: unknown[] = [];
  const present = new Set<string>();
  for (const original of items) {
    const item = deepCopy(original);
    const cluster = item.clusterName;
    present.add(cluster);
    const scheduled = Object.hasOwn(result, cluster);
    const list: unknown[] = [];
    let written = false;
    for (const o of clusterOverrides(item)) {
      if (!isReplicasOverride(o)) {
        list.push(o);
        continue;
      }
      // Unscheduled clusters lose only this override; a duplicate (say `spec.replicas` next to
      // `/spec/replicas`) would fail propagation, so only the first one is kept and updated in place.
      if (!scheduled || written) continue;
      o['value'] = result[cluster];
      if (o['op'] === 'remove') delete o['op'];
      list.push(o);
      written = true;
    }
    if (scheduled && !written) list.push({ path: REPLICAS_PATH, value: result[cluster] });
    if (list.length > 0 || Object.hasOwn(item, 'clusterOverrides')) item['clusterOverrides'] = list;
    out.push(item);
  }
  const added = Object.keys(result)
    .filter((c) => !present.has(c))
    .sort();
  for (const cluster of added) {
    out.push({ clusterName: cluster, clusterOverrides: [{ path: REPLICAS_PATH, value: result[cluster] }] });
  }
  return out;
}
