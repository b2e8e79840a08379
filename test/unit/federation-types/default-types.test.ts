import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultFederatedTypes } from '../../../src/federation-types/default-types.ts';

const { crds, ftcs } = defaultFederatedTypes('kube-federation-system');

test('the ten default types of the Helm chart, with its federated kinds and short names (KubeFed chart)', () => {
  const table = ftcs.map((ftc, i) => {
    const crd = crds[i]!;
    return [
      ftc.metadata.name,
      `${ftc.spec.targetType.group ? `${ftc.spec.targetType.group}/` : ''}${ftc.spec.targetType.version}`,
      ftc.spec.targetType.kind,
      ftc.spec.targetType.scope,
      crd.spec.names.kind,
      crd.spec.scope,
      (crd.spec.names.shortNames ?? []).join(','),
    ].join(' ');
  });
  assert.deepEqual(table, [
    'clusterroles.rbac.authorization.k8s.io rbac.authorization.k8s.io/v1 ClusterRole Cluster FederatedClusterRole Cluster ',
    'configmaps v1 ConfigMap Namespaced FederatedConfigMap Namespaced fcm',
    'deployments.apps apps/v1 Deployment Namespaced FederatedDeployment Namespaced fdeploy',
    'ingresses.networking.k8s.io networking.k8s.io/v1 Ingress Namespaced FederatedIngress Namespaced fing',
    'jobs.batch batch/v1 Job Namespaced FederatedJob Namespaced ',
    'namespaces v1 Namespace Cluster FederatedNamespace Namespaced fns',
    'replicasets.apps apps/v1 ReplicaSet Namespaced FederatedReplicaSet Namespaced frs',
    'secrets v1 Secret Namespaced FederatedSecret Namespaced ',
    'serviceaccounts v1 ServiceAccount Namespaced FederatedServiceAccount Namespaced fsa',
    'services v1 Service Namespaced FederatedService Namespaced fsvc',
  ]);
});

test('FTCs live in the given namespace; CRD names are federated<plural>.types.kubefed.io', () => {
  for (const ftc of ftcs) assert.equal(ftc.metadata.namespace, 'kube-federation-system');
  assert.deepEqual(
    crds.map((c) => c.metadata.name),
    ftcs.map((f) => `${f.spec.federatedType.pluralName}.types.kubefed.io`),
  );
  assert.equal(new Set(crds.map((c) => c.metadata.name)).size, 10);
});

test('workload FTCs (deployments, replicasets, jobs) collect remote status; the others leave it unset', () => {
  const collecting = ftcs.filter((f) => f.spec.statusCollection === 'Enabled').map((f) => f.metadata.name);
  assert.deepEqual(collecting, ['deployments.apps', 'jobs.batch', 'replicasets.apps']);
  for (const f of ftcs) {
    if (!collecting.includes(f.metadata.name))
      assert.equal(f.spec.statusCollection, undefined, f.metadata.name);
    assert.equal(f.spec.propagation, 'Enabled');
  }
});

test('only deployments and replicasets get retainReplicas', () => {
  const retaining = crds
    .filter(
      (c) =>
        'retainReplicas' in
        (c.spec.versions[0]!.schema.openAPIV3Schema.properties?.['spec']?.properties ?? {}),
    )
    .map((c) => c.spec.names.kind);
  assert.deepEqual(retaining, ['FederatedDeployment', 'FederatedReplicaSet']);
});
