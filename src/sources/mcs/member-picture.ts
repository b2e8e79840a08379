// Whether the controller sees enough of a ready member to act on it (pure). A member whose picture is not
// complete is taken as not ready: what it last showed counts for the lease and nothing is deleted for it.

import type { ServiceImportStatus } from '../../api/mcs/v1beta1/serviceimport.ts';
import type { MemberCacheState } from '../../members/member-caches.ts';

type View = MemberCacheState['kind'] | undefined;

/**
 * A cache's view leaves the member's picture incomplete: still loading, or (for a cache MCS reads facts
 * from) its list failed — a 429, 5xx or timeout must not read as "no exports, no Service". A type the member
 * does not serve is a complete answer (there are none); a managed cache that failed only keeps the member from
 * being a consumer.
 */
export function incompleteView(view: View, readsFacts: boolean): boolean {
  if (view === undefined || view === 'syncing' || view === 'none') return true;
  return readsFacts && (view === 'failed' || view === 'clientError');
}

/**
 * Some of these ServiceImports' status names, as exporting the service, a cluster that may be an unseen
 * member: one of the `unseen` ids; or, while some unseen member's id is not known (undefined: its
 * ClusterProperties never loaded, and an admin-set id.k8s.io may name it anything), any cluster that is none
 * of the `judged` members (those whose exports were seen, by their ids).
 */
export function importsNameUnseen(
  imports: ReadonlyArray<{ status?: ServiceImportStatus } | undefined>,
  unseen: ReadonlyArray<string | undefined>,
  judged: readonly string[],
): boolean {
  const anyId = unseen.includes(undefined);
  return imports.some((imp) =>
    (imp?.status?.clusters ?? []).some(
      (x) => unseen.includes(x.cluster) || (anyId && !judged.includes(x.cluster)),
    ),
  );
}
