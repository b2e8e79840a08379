import type { Taint } from '../../../../../src/api/core/v1beta1/kubefedcluster.ts';
import type { ResourceBinding } from '../../../../../src/api/work/v1alpha2/resourcebinding.ts';
import type { PolicyCluster } from '../../../../../src/sources/policy/cluster-affinity.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const at = (s: number) => new Date(T0 + s * 1_000);
export const iso = (s: number) => at(s).toISOString().replace('.000Z', 'Z');

export const cluster = (name: string, extra: Partial<PolicyCluster> = {}): PolicyCluster => ({
  name,
  labels: {},
  zones: [],
  ready: true,
  ...extra,
});

export const noExecute = (key: string, addedAt = 0): Taint => ({
  key,
  effect: 'NoExecute',
  timeAdded: iso(addedAt),
});

/** A Divided binding of 6 replicas over c1..c3, scheduled for generation 2. */
export function binding(
  extra: Partial<ResourceBinding['spec']> = {},
  status: ResourceBinding['status'] = {},
): ResourceBinding {
  return {
    metadata: { name: 'web-deployment', namespace: 'apps', generation: 2 },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'web' },
      replicas: 6,
      placement: {
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
      },
      clusters: [
        { name: 'c1', replicas: 2 },
        { name: 'c2', replicas: 2 },
        { name: 'c3', replicas: 2 },
      ],
      ...extra,
    },
    status: {
      schedulerObservedGeneration: 2,
      conditions: [
        { type: 'Scheduled', status: 'True', reason: 'Success', message: 'ok', lastTransitionTime: iso(0) },
      ],
      ...status,
    },
  };
}
