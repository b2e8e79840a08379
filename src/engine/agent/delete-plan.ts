// What the agent does with an applied resource when its work (or its manifest) goes away (ocm
// pkg/work/helper/helpers.go OwnedByTheWork and DeleteAppliedResources).

import type { DeleteOption } from '../../api/ocm/work/v1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { isOwnedBy, otherWorkOwners } from './owner-refs.ts';
import type { AppliedResource } from './types.ts';

/**
 * Delete or orphan (OwnedByTheWork): Foreground or no deleteOption deletes; Orphan keeps everything;
 * SelectivelyOrphan keeps the resources an orphaning rule names exactly (no wildcards, as in OCM). ReadOnly
 * resources were never the work's, so they are never deleted.
 */
export function deletionAction(
  resource: Pick<AppliedResource, 'group' | 'resource' | 'namespace' | 'name'>,
  opts: { deleteOption?: DeleteOption; readOnly: boolean },
): 'delete' | 'orphan' {
  if (opts.readOnly) return 'orphan';
  const option = opts.deleteOption;
  if (!option) return 'delete';
  switch (option.propagationPolicy) {
    case 'Orphan':
      return 'orphan';
    case 'SelectivelyOrphan': {
      const rules = option.selectivelyOrphans?.orphaningRules ?? [];
      const orphaned = rules.some(
        (r) =>
          (r.group ?? '') === resource.group &&
          r.resource === resource.resource &&
          r.name === resource.name &&
          (r.namespace ?? '') === resource.namespace,
      );
      return orphaned ? 'orphan' : 'delete';
    }
    default:
      return 'delete';
  }
}

/**
 * The step for one resource (DeleteAppliedResources):
 * - 'gone': nothing to wait for: the object is missing, or it was recreated (its uid is not the recorded
 *   one), so it is forgotten;
 * - 'none': the object is not ours (no owner reference of `ownerUid`), so it is left alone and forgotten;
 * - 'remove-owner': another AppliedManifestWork still owns it, or it is orphaned: drop only our reference;
 * - 'delete': delete it (Background, with a uid precondition); an object already being deleted is still
 *   'delete': the shell waits for it like OCM's resourcesPendingFinalization.
 */
export function removal(
  live: KubeObject | undefined,
  ownerUid: string,
  action: 'delete' | 'orphan',
  recordedUid?: string,
): 'gone' | 'delete' | 'remove-owner' | 'none' {
  if (!live) return 'gone';
  if (!isOwnedBy(live, ownerUid)) return 'none';
  if (otherWorkOwners(live, ownerUid) > 0 || action === 'orphan') return 'remove-owner';
  if (recordedUid !== undefined && recordedUid !== '' && live.metadata.uid !== recordedUid) return 'gone';
  return 'delete';
}
