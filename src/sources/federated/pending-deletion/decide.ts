// What to do with a pending member deletion (pure). The rules are documented in docs/propagation.md
// ("Deletion"); each function is one step of the controller's reconcile, so the I/O between them (a host
// read, a member read) happens only when the step before asks for it.

import { describeOwnerId, OWNER_ANNOTATION } from '../../../engine/ownership.ts';
import type { KubeObject } from '../../../kube/client/index.ts';
import { MANAGED_LABEL } from '../../../propagation/constants.ts';
import type { PendingDeletion } from './record.ts';

/** Why a record is deleted without deleting anything in the member. */
export type DropReason =
  | 'unregistered'
  | 'superseded'
  | 'gone'
  | 'deleting'
  | 'notManaged'
  | 'replaced'
  | 'hostNamespace'
  | 'otherOwner';

export type Verdict =
  /** Nothing to do until the cluster changes (a readiness event requeues the record). */
  | { action: 'waitForCluster' }
  /** The federated object still exists, being finalized by its sync controller: look again later. */
  | { action: 'waitForRelease' }
  /** Go on to the next step (read the host object, then the member copy). */
  | { action: 'continue' }
  | { action: 'delete'; uid: string }
  | { action: 'drop'; reason: DropReason; message: string };

/** Step 1: is the member there to be asked? */
export function judgeCluster(input: { registered: boolean; ready: boolean }): Verdict {
  if (!input.registered)
    return {
      action: 'drop',
      reason: 'unregistered',
      message: 'the cluster is no longer registered (unjoined); its objects are no longer managed',
    };
  if (!input.ready) return { action: 'waitForCluster' };
  return { action: 'continue' };
}

/**
 * Step 2: the host's federated object of the same name, if any. The one whose deletion was recorded is
 * still being finalized (its own sync controller is in charge); any other is a newer object of the same
 * name, which now owns whatever copy the member holds: the record must not touch it.
 */
export function judgeFederatedObject(record: PendingDeletion, liveUid: string | undefined): Verdict {
  if (liveUid === undefined) return { action: 'continue' };
  if (liveUid === record.federatedUid) return { action: 'waitForRelease' };
  return {
    action: 'drop',
    reason: 'superseded',
    message: 'a federated object of the same name was created since; it manages the copy now',
  };
}

/**
 * Step 3: the member copy as read from the member now. Deleted only while it is still the copy the user
 * deleted: labelled `kubefed.io/managed=true`, not the host's own Namespace, and the same object — the uid
 * seen before the deletion when one was recorded, else created before the deletion began.
 */
export function judgeMemberCopy(
  record: PendingDeletion,
  copy: KubeObject | undefined,
  hostNamespaceUid?: string,
): Verdict {
  if (!copy) return { action: 'drop', reason: 'gone', message: 'the copy is already gone' };
  const uid = copy.metadata.uid ?? '';
  if (copy.metadata.deletionTimestamp)
    return { action: 'drop', reason: 'deleting', message: 'the copy is already being deleted' };
  if (copy.metadata.labels?.[MANAGED_LABEL] !== 'true')
    return {
      action: 'drop',
      reason: 'notManaged',
      message: `the copy is no longer labelled ${MANAGED_LABEL}=true`,
    };
  const owner = copy.metadata.annotations?.[OWNER_ANNOTATION];
  if (owner !== undefined)
    return {
      action: 'drop',
      reason: 'otherOwner',
      message: `the copy is managed by ${describeOwnerId(owner)}`,
    };
  if (hostNamespaceUid !== undefined && uid === hostNamespaceUid)
    return {
      action: 'drop',
      reason: 'hostNamespace',
      message: "the copy is the host cluster's own namespace",
    };
  if (record.memberUid !== undefined) {
    if (uid !== record.memberUid)
      return {
        action: 'drop',
        reason: 'replaced',
        message: `the copy was replaced (uid ${uid}, recorded ${record.memberUid})`,
      };
  } else {
    const created = Date.parse(copy.metadata.creationTimestamp ?? '');
    const deleted = Date.parse(record.deletedAt);
    if (Number.isFinite(created) && created > deleted)
      return {
        action: 'drop',
        reason: 'replaced',
        message: `the copy was created at ${copy.metadata.creationTimestamp}, after the deletion at ${record.deletedAt}`,
      };
  }
  return { action: 'delete', uid };
}
