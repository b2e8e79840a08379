// Whether a member object already is what a render asks for, so the Work can say "recorded: this version"
// and the engine writes nothing: after a restart, a new leader or a resync, an MCS controller that finds
// the members as it left them must not PUT every import, slice and record again. The member and the API
// server default fields we never set (a Service's sessionAffinity, a port's targetPort), so what we render
// is compared as a subset of the live object; labels and annotations are ours in full and compared exactly.

import { OWNER_ANNOTATION, ownerId } from '../../engine/ownership.ts';
import type { WorkOwner } from '../../engine/work.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { MANAGED_LABEL } from '../../propagation/constants.ts';
import { isPlainObject, jsonEqual } from '../../propagation/json.ts';

/** Fields of the object that the server owns or that are compared separately. */
const NOT_COMPARED = new Set(['apiVersion', 'kind', 'metadata', 'status']);

export function upToDate(desired: KubeObject, live: KubeObject | undefined, owner: WorkOwner): boolean {
  if (!live) return false;
  const labels = { ...(desired.metadata.labels ?? {}), [MANAGED_LABEL]: 'true' };
  const annotations = { ...(desired.metadata.annotations ?? {}), [OWNER_ANNOTATION]: ownerId(owner) };
  if (!jsonEqual(labels, live.metadata.labels ?? {})) return false;
  if (!jsonEqual(annotations, live.metadata.annotations ?? {})) return false;
  if (desired.metadata.ownerReferences !== undefined) {
    if (!contains(live.metadata.ownerReferences, desired.metadata.ownerReferences)) return false;
  }
  const liveFields = live as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(desired)) {
    if (NOT_COMPARED.has(k)) continue;
    if (!contains(liveFields[k], v)) return false;
  }
  return true;
}

/**
 * `live` holds everything `want` says: equal scalars, objects whose every key of `want` is contained, and
 * lists of the same length contained element by element (a list we set is ours in full).
 */
export function contains(live: unknown, want: unknown): boolean {
  if (want === undefined) return true;
  // The API server drops empty lists and maps it is given (`endpoints: []` reads back as absent).
  if (live === undefined || live === null) {
    if (Array.isArray(want)) return want.length === 0;
    if (isPlainObject(want)) return Object.keys(want).length === 0;
  }
  if (Array.isArray(want)) {
    return Array.isArray(live) && live.length === want.length && want.every((w, i) => contains(live[i], w));
  }
  if (isPlainObject(want)) {
    if (!isPlainObject(live)) return false;
    return Object.entries(want).every(([k, w]) => contains(live[k], w));
  }
  return jsonEqual(live, want);
}
