// Wire-level names shared with KubeFed v0.10 (labels, annotations, finalizer, status strings).

/** Label on every member object KubeFed manages; "false" is an explicit opt-out. */
export const MANAGED_LABEL = 'kubefed.io/managed';
/** Annotation on a federated object: "true" keeps member objects on deletion (only unlabels them). */
export const ORPHAN_ANNOTATION = 'kubefed.io/orphan';
/** Annotation on a federated object: JSON metav1.DeleteOptions used when deleting member objects. */
export const DELETE_OPTION_ANNOTATION = 'kubefed.io/deleteoption';
/** Finalizer the sync controller puts on every federated object it reconciles. */
export const SYNC_FINALIZER = 'kubefed.io/sync-controller';
/**
 * kubefed-ts (not KubeFed): annotation on a member object holding the hash of the rendering last applied to it
 * (DesiredObject.appliedHash), so a restarted controller knows the copy is current without a write.
 */
export const RENDERING_ANNOTATION = 'kubefed-ts.io/rendering';

/** Per-cluster values of `status.clusters[].status`. OK is the empty string and is written as an absent field. */
export const ClusterStatus = {
  WaitingForRemoval: 'WaitingForRemoval',
  ClusterNotReady: 'ClusterNotReady',
  CachedRetrievalFailed: 'CachedRetrievalFailed',
  ComputeResourceFailed: 'ComputeResourceFailed',
  ApplyOverridesFailed: 'ApplyOverridesFailed',
  CreationFailed: 'CreationFailed',
  UpdateFailed: 'UpdateFailed',
  DeletionFailed: 'DeletionFailed',
  LabelRemovalFailed: 'LabelRemovalFailed',
  RetrievalFailed: 'RetrievalFailed',
  AlreadyExists: 'AlreadyExists',
  FieldRetentionFailed: 'FieldRetentionFailed',
  VersionRetrievalFailed: 'VersionRetrievalFailed',
  ClientRetrievalFailed: 'ClientRetrievalFailed',
  ManagedLabelFalse: 'ManagedLabelFalse',
  CreationTimedOut: 'CreationTimedOut',
  UpdateTimedOut: 'UpdateTimedOut',
  DeletionTimedOut: 'DeletionTimedOut',
  LabelRemovalTimedOut: 'LabelRemovalTimedOut',
  /** kubefed-ts: the member cluster does not serve the target type (KubeFed would stall every cluster, #1241). */
  TypeNotServed: 'TypeNotServed',
  /**
   * kubefed-ts: the member stayed unreachable during deletion for longer than the configured bound,
   * so the federated object was released anyway (KubeFed blocks forever, #1254).
   */
  DeletionAbandoned: 'DeletionAbandoned',
} as const;
export type ClusterStatus = (typeof ClusterStatus)[keyof typeof ClusterStatus];

/** `conditions[type=Propagation].reason`; success is the empty string. */
export const AggregateReason = {
  ClusterRetrievalFailed: 'ClusterRetrievalFailed',
  ComputePlacementFailed: 'ComputePlacementFailed',
  CheckClusters: 'CheckClusters',
  NamespaceNotFederated: 'NamespaceNotFederated',
} as const;
export type AggregateReason = (typeof AggregateReason)[keyof typeof AggregateReason];

const RECOVERABLE: ReadonlySet<string> = new Set<ClusterStatus>([
  ClusterStatus.CreationFailed,
  ClusterStatus.UpdateFailed,
  ClusterStatus.DeletionFailed,
  ClusterStatus.LabelRemovalFailed,
  ClusterStatus.RetrievalFailed,
  ClusterStatus.ClientRetrievalFailed,
  ClusterStatus.CreationTimedOut,
  ClusterStatus.UpdateTimedOut,
  ClusterStatus.DeletionTimedOut,
  ClusterStatus.LabelRemovalTimedOut,
]);

/**
 * Whether a per-cluster status makes the reconcile return an error so it is retried with backoff
 * (KubeFed v0.8.1 #1428). The others need a change of input (template, placement, cluster health).
 */
export function isRecoverable(status: string): boolean {
  return RECOVERABLE.has(status);
}

/**
 * The event reason for a failed member operation, as KubeFed names them: `create` → CreateInClusterFailed,
 * `remove managed label from` → RemoveManagedLabelFromInClusterFailed.
 */
export function inClusterFailureReason(op: string): string {
  return `${op.replace(/(?:^|\s+)(\w)/g, (_, c: string) => c.toUpperCase())}InClusterFailed`;
}
