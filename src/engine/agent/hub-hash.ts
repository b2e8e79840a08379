// The hub's identity on a member: OCM names each AppliedManifestWork after a hash of the hub apiserver URL, so
// two hubs driving one member never share (or delete) each other's AppliedManifestWorks.

import { createHash } from 'node:crypto';

/** Hex SHA-256 of the hub URL string as given (ocm pkg/work/helper/helpers.go HubHash). */
export function hubHash(hubUrl: string): string {
  return createHash('sha256').update(hubUrl, 'utf8').digest('hex');
}

/** `<hubHash>-<workName>` (ocm pkg/work/spoke/controllers/manifestcontroller: appliedManifestWorkName). */
export function appliedManifestWorkName(hubHash: string, workName: string): string {
  return `${hubHash}-${workName}`;
}

/** The ManifestWork an AppliedManifestWork stands for, or undefined when it belongs to another hub (helpers.go
 * AppliedManifestworkQueueKeyFunc). */
export function workNameOf(hubHash: string, appliedName: string): string | undefined {
  const prefix = `${hubHash}-`;
  return appliedName.startsWith(prefix) ? appliedName.slice(prefix.length) : undefined;
}
