import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonSchemaProps } from '../../../src/api/crd.ts';
import { DEFAULT_TARGET_TYPES } from '../../../src/federation-types/defaults.ts';
import { ftcNameFor } from '../../../src/federation-types/federate-names.ts';
import {
  federatedCrdFor,
  federatedCrdName,
  federatedTypeConfigFor,
  workloadColumnsFor,
} from '../../../src/federation-types/federated-crd.ts';
import type { TargetTypeInfo } from '../../../src/federation-types/target.ts';

function target(plural: string, group: string): TargetTypeInfo {
  const t = DEFAULT_TARGET_TYPES.find((x) => x.plural === plural && x.group === group);
  assert.ok(t, `default target ${plural}.${group}`);
  return t;
}

const etcd: TargetTypeInfo = {
  group: 'etcd.database.coreos.com',
  version: 'v1beta2',
  kind: 'EtcdCluster',
  plural: 'etcdclusters',
  singular: 'etcdcluster',
  shortNames: ['etcd'],
  namespaced: true,
  scalable: false,
  hasSchema: true,
};

const specOf = (s: JsonSchemaProps) => s.properties?.['spec']?.properties ?? {};
const schemaOf = (t: TargetTypeInfo) => federatedCrdFor(t).spec.versions[0]!.schema.openAPIV3Schema;

describe('federatedTypeConfigFor', () => {
  test('deployments.apps: FTC named plural.group with target and federated types (GenerateTypeConfigForTarget)', () => {
    const ftc = federatedTypeConfigFor(target('deployments', 'apps'), {
      namespace: 'kube-federation-system',
    });
    assert.deepEqual(ftc, {
      apiVersion: 'core.kubefed.io/v1beta1',
      kind: 'FederatedTypeConfig',
      metadata: { name: 'deployments.apps', namespace: 'kube-federation-system' },
      spec: {
        targetType: {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          pluralName: 'deployments',
          scope: 'Namespaced',
        },
        propagation: 'Enabled',
        federatedType: {
          group: 'types.kubefed.io',
          version: 'v1beta1',
          kind: 'FederatedDeployment',
          pluralName: 'federateddeployments',
          scope: 'Namespaced',
        },
      },
    });
    assert.equal(federatedCrdName(ftc), 'federateddeployments.types.kubefed.io');
  });

  test('namespaces: core group has no group field; the federated type is Namespaced', () => {
    const ftc = federatedTypeConfigFor(target('namespaces', ''), { namespace: 'ns' });
    assert.equal(ftc.metadata.name, 'namespaces');
    assert.deepEqual(ftc.spec.targetType, {
      version: 'v1',
      kind: 'Namespace',
      pluralName: 'namespaces',
      scope: 'Cluster',
    });
    assert.equal(ftc.spec.federatedType.scope, 'Namespaced');
    assert.equal(ftc.spec.federatedType.kind, 'FederatedNamespace');
  });

  test('cluster-scoped targets other than namespaces stay Cluster-scoped', () => {
    const ftc = federatedTypeConfigFor(target('clusterroles', 'rbac.authorization.k8s.io'), {
      namespace: 'ns',
    });
    assert.equal(ftc.metadata.name, 'clusterroles.rbac.authorization.k8s.io');
    assert.equal(ftc.spec.federatedType.scope, 'Cluster');
    assert.equal(federatedCrdFor(target('clusterroles', 'rbac.authorization.k8s.io')).spec.scope, 'Cluster');
  });

  test('federated group/version and statusCollection are honoured', () => {
    const ftc = federatedTypeConfigFor(etcd, {
      namespace: 'ns',
      federatedGroup: 'other.example.io',
      federatedVersion: 'v1',
      statusCollection: true,
    });
    assert.equal(ftc.metadata.name, 'etcdclusters.etcd.database.coreos.com');
    assert.equal(ftc.spec.federatedType.group, 'other.example.io');
    assert.equal(ftc.spec.federatedType.version, 'v1');
    assert.equal(ftc.spec.statusCollection, 'Enabled');
    assert.equal(federatedCrdName(ftc), 'federatedetcdclusters.other.example.io');
    assert.equal(
      federatedTypeConfigFor(etcd, { namespace: 'ns', statusCollection: false }).spec.statusCollection,
      'Disabled',
    );
    assert.ok(!('statusCollection' in federatedTypeConfigFor(etcd, { namespace: 'ns' }).spec));
  });
});

describe('federatedCrdFor', () => {
  test('deployments: names, scope, one served+storage version with a status subresource', () => {
    const crd = federatedCrdFor(target('deployments', 'apps'));
    assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(crd.metadata.name, 'federateddeployments.types.kubefed.io');
    assert.equal(crd.spec.group, 'types.kubefed.io');
    assert.equal(crd.spec.scope, 'Namespaced');
    assert.deepEqual(crd.spec.names, {
      kind: 'FederatedDeployment',
      listKind: 'FederatedDeploymentList',
      plural: 'federateddeployments',
      singular: 'federateddeployment',
      shortNames: ['fdeploy'],
    });
    assert.equal(crd.spec.versions.length, 1);
    const v = crd.spec.versions[0]!;
    assert.equal(v.name, 'v1beta1');
    assert.equal(v.served, true);
    assert.equal(v.storage, true);
    assert.deepEqual(v.subresources, { status: {} });
  });

  test('namespaces: FederatedNamespace is Namespaced with short name fns', () => {
    const crd = federatedCrdFor(target('namespaces', ''));
    assert.equal(crd.metadata.name, 'federatednamespaces.types.kubefed.io');
    assert.equal(crd.spec.scope, 'Namespaced');
    assert.deepEqual(crd.spec.names.shortNames, ['fns']);
    assert.ok(!('retainReplicas' in specOf(schemaOf(target('namespaces', '')))));
  });

  test('a CRD target: EtcdCluster becomes FederatedEtcdCluster / fetcd', () => {
    const crd = federatedCrdFor(etcd);
    assert.equal(crd.metadata.name, 'federatedetcdclusters.types.kubefed.io');
    assert.deepEqual(crd.spec.names, {
      kind: 'FederatedEtcdCluster',
      listKind: 'FederatedEtcdClusterList',
      plural: 'federatedetcdclusters',
      singular: 'federatedetcdcluster',
      shortNames: ['fetcd'],
    });
  });

  test('targets without short names get none (jobs, secrets, clusterroles)', () => {
    for (const [p, g] of [
      ['jobs', 'batch'],
      ['secrets', ''],
      ['clusterroles', 'rbac.authorization.k8s.io'],
    ] as const) {
      assert.ok(!('shortNames' in federatedCrdFor(target(p, g)).spec.names), `${p}`);
    }
  });

  test('schema: top level requires spec; placement, overrides and status as in federatedTypeValidationSchema', () => {
    const s = schemaOf(target('configmaps', ''));
    assert.equal(s.type, 'object');
    assert.deepEqual(s.required, ['spec']);
    assert.deepEqual(s.properties?.['metadata'], { type: 'object' });
    const spec = specOf(s);
    assert.deepEqual(spec['template'], { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(spec['placement'], {
      type: 'object',
      properties: {
        clusters: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        clusterSelector: {
          type: 'object',
          properties: {
            matchLabels: { type: 'object', additionalProperties: { type: 'string' } },
            matchExpressions: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  key: { type: 'string' },
                  operator: { type: 'string' },
                  values: { type: 'array', items: { type: 'string' } },
                },
                required: ['key', 'operator'],
              },
            },
          },
        },
      },
    });
    const override = spec['overrides']?.items?.properties?.['clusterOverrides']?.items;
    assert.equal(spec['overrides']?.items?.properties?.['clusterName']?.type, 'string');
    assert.deepEqual(override?.required, ['path']);
    assert.equal(override?.properties?.['op']?.pattern, '^(add|remove|replace)?$');
    assert.deepEqual(override?.properties?.['value'], { 'x-kubernetes-preserve-unknown-fields': true });

    const status = s.properties?.['status']?.properties ?? {};
    assert.deepEqual(status['observedGeneration'], { type: 'integer', format: 'int64' });
    const cond = status['conditions']?.items;
    assert.deepEqual(cond?.required, ['type', 'status']);
    assert.equal(cond?.properties?.['lastUpdateTime']?.format, 'date-time');
    assert.equal(cond?.properties?.['lastTransitionTime']?.format, 'date-time');
    assert.equal(cond?.properties?.['reason']?.type, 'string');
    const cluster = status['clusters']?.items;
    assert.deepEqual(cluster?.required, ['name']);
    assert.equal(cluster?.properties?.['status']?.type, 'string');
    assert.equal(cluster?.properties?.['remoteStatus']?.['x-kubernetes-preserve-unknown-fields'], true);
    assert.deepEqual(status['aggregate'], { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });

  test('retainReplicas only for scalable targets; template only when the target has a schema', () => {
    assert.deepEqual(specOf(schemaOf(target('deployments', 'apps')))['retainReplicas'], { type: 'boolean' });
    assert.deepEqual(specOf(schemaOf(target('replicasets', 'apps')))['retainReplicas'], { type: 'boolean' });
    for (const [p, g] of [
      ['jobs', 'batch'],
      ['services', ''],
      ['configmaps', ''],
    ] as const) {
      assert.ok(!('retainReplicas' in specOf(schemaOf(target(p, g)))), p);
    }
    assert.ok(!('retainReplicas' in specOf(schemaOf(etcd))));
    assert.ok('retainReplicas' in specOf(schemaOf({ ...etcd, scalable: true })));
    const noSchema = specOf(schemaOf({ ...etcd, hasSchema: false }));
    assert.ok(!('template' in noSchema));
    assert.ok('placement' in noSchema && 'overrides' in noSchema);
  });
});

describe('printer columns', () => {
  const columns = (t: TargetTypeInfo) =>
    (federatedCrdFor(t).spec.versions[0]!.additionalPrinterColumns ?? []).map(
      (c) => `${c.name}:${c.type}:${c.jsonPath}`,
    );

  test('every type: Propagated first, Age last', () => {
    assert.deepEqual(columns(target('configmaps', '')), [
      "Propagated:string:.status.conditions[?(@.type=='Propagation')].status",
      'Age:date:.metadata.creationTimestamp',
    ]);
    assert.equal(columns(etcd).length, 2);
  });

  test('workload kinds show the aggregate replica counts and cluster health', () => {
    assert.deepEqual(columns(target('deployments', 'apps')), [
      "Propagated:string:.status.conditions[?(@.type=='Propagation')].status",
      'Replicas:integer:.status.aggregate.replicas',
      'Ready:integer:.status.aggregate.readyReplicas',
      'Available:integer:.status.aggregate.availableReplicas',
      'Healthy-Clusters:integer:.status.aggregate.healthyClusters',
      'Clusters:integer:.status.aggregate.clusters',
      'Age:date:.metadata.creationTimestamp',
    ]);
    assert.deepEqual(
      columns(target('replicasets', 'apps')).slice(1, -1),
      columns(target('deployments', 'apps')).slice(1, -1),
    );
    for (const kind of ['StatefulSet', 'DaemonSet']) assert.equal(workloadColumnsFor(kind).length, 5, kind);
  });

  test('jobs show active/succeeded/failed and cluster health', () => {
    assert.deepEqual(columns(target('jobs', 'batch')).slice(1, -1), [
      'Active:integer:.status.aggregate.active',
      'Succeeded:integer:.status.aggregate.succeeded',
      'Failed:integer:.status.aggregate.failed',
      'Healthy-Clusters:integer:.status.aggregate.healthyClusters',
      'Clusters:integer:.status.aggregate.clusters',
    ]);
  });

  test('non-workload kinds have no workload columns', () => {
    assert.deepEqual(workloadColumnsFor('ConfigMap'), []);
    assert.deepEqual(workloadColumnsFor('EtcdCluster'), []);
  });
});

test('ftcNameFor: plural for the core group, plural.group otherwise', () => {
  assert.equal(ftcNameFor({ plural: 'configmaps', group: '' }), 'configmaps');
  assert.equal(
    ftcNameFor({ plural: 'ingresses', group: 'networking.k8s.io' }),
    'ingresses.networking.k8s.io',
  );
});
