import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { CoreTypes, type KubeClient } from '../../src/kube/client/index.ts';
import { binary } from '../../src/testing/binaries.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventually,
  FED_GROUP,
  FED_VERSION,
  type FedObject,
  startPropagation,
  T,
} from './federation-helpers.ts';

const NSX = 'apps';

describe('aggregated workload status from kwok-backed members', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;

  before(async () => {
    fed = await startFederation({ members: ['cluster1', 'cluster2'], workloads: true });
    ({ host, cm } = await startPropagation(fed));
    await createFederatedNamespace(host, NSX);
  });
  after(async () => {
    await cm?.process.stop();
    await fed?.stop();
  });

  test('ready replicas are summed across clusters and drop when a member cannot run its pods', async () => {
    await host.create(T.fdeploy, {
      apiVersion: `${FED_GROUP}/${FED_VERSION}`,
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: NSX },
      spec: {
        template: {
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'web', image: 'nginx' }] },
            },
          },
        },
        placement: { clusterSelector: {} },
        overrides: [{ clusterName: 'cluster2', clusterOverrides: [{ path: '/spec/replicas', value: 3 }] }],
      },
    });
    const healthy = await eventually(
      'aggregate: 5/5 ready in 2/2 healthy clusters',
      () => host.get<FedObject>(T.fdeploy, 'web', NSX),
      (o) => o.status?.aggregate?.readyReplicas === 5 && o.status.aggregate.healthyClusters === 2,
      120_000,
    );
    assert.deepEqual(
      { ...healthy.status?.aggregate },
      {
        clusters: 2,
        healthyClusters: 2,
        replicas: 5,
        readyReplicas: 5,
        availableReplicas: 5,
        updatedReplicas: 5,
      },
    );
    const c2 = healthy.status?.clusters?.find((c) => c.name === 'cluster2');
    assert.equal(
      (c2?.remoteStatus as { readyReplicas?: number })?.readyReplicas,
      3,
      'remoteStatus holds the member status',
    );

    // kubectl shows the aggregate in the printer columns.
    const table = execFileSync(
      binary('kubectl'),
      ['--kubeconfig', fed.kubeconfigPath, '--context', 'host', '-n', NSX, 'get', 'fdeploy', 'web'],
      {
        encoding: 'utf8',
      },
    );
    assert.match(
      table,
      /^NAME\s+PROPAGATED\s+REPLICAS\s+READY\s+AVAILABLE\s+HEALTHY-CLUSTERS\s+CLUSTERS\s+AGE/m,
    );
    assert.match(table, /^web\s+True\s+5\s+5\s+5\s+2\s+2\s+/m);

    // cluster2's nodes get a NoExecute taint: its pods are evicted and cannot be rescheduled.
    const member2 = fed.cluster('cluster2').client();
    const nodes = await member2.list(CoreTypes.nodes);
    for (const n of nodes.items) {
      await member2.patch(
        CoreTypes.nodes,
        n.metadata.name ?? '',
        { spec: { taints: [{ key: 'outage', value: 'yes', effect: 'NoExecute' }] } },
        {},
      );
    }
    const degraded = await eventually(
      'aggregate drops to cluster1 only',
      () => host.get<FedObject>(T.fdeploy, 'web', NSX),
      (o) => o.status?.aggregate?.readyReplicas === 2 && o.status.aggregate.healthyClusters === 1,
      120_000,
    );
    assert.equal(degraded.status?.aggregate?.replicas, 5);
    assert.ok(cm.process.running);
  });
});
