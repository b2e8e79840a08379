// KubeFed v0.10's leader lock, read so that kubefed-ts never runs beside a live KubeFed controller manager.
// KubeFed leads through client-go's ConfigMap or Endpoints lock (resourcelock.ConfigMapLock /
// EndpointsLock, client-go v0.22) named kubefed-controller-manager in the KubeFed namespace: the leader
// record is JSON in the annotation below. kubefed-ts itself leads on a coordination.k8s.io Lease of the same
// name, a different object, so the two elections never see each other without this check.

/** client-go's resourcelock.LeaderElectionRecordAnnotationKey. */
export const KUBEFED_LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
export const KUBEFED_LOCK_NAME = 'kubefed-controller-manager';
export type KubeFedLockKind = 'ConfigMap' | 'Endpoints';

/** client-go's resourcelock.LeaderElectionRecord (JSON field names as written). */
export interface LeaderElectionRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaderTransitions?: number;
}

export interface KubeFedLock {
  kind: KubeFedLockKind;
  namespace: string;
  /** The parsed annotation; undefined when the object has none or it is not a leader record. */
  record: LeaderElectionRecord | undefined;
}

export type KubeFedLockVerdict =
  | { live: false; why: 'no-record' | 'released' | 'expired'; expiredAgoMs?: number }
  | { live: true; why: 'unexpired' | 'renewed-since-last-look'; renewedAgoMs: number; leaseMs: number };

/** The leader record in a lock object's annotation; undefined for a missing or unparsable one. */
export function parseLeaderRecord(annotation: string | undefined): LeaderElectionRecord | undefined {
  if (!annotation) return undefined;
  try {
    const r = JSON.parse(annotation) as unknown;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return undefined;
    return r as LeaderElectionRecord;
  } catch {
    return undefined;
  }
}

/** metav1.Time is RFC 3339 with second precision; NaN for anything else. */
const timeMs = (t: string | undefined): number => (typeof t === 'string' ? Date.parse(t) : Number.NaN);

/**
 * Whether KubeFed's lock is held, as a client-go candidate decides it (LeaderElector.tryAcquireOrRenew):
 * a record with a holder is held until leaseDuration after it was last renewed. client-go times the lease
 * from when it observed the record change; a one-off look has no such history, so it times it from the
 * record's renewTime, on our clock. `previous` is an earlier look at the same lock: if the record changed
 * since, the holder renewed it in between, which proves it alive whatever the two clocks say.
 *
 * An empty holderIdentity is a released lock (client-go's ReleaseOnCancel); a record whose lease ran out is a
 * KubeFed that stopped without releasing (v0.10 never releases) and blocks nothing.
 */
export function judgeKubeFedLock(
  record: LeaderElectionRecord | undefined,
  nowMs: number,
  previous?: LeaderElectionRecord,
): KubeFedLockVerdict {
  if (!record) return { live: false, why: 'no-record' };
  if (!record.holderIdentity) return { live: false, why: 'released' };
  const leaseMs = Math.max(0, Number(record.leaseDurationSeconds) || 0) * 1000;
  const renewed = timeMs(record.renewTime);
  const renewedAgoMs = Number.isNaN(renewed) ? Number.POSITIVE_INFINITY : nowMs - renewed;
  if (
    previous?.holderIdentity &&
    (previous.renewTime !== record.renewTime || previous.holderIdentity !== record.holderIdentity)
  )
    return { live: true, why: 'renewed-since-last-look', renewedAgoMs, leaseMs };
  if (renewedAgoMs < leaseMs) return { live: true, why: 'unexpired', renewedAgoMs, leaseMs };
  return { live: false, why: 'expired', expiredAgoMs: renewedAgoMs - leaseMs };
}

const seconds = (ms: number): string =>
  Number.isFinite(ms) ? `${Math.max(0, Math.round(ms / 1000))}s` : '?';

/**
 * The one line shown when KubeFed is found running: what was found and how to stop it. `deployment` is the
 * chart's Deployment name (KubeFed's chart: kubefed-controller-manager).
 */
export function kubefedRunningMessage(
  lock: KubeFedLock,
  verdict: Extract<KubeFedLockVerdict, { live: true }>,
): string {
  const holder = lock.record?.holderIdentity ?? '';
  return (
    `KubeFed's controller manager is running: it holds its leader lock ${lock.kind} ` +
    `${lock.namespace}/${KUBEFED_LOCK_NAME} (holder "${holder}", renewed ${seconds(verdict.renewedAgoMs)} ago, ` +
    `lease ${seconds(verdict.leaseMs)}); kubefed-ts will not run beside it. Stop KubeFed first ` +
    `(kubectl -n ${lock.namespace} scale deployment ${KUBEFED_LOCK_NAME} --replicas=0) and wait for its lease ` +
    'to expire; see docs/migrating-from-kubefed.md'
  );
}
