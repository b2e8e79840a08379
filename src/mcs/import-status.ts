// The status kubefed-ts writes on a consuming member's ServiceImport (mcs-api pkg/apis/v1beta1/
// serviceimport.go): the exporting cluster ids, whether MCS EndpointSlices back it, and the Ready condition
// (True Ready; False IPFamilyNotSupported; Unknown Pending), its lastTransitionTime kept while its status stays.

import type { ServiceImportStatus } from '../api/mcs/v1beta1/serviceimport.ts';
import { ImportCondition } from '../api/mcs/v1beta1/serviceimport.ts';
import { stampCondition } from '../util/conditions.ts';

export interface ImportStatusInput {
  previous: ServiceImportStatus | undefined;
  clusterIds: readonly string[];
  ready: { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
  slicesPresent: boolean;
  generation: number | undefined;
  now: string;
}

/** The whole status; conditions of other types the import already had are kept after Ready. */
export function importStatus(input: ImportStatusInput): ServiceImportStatus {
  const { ready, previous } = input;
  const readyCondition = stampCondition(
    {
      type: ImportCondition.Ready,
      status: ready.status,
      ...(input.generation === undefined ? {} : { observedGeneration: input.generation }),
      reason: ready.reason,
      message: ready.message,
    },
    previous?.conditions,
    input.now,
  );
  const others = (previous?.conditions ?? []).filter((c) => c.type !== ImportCondition.Ready);
  return {
    clusters: [...new Set(input.clusterIds)].sort().map((cluster) => ({ cluster })),
    endpointSliceObjects: input.slicesPresent ? 'Present' : 'Absent',
    conditions: [readyCondition, ...others],
  };
}
