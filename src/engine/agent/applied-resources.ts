// The AppliedManifestWork's list of resources it applied: which ones dropped out of the work, and the list
// as OCM writes it (ocm pkg/work/helper/helpers.go FindUntrackedResources; ocm
// pkg/work/spoke/controllers/manifestcontroller/appliedmanifestwork_reconciler.go).

import type { AppliedManifestResourceMeta } from '../../api/ocm/work/v1/index.ts';
import type { AppliedResource } from './types.ts';

/** The identity OCM compares by (ResourceIdentifier): version and uid do not count. */
function identity(r: AppliedResource): string {
  return JSON.stringify([r.group, r.resource, r.namespace, r.name]);
}

/** Resources in `previous` that `current` no longer has (FindUntrackedResources), in their previous order. */
export function staleResources(
  previous: readonly AppliedResource[],
  current: readonly AppliedResource[],
): AppliedResource[] {
  const tracked = new Set(current.map(identity));
  return previous.filter((r) => !tracked.has(identity(r)));
}

/**
 * The next appliedResources: the resources the work keeps now plus those still being deleted
 * (`pendingFinalization`, OCM's resourcesPendingFinalization), sorted by group, version, resource, namespace,
 * name as OCM sorts them. A pending resource the work lists again is listed once, with its current entry.
 */
export function mergeAppliedResources(
  pendingFinalization: readonly AppliedResource[],
  current: readonly AppliedResource[],
): AppliedResource[] {
  const keys = new Set(current.map(identity));
  const merged = [...current, ...pendingFinalization.filter((r) => !keys.has(identity(r)))];
  return merged.sort(compareApplied);
}

function compareApplied(a: AppliedResource, b: AppliedResource): number {
  return (
    compareStrings(a.group, b.group) ||
    compareStrings(a.version, b.version) ||
    compareStrings(a.resource, b.resource) ||
    compareStrings(a.namespace, b.namespace) ||
    compareStrings(a.name, b.name)
  );
}

/** Go compares strings by bytes; for the ASCII names Kubernetes allows that is code-unit order. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** To the AMW status entry: group and namespace omitted when empty (omitempty), uid kept. */
export function toAppliedResourceMeta(r: AppliedResource): AppliedManifestResourceMeta {
  return {
    ...(r.group ? { group: r.group } : {}),
    resource: r.resource,
    name: r.name,
    ...(r.namespace ? { namespace: r.namespace } : {}),
    version: r.version,
    ...(r.uid ? { uid: r.uid } : {}),
  };
}

export function fromAppliedResourceMeta(m: AppliedManifestResourceMeta): AppliedResource {
  return {
    group: m.group ?? '',
    version: m.version,
    resource: m.resource,
    namespace: m.namespace ?? '',
    name: m.name,
    uid: m.uid ?? '',
  };
}
