// Which owner a member object belongs to. Several sources share members and types: the managed label says
// kubefed-ts manages an object (KubeFed's wire format, kept), the owner annotation says who. An object
// without the annotation belongs to the Federated<Kind> source, as KubeFed expects, so nothing KubeFed
// wrote changes.

import { AMW_KIND, API_VERSION as WORK_API_VERSION } from '../api/ocm/work/v1/index.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { MANAGED_LABEL, RENDERING_ANNOTATION } from '../propagation/constants.ts';
import { isPlainObject } from '../propagation/json.ts';
import type { WorkOwner } from './work.ts';

/** Names the owner of a member object made by a source other than Federated<Kind>. */
export const OWNER_ANNOTATION = 'kubefed-ts.io/owner';
/**
 * The member status of an object that is managed for another owner (another source, or another object of
 * the same source): it is left alone and the owner is named in the message. Not a KubeFed status: KubeFed
 * has one source, so it never sees this.
 */
export const ALREADY_OWNED = 'AlreadyOwned';
/** The source whose objects carry no owner annotation. */
export const FEDERATED_SOURCE = 'federated';

/** The owner annotation's value: `<source>:<Kind>:<namespace>/<name>`, or `<source>:<Kind>:<name>`. */
export function ownerId(owner: Pick<WorkOwner, 'source' | 'kind' | 'namespace' | 'name'>): string {
  const name = owner.namespace ? `${owner.namespace}/${owner.name}` : owner.name;
  return `${owner.source}:${owner.kind}:${name}`;
}

/** Words for status messages and events: `FederatedConfigMap "ns/a"`, or `policy ResourceBinding "ns/b"`. */
export function describeOwnerId(id: string | undefined): string {
  if (id === undefined) return `a ${FEDERATED_SOURCE} object of the same name`;
  const [source, kind, ...rest] = id.split(':');
  return `${source} ${kind} "${rest.join(':')}"`;
}

export type Ownership =
  /** Not managed by kubefed-ts (no managed label): adoptable. */
  | { kind: 'unmanaged' }
  | { kind: 'ours' }
  /** Managed for another owner: `owner` is its annotation value, undefined for the Federated<Kind> source. */
  | { kind: 'other'; owner: string | undefined };

/** Who holds `live`, from `owner`'s point of view. */
export function ownershipOf(live: KubeObject, owner: WorkOwner): Ownership {
  if (live.metadata.labels?.[MANAGED_LABEL] !== 'true') {
    const work = appliedManifestWorkOf(live);
    return work === undefined ? { kind: 'unmanaged' } : { kind: 'other', owner: work };
  }
  const holder = live.metadata.annotations?.[OWNER_ANNOTATION];
  const mine = owner.source === FEDERATED_SOURCE ? undefined : ownerId(owner);
  // A Federated<Kind> object applied by a Pull cluster's agent names its owner too (pull/manifest-work.ts).
  if (holder === mine || holder === ownerId(owner)) return { kind: 'ours' };
  return { kind: 'other', owner: holder };
}

/** The `kind` part of the owner id of an object an OCM ManifestWork holds. */
export const MANIFEST_WORK_OWNER_KIND = 'ManifestWork';

/**
 * An object a work agent applied for an OCM ManifestWork (an AppliedManifestWork owner reference) without the
 * managed label: the owner id naming that ManifestWork (`work:ManifestWork:<name>`), or undefined. The agent
 * names its AppliedManifestWork `<hubHash>-<work name>` (64 hex digits).
 */
export function appliedManifestWorkOf(live: KubeObject): string | undefined {
  const ref = (live.metadata.ownerReferences ?? []).find(
    (r): r is { name: string } =>
      isPlainObject(r) &&
      r.kind === AMW_KIND &&
      r.apiVersion === WORK_API_VERSION &&
      typeof r.name === 'string',
  );
  if (!ref) return undefined;
  const name = /^[0-9a-f]{64}-./.test(ref.name) ? ref.name.slice(65) : ref.name;
  return `work:${MANIFEST_WORK_OWNER_KIND}:${name}`;
}

/**
 * Marks an object to write as `owner`'s (in place): the managed label (whatever the source rendered), and for
 * sources other than Federated<Kind> the owner annotation; Federated<Kind> objects stay as KubeFed writes them.
 */
export function stampOwner(obj: KubeObject, owner: WorkOwner): void {
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [MANAGED_LABEL]: 'true' };
  if (owner.source === FEDERATED_SOURCE) {
    if (obj.metadata.annotations?.[OWNER_ANNOTATION] === undefined) return;
    const { [OWNER_ANNOTATION]: _, ...rest } = obj.metadata.annotations;
    obj.metadata.annotations = rest;
    return;
  }
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [OWNER_ANNOTATION]: ownerId(owner) };
}

/**
 * Stamps the hash of the rendering a member should receive (DesiredObject.appliedHash) on the object to write
 * (in place), so that a restarted controller, with nothing recorded, can tell a copy that is already current.
 * Without a hash the object is left as it is (Federated<Kind> objects stay as KubeFed writes them).
 */
export function stampRendering(obj: KubeObject, appliedHash: string | undefined): void {
  if (appliedHash === undefined) return;
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [RENDERING_ANNOTATION]: appliedHash };
}
