// Drift: whether a member object still holds what its manifest says. OCM's Update strategy skips the write
// whenever the object-hash annotation matches (ocm pkg/work/spoke/apply/update_apply.go objectHashCache), so an
// in-place edit on the member stays; kubefed-ts corrects it, as KubeFed corrects drift, and still writes
// nothing while the member object holds every field the manifest sets.

import type { KubeObject } from '../../kube/client/index.ts';
import { isPlainObject } from '../../propagation/json.ts';

/**
 * Every field the manifest sets, outside metadata and status, has that value on the live object; and so do
 * the manifest's labels and annotations. Fields the member adds (defaults, other managers) do not count; a
 * list must have the manifest's length, each item holding the manifest's item.
 */
export function holdsManifest(manifest: KubeObject, live: KubeObject): boolean {
  // stringData is write-only (the apiserver folds it into data); the object-hash still catches its changes.
  const {
    metadata,
    status: _status,
    stringData: _stringData,
    ...body
  } = manifest as KubeObject & Record<string, unknown>;
  const {
    metadata: liveMetadata,
    status: _liveStatus,
    ...liveBody
  } = live as KubeObject & Record<string, unknown>;
  return (
    contains(body, liveBody) &&
    contains(metadata?.labels ?? {}, liveMetadata?.labels ?? {}) &&
    contains(metadata?.annotations ?? {}, liveMetadata?.annotations ?? {})
  );
}

function contains(want: unknown, have: unknown): boolean {
  // The apiserver drops empty maps, lists and strings ("data: {}", "args: []"): absent holds them.
  if (have === undefined && isEmpty(want)) return true;
  if (Array.isArray(want)) {
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(w, have[i]));
  }
  if (isPlainObject(want)) {
    if (!isPlainObject(have)) return false;
    return Object.entries(want).every(([k, v]) =>
      v === null ? have[k] === undefined || have[k] === null : contains(v, have[k]),
    );
  }
  return want === have;
}

function isEmpty(v: unknown): boolean {
  return (
    v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0)
  );
}
