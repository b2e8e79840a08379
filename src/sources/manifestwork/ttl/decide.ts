// When a completed ManifestWork is deleted (ocm pkg/work/hub/controllers/manifestworkgarbagecollection):
// `spec.deleteOption.ttlSecondsAfterFinished` after its Complete condition turned True, 0 at once. Works
// of a ManifestWorkReplicaSet are never collected: the MWRS would only create them again.

import { type ManifestWork, WorkCondition } from '../../../api/ocm/work/v1/index.ts';
import { MWRS_LABEL } from '../../../api/ocm/work/v1alpha1/index.ts';

export type TtlDecision =
  | { readonly kind: 'keep' }
  | { readonly kind: 'delete' }
  | { readonly kind: 'wait'; readonly ms: number };

export function ttlDecision(work: ManifestWork, now: number): TtlDecision {
  if (work.metadata.deletionTimestamp) return { kind: 'keep' };
  if (work.metadata.labels?.[MWRS_LABEL] !== undefined) return { kind: 'keep' };
  const ttl = work.spec.deleteOption?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null) return { kind: 'keep' };
  const complete = work.status?.conditions?.find((c) => c.type === WorkCondition.Complete);
  if (complete?.status !== 'True') return { kind: 'keep' };
  if (ttl <= 0) return { kind: 'delete' };
  const since = Date.parse(complete.lastTransitionTime);
  const deadline = (Number.isNaN(since) ? now : since) + ttl * 1000;
  return now < deadline ? { kind: 'wait', ms: deadline - now } : { kind: 'delete' };
}
