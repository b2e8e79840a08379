import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterCondition } from '../../../src/api/core/v1beta1/kubefedcluster.ts';
import { type ClusterObject, clusterChangeFingerprint } from '../../../src/members/cluster-registry.ts';

const cluster = (status: ClusterObject['status']): ClusterObject => ({
  metadata: { name: 'a', namespace: 'kube-federation-system' },
  spec: { apiEndpoint: 'https://a', secretRef: { name: 'a' } },
  ...(status ? { status } : {}),
});
const ready = (at: string): ClusterCondition[] => [
  { type: 'Ready', status: 'True', lastProbeTime: at, lastTransitionTime: at },
];

describe('clusterChangeFingerprint', () => {
  it('changes when the health controller learns the region or the zones (the scheduler spreads by them)', () => {
    const before = clusterChangeFingerprint(cluster({ conditions: ready('t1') }), '1');
    const region = clusterChangeFingerprint(cluster({ conditions: ready('t1'), region: 'eu' }), '1');
    const zones = clusterChangeFingerprint(
      cluster({ conditions: ready('t1'), region: 'eu', zones: ['eu-1'] }),
      '1',
    );
    assert.notEqual(before, region);
    assert.notEqual(region, zones);
  });
  it('does not change with each probe (lastProbeTime) or with the zones listed in another order', () => {
    assert.equal(
      clusterChangeFingerprint(cluster({ conditions: ready('t1'), zones: ['b', 'a'] }), '1'),
      clusterChangeFingerprint(cluster({ conditions: ready('t2'), zones: ['a', 'b'] }), '1'),
    );
  });
});
