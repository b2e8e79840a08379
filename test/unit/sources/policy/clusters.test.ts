import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeFedCluster } from '../../../../src/api/core/v1beta1/kubefedcluster.ts';
import type { KubeObject } from '../../../../src/kube/client/types.ts';
import { policyClusterOf } from '../../../../src/sources/policy/clusters.ts';

const kfc = (
  extra: Partial<KubeFedCluster> & { labels?: Record<string, string> } = {},
): KubeFedCluster & KubeObject => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'KubeFedCluster',
  metadata: { name: 'member1', namespace: 'kube-federation-system', labels: extra.labels ?? {} },
  spec: { apiEndpoint: 'https://10.0.0.1:6443', secretRef: { name: 's' }, ...extra.spec },
  ...(extra.status ? { status: extra.status } : {}),
});
const ready = (status: string) => ({
  type: 'Ready' as const,
  status: status as 'True',
  lastProbeTime: '2026-01-01T00:00:00Z',
});

describe('policyClusterOf: a KubeFedCluster as policies see it', () => {
  test('labels, spec.provider, status.region and zones, Ready=True', () => {
    const c = policyClusterOf(
      kfc({
        labels: { env: 'prod' },
        spec: { apiEndpoint: 'x', secretRef: { name: 's' }, provider: 'aws' },
        status: { conditions: [ready('True')], region: 'eu-west-1', zones: ['eu-west-1a', 'eu-west-1b'] },
      }),
    );
    assert.deepEqual(c, {
      name: 'member1',
      labels: { env: 'prod' },
      provider: 'aws',
      region: 'eu-west-1',
      zones: ['eu-west-1a', 'eu-west-1b'],
      ready: true,
    });
  });

  test('no status: not ready, no zones, no region or provider', () => {
    assert.deepEqual(policyClusterOf(kfc()), { name: 'member1', labels: {}, zones: [], ready: false });
  });

  test('Ready=False and Ready=Unknown are not ready; an Offline condition alone is not ready either', () => {
    assert.equal(policyClusterOf(kfc({ status: { conditions: [ready('False')] } })).ready, false);
    assert.equal(policyClusterOf(kfc({ status: { conditions: [ready('Unknown')] } })).ready, false);
    const offline = {
      type: 'Offline' as const,
      status: 'True' as const,
      lastProbeTime: '2026-01-01T00:00:00Z',
    };
    assert.equal(policyClusterOf(kfc({ status: { conditions: [offline] } })).ready, false);
  });

  test('the result does not share the KubeFedCluster maps', () => {
    const source = kfc({ labels: { env: 'prod' }, status: { conditions: [], zones: ['z'] } });
    const c = policyClusterOf(source);
    assert.notEqual(c.labels, source.metadata.labels);
    assert.notEqual(c.zones, source.status?.zones);
  });
});
