import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import {
  federatedResourceFromTarget,
  federateOffline,
  parseTargetDocuments,
  toYamlDocuments,
} from '../../../src/kubefedctl/federate-convert.ts';

const DEFAULT_FED = { federatedGroup: 'types.kubefed.io', federatedVersion: 'v1beta1' };
const as = (kind: string, isNamespace = false) => ({
  ...DEFAULT_FED,
  federatedKind: `Federated${kind}`,
  isNamespace,
});

function deployment(namespace?: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      ...(namespace ? { namespace } : {}),
      uid: '0d7c',
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2024-01-01T00:00:00Z',
      ownerReferences: [],
      finalizers: ['example.com/x'],
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' }, creationTimestamp: null },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
    status: { replicas: 3, readyReplicas: 3 },
  };
}

describe('federatedResourceFromTarget (KubeFed federate_test.go)', () => {
  for (const namespace of ['foo', undefined]) {
    test(`an apps/v1 Deployment ${namespace ? 'with' : 'without'} a namespace becomes a FederatedDeployment`, () => {
      const target = deployment(namespace);
      const { object, warnings } = federatedResourceFromTarget(target, as('Deployment'));
      assert.equal(object.kind, 'FederatedDeployment');
      assert.equal(object.apiVersion, 'types.kubefed.io/v1beta1');
      assert.equal(object.metadata.name, 'web');
      assert.equal(object.metadata.namespace, namespace);
      assert.ok(namespace || !('namespace' in object.metadata), 'no namespace field without a namespace');
      assert.deepEqual(object.spec.template['spec'], target['spec']);
      assert.deepEqual(warnings, []);
    });
  }

  test('apiVersion, kind, status and all metadata but labels leave the template; placement is all clusters', () => {
    const target = deployment('foo');
    target.metadata.labels = { app: 'web', tier: 'front' };
    const { object } = federatedResourceFromTarget(target, as('Deployment'));
    assert.deepEqual(object, {
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedDeployment',
      metadata: { name: 'web', namespace: 'foo' },
      spec: {
        template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: target['spec'] },
        placement: { clusterSelector: { matchLabels: {} } },
      },
    });
  });

  test('the target is not modified', () => {
    const target = deployment('foo');
    const before = structuredClone(target);
    federatedResourceFromTarget(target, as('Deployment'));
    assert.deepEqual(target, before);
  });

  test('annotations are warned about, by key, and dropped', () => {
    const target = deployment('foo');
    target.metadata.annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': '{"a":1}',
      'example.com/owner': 'team-a',
    };
    const { object, warnings } = federatedResourceFromTarget(target, as('Deployment'));
    assert.deepEqual(warnings, [
      'Annotations defined for Deployment "foo/web" will not appear in the template of the federated ' +
        'resource: example.com/owner, kubectl.kubernetes.io/last-applied-configuration',
    ]);
    assert.equal(object.spec.template['metadata'], undefined);
  });

  test('Namespace: the federated object lives in the namespace itself; spec.finalizers is dropped', () => {
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo', labels: { team: 'a' }, uid: 'u' },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
    const { object } = federatedResourceFromTarget(ns, as('Namespace', true));
    assert.deepEqual(object, {
      apiVersion: 'types.kubefed.io/v1beta1',
      kind: 'FederatedNamespace',
      metadata: { name: 'demo', namespace: 'demo' },
      spec: {
        template: { metadata: { labels: { team: 'a' } }, spec: {} },
        placement: { clusterSelector: { matchLabels: {} } },
      },
    });
  });

  test('ServiceAccount: secrets are dropped, the rest is kept', () => {
    const sa: KubeObject = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder', namespace: 'ci' },
      secrets: [{ name: 'builder-token-abcde' }],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    };
    const { object } = federatedResourceFromTarget(sa, as('ServiceAccount'));
    assert.deepEqual(object.spec.template, {
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    });
  });

  test('Service: nodePorts, clusterIP and clusterIPs are dropped, the rest is kept', () => {
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'demo' },
      spec: {
        type: 'NodePort',
        clusterIP: '10.0.0.12',
        clusterIPs: ['10.0.0.12'],
        ipFamilies: ['IPv4'],
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 30080 },
          { name: 'https', port: 443, protocol: 'TCP' },
        ],
      },
      status: { loadBalancer: {} },
    };
    const { object } = federatedResourceFromTarget(svc, as('Service'));
    assert.deepEqual(object.spec.template, {
      spec: {
        type: 'NodePort',
        ipFamilies: ['IPv4'],
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
          { name: 'https', port: 443, protocol: 'TCP' },
        ],
      },
    });
  });

  test('a headless Service keeps clusterIP None (kubefed-ts: KubeFed dropped it)', () => {
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'db', namespace: 'demo' },
      spec: { clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 5432 }] },
    };
    const { object } = federatedResourceFromTarget(svc, as('Service'));
    assert.deepEqual(object.spec.template, {
      spec: { clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 5432 }] },
    });
  });

  test('kind-specific rules follow the type kind, for list items that carry no kind', () => {
    const item: KubeObject = { metadata: { name: 'sa', namespace: 'x' }, secrets: [{ name: 't' }] };
    const { object } = federatedResourceFromTarget(item, {
      ...as('ServiceAccount'),
      targetKind: 'ServiceAccount',
    });
    assert.deepEqual(object.spec.template, {});
  });

  test('a non-default federated group and version', () => {
    const { object } = federatedResourceFromTarget(deployment('x'), {
      federatedGroup: 'fed.example.io',
      federatedVersion: 'v1',
      federatedKind: 'FederatedDeployment',
      isNamespace: false,
    });
    assert.equal(object.apiVersion, 'fed.example.io/v1');
  });

  test('a cluster-scoped target gives a federated object without namespace', () => {
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    };
    const { object } = federatedResourceFromTarget(role, as('ClusterRole'));
    assert.deepEqual(object.metadata, { name: 'reader' });
    assert.deepEqual(object.spec.template, { rules: role['rules'] });
  });
});

describe('offline federation (-f)', () => {
  const input = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    '  namespace: demo',
    '  labels: {app: web}',
    'spec:',
    '  replicas: 2',
    '---',
    '# only a comment',
    '---',
    'apiVersion: v1',
    'kind: Namespace',
    'metadata: {name: demo}',
    'spec: {finalizers: [kubernetes]}',
    '---',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRole',
    'metadata: {name: reader}',
    'rules: []',
    '---',
    'apiVersion: example.com/v1',
    'kind: Policy',
    'metadata: {name: p, namespace: demo}',
    'spec: {x: 1}',
    '',
  ].join('\n');

  test('multi-document YAML: empty documents are skipped', () => {
    const docs = parseTargetDocuments(input);
    assert.deepEqual(
      docs.map((d) => d.kind),
      ['Deployment', 'Namespace', 'ClusterRole', 'Policy'],
    );
  });

  test('each object becomes the federated object of the default type config', () => {
    const { objects, warnings } = federateOffline(parseTargetDocuments(input));
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      objects.map((o) => [o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name]),
      [
        ['types.kubefed.io/v1beta1', 'FederatedDeployment', 'demo', 'web'],
        ['types.kubefed.io/v1beta1', 'FederatedNamespace', 'demo', 'demo'],
        ['types.kubefed.io/v1beta1', 'FederatedClusterRole', undefined, 'reader'],
        ['types.kubefed.io/v1beta1', 'FederatedPolicy', 'demo', 'p'],
      ],
    );
    assert.deepEqual(objects[0]?.spec.template, {
      metadata: { labels: { app: 'web' } },
      spec: { replicas: 2 },
    });
    assert.deepEqual(objects[1]?.spec.template, { spec: {} }, 'namespace finalizers dropped');
  });

  test('the federated group and version can be chosen', () => {
    const { objects } = federateOffline(parseTargetDocuments(input), {
      federatedGroup: 'fed.example.io',
      federatedVersion: 'v1alpha1',
    });
    assert.ok(objects.every((o) => o.apiVersion === 'fed.example.io/v1alpha1'));
  });

  test('the output is ---separated YAML that parses back to the objects', () => {
    const { objects } = federateOffline(parseTargetDocuments(input));
    const text = toYamlDocuments(objects);
    assert.ok(
      text.startsWith('---\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedDeployment\n'),
      text,
    );
    assert.equal(text.match(/^---$/gm)?.length, 4);
    assert.deepEqual(
      parseAllDocuments(text).map((d) => d.toJS()),
      objects,
    );
  });

  test('a List (kubectl get -o yaml) contributes its items', () => {
    const list = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: n}, data: {k: v}}',
      '- {apiVersion: v1, kind: Secret, metadata: {name: b, namespace: n}, type: Opaque}',
    ].join('\n');
    const { objects } = federateOffline(parseTargetDocuments(list));
    assert.deepEqual(
      objects.map((o) => o.kind),
      ['FederatedConfigMap', 'FederatedSecret'],
    );
    assert.deepEqual(objects[0]?.spec.template, { data: { k: 'v' } });
  });

  test('invalid input is rejected with the document number', () => {
    assert.throws(() => parseTargetDocuments('a: [1'), /^Error: document 1: /);
    assert.throws(
      () => parseTargetDocuments('kind: ConfigMap\nmetadata: {name: x}\n'),
      /document 1: apiVersion and kind are required/,
    );
    assert.throws(
      () =>
        parseTargetDocuments(
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: X\n',
        ),
      /document 2: metadata.name is required/,
    );
    assert.throws(() => parseTargetDocuments('- 1\n- 2\n'), /document 1: not an object/);
  });
});
