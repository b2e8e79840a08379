import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeClient, KubeObject, ResourceType } from '../../src/kube/client/index.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';
import { condition, kubefedctl, startControlPlane, waitForCluster } from './helpers.ts';

const Deployments: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};

describe('members that run workloads (controller-manager, scheduler, kwok)', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  before(async () => {
    fed = await startFederation({
      members: ['us-east'],
      workloads: true,
      nodes: (): Array<{ name: string; labels?: Record<string, string> }> => [
        {
          name: 'node-b',
          labels: {
            'topology.kubernetes.io/zone': 'us-east-1b',
            'topology.kubernetes.io/region': 'us-east-1',
          },
        },
        { name: 'node-a', labels: { 'failure-domain.beta.kubernetes.io/zone': 'us-east-1a' } },
      ],
    });
    ({ host, cm } = await startControlPlane(fed));
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('a Deployment in a member becomes available on kwok nodes', async () => {
    const member = fed.cluster('us-east').client();
    await waitFor('the default service account', async () => {
      await member.get(
        { group: '', version: 'v1', plural: 'serviceaccounts', namespaced: true },
        'default',
        'default',
      );
      return true;
    });
    await member.create(Deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    } as KubeObject);
    await waitFor(
      'the Deployment to be available',
      async () => {
        const d = await member.get<KubeObject & { status?: { availableReplicas?: number } }>(
          Deployments,
          'web',
          'default',
        );
        return d.status?.availableReplicas === 3;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
  });

  test('the health controller records the zones and region of the member from its nodes', async () => {
    const r = await kubefedctl([
      'join',
      'us-east',
      '--kubeconfig',
      fed.kubeconfigPath,
      '--host-cluster-context',
      'host',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const c = await waitForCluster(
      host,
      'us-east',
      'Ready with zones',
      (x) => condition(x, 'Ready')?.status === 'True' && Boolean(x.status?.zones),
    );
    assert.deepEqual(c.status?.zones, ['us-east-1a', 'us-east-1b']);
    assert.equal(c.status?.region, 'us-east-1');
  });
});
