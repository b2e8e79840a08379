import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiVersionOf, type KubeObject } from '../../../src/kube/client/index.ts';
import {
  addManagedLabel,
  buildClusterObject,
  ComputeResourceError,
  desiredObject,
  dropNullFields,
  type TargetType,
} from '../../../src/propagation/desired.ts';
import { JsonPatchError } from '../../../src/propagation/json-patch.ts';
import { OverridesError, parseOverrides } from '../../../src/propagation/overrides.ts';
import { FieldRetentionError } from '../../../src/propagation/retain.ts';

const deployment: TargetType = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
};
const configMap: TargetType = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
const namespace: TargetType = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
const clusterRole: TargetType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
};

const ANNOTATIONS_MESSAGE =
  'metadata.annotations cannot be set via template to avoid conflicting with controllers in member clusters. Consider using an override to add or remove elements from this collection.';
const FINALIZERS_MESSAGE =
  'metadata.finalizers cannot be set via template to avoid conflicting with controllers in member clusters. Consider using an override to add or remove elements from this collection.';

describe('desiredObject', () => {
  test('identity comes from the federated object and the FTC', () => {
    const { object, warnings } = desiredObject({
      template: {
        kind: 'Ignored',
        metadata: { name: 'ignored', namespace: 'ignored', labels: { app: 'web' } },
        spec: { replicas: 3 },
      },
      name: 'web',
      namespace: 'prod',
      target: deployment,
    });
    assert.deepEqual(object, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'prod', labels: { app: 'web' } },
      spec: { replicas: 3 },
    });
    assert.deepEqual(warnings, []);
  });

  test('core types get "v1", not KubeFed\'s "/v1"', () => {
    assert.equal(
      desiredObject({ template: {}, name: 'c', namespace: 'n', target: configMap }).object.apiVersion,
      'v1',
    );
    assert.equal(apiVersionOf(configMap), 'v1');
    assert.equal(apiVersionOf(clusterRole), 'rbac.authorization.k8s.io/v1');
  });

  test("the template's own apiVersion is kept; an empty one is defaulted", () => {
    const own = desiredObject({
      template: { apiVersion: 'apps/v1beta2' },
      name: 'd',
      namespace: 'n',
      target: deployment,
    });
    assert.equal(own.object.apiVersion, 'apps/v1beta2');
    const empty = desiredObject({
      template: { apiVersion: '' },
      name: 'd',
      namespace: 'n',
      target: deployment,
    });
    assert.equal(empty.object.apiVersion, 'apps/v1');
  });

  test('a missing or null template is an empty object (namespaces)', () => {
    for (const template of [undefined, null]) {
      assert.deepEqual(desiredObject({ template, name: 'ns1', namespace: 'ns1', target: namespace }).object, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'ns1' },
      });
    }
  });

  test('no namespace for Namespace targets and cluster-scoped targets', () => {
    const ns = desiredObject({
      template: { metadata: { namespace: 'x' } },
      name: 'ns1',
      namespace: 'ns1',
      target: namespace,
    });
    assert.equal(ns.object.metadata.namespace, undefined);
    const cr = desiredObject({ template: { rules: [] }, name: 'admin', target: clusterRole });
    assert.deepEqual(cr.object, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'admin' },
      rules: [],
    });
  });

  test('a Namespace template keeps its labels and spec', () => {
    const { object } = desiredObject({
      template: { metadata: { labels: { team: 'a' } }, spec: { finalizers: ['kubernetes'] } },
      name: 'ns1',
      namespace: 'ns1',
      target: namespace,
    });
    assert.deepEqual(object.metadata, { name: 'ns1', labels: { team: 'a' } });
    assert.deepEqual(object.spec, { finalizers: ['kubernetes'] });
  });

  test("annotations and finalizers are dropped with KubeFed's warnings", () => {
    const { object, warnings } = desiredObject({
      template: { metadata: { annotations: { a: 'b' }, finalizers: ['f'] } },
      name: 'c',
      namespace: 'n',
      target: configMap,
    });
    assert.deepEqual(object.metadata, { name: 'c', namespace: 'n' });
    assert.deepEqual(warnings, [
      { reason: 'AnnotationsNotSupported', message: ANNOTATIONS_MESSAGE },
      { reason: 'FinalizersNotSupported', message: FINALIZERS_MESSAGE },
    ]);
  });

  test('empty annotations and finalizers are dropped silently', () => {
    const { object, warnings } = desiredObject({
      template: { metadata: { annotations: {}, finalizers: [] } },
      name: 'c',
      namespace: 'n',
      target: configMap,
    });
    assert.deepEqual(object.metadata, { name: 'c', namespace: 'n' });
    assert.deepEqual(warnings, []);
  });

  test('server-owned metadata is stripped', () => {
    const { object } = desiredObject({
      template: {
        metadata: {
          labels: {},
          resourceVersion: '1',
          uid: 'u',
          generation: 3,
          creationTimestamp: '2020-01-01T00:00:00Z',
          deletionTimestamp: '2020-01-01T00:00:00Z',
          managedFields: [{}],
          ownerReferences: [{}],
          selfLink: '/x',
          generateName: 'x-',
        },
        data: { a: 'b' },
        status: { kept: true },
      },
      name: 'c',
      namespace: 'n',
      target: configMap,
    });
    assert.deepEqual(object, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'n', labels: {} },
      data: { a: 'b' },
      status: { kept: true },
    });
  });

  test('the template is deep-copied', () => {
    const template = { metadata: { labels: { a: 'b' } }, data: { k: 'v' } };
    const { object } = desiredObject({ template, name: 'c', namespace: 'n', target: configMap });
    object.metadata.labels!.x = 'y';
    (object.data as Record<string, string>).k = 'changed';
    assert.deepEqual(template, { metadata: { labels: { a: 'b' } }, data: { k: 'v' } });
  });

  test('invalid templates throw ComputeResourceError', () => {
    for (const template of [
      'x',
      5,
      [],
      true,
      { metadata: 'x' },
      { metadata: [] },
      { metadata: { labels: { a: 1 } } },
      { apiVersion: 3 },
    ])
      assert.throws(
        () => desiredObject({ template, name: 'c', namespace: 'n', target: configMap }),
        ComputeResourceError,
        JSON.stringify(template),
      );
  });
});

describe('addManagedLabel', () => {
  test('adds the label, keeping others', () => {
    const obj: KubeObject = { metadata: { labels: { a: 'b', 'kubefed.io/managed': 'false' } } };
    addManagedLabel(obj);
    assert.deepEqual(obj.metadata.labels, { a: 'b', 'kubefed.io/managed': 'true' });
    const bare: KubeObject = { metadata: {} };
    addManagedLabel(bare);
    assert.deepEqual(bare.metadata.labels, { 'kubefed.io/managed': 'true' });
  });
});

describe('buildClusterObject', () => {
  // KubeFed example/sample1 (federateddeployment.yaml).
  const template = {
    metadata: { labels: { app: 'nginx' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
      },
    },
  };
  const overrides = parseOverrides([
    {
      clusterName: 'cluster2',
      clusterOverrides: [
        { path: '/spec/replicas', value: 5 },
        { path: '/spec/template/spec/containers/0/image', value: 'nginx:1.17.0-alpine' },
        { op: 'add', path: '/metadata/annotations', value: { foo: 'bar' } },
        { op: 'remove', path: '/metadata/annotations/foo' },
      ],
    },
  ]);
  const build = (cluster: string, member?: KubeObject) =>
    buildClusterObject({
      template,
      name: 'test-deployment',
      namespace: 'test-namespace',
      target: deployment,
      retainReplicas: false,
      member,
      overrides: overrides.get(cluster) ?? [],
    });

  test('worked example: cluster1 gets the template', () => {
    const { object, warnings } = build('cluster1');
    assert.deepEqual(warnings, []);
    assert.deepEqual(object, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'test-deployment',
        namespace: 'test-namespace',
        labels: { app: 'nginx', 'kubefed.io/managed': 'true' },
      },
      spec: template.spec,
    });
  });

  test('worked example: cluster2 gets 5 replicas, the alpine image and no foo annotation', () => {
    const { object } = build('cluster2');
    const spec = object.spec as typeof template.spec;
    assert.equal(spec.replicas, 5);
    assert.equal(spec.template.spec.containers[0]?.image, 'nginx:1.17.0-alpine');
    assert.deepEqual(object.metadata.annotations, {});
    assert.deepEqual(object.metadata.labels, { app: 'nginx', 'kubefed.io/managed': 'true' });
    assert.equal(template.spec.replicas, 3, 'template untouched');
  });

  test('update path: retention happens before overrides', () => {
    const member: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'test-deployment',
        namespace: 'test-namespace',
        resourceVersion: '77',
        annotations: { rev: '2' },
      },
      spec: { replicas: 9 },
    };
    const { object } = buildClusterObject({
      template,
      name: 'test-deployment',
      namespace: 'test-namespace',
      target: deployment,
      retainReplicas: true,
      member,
      overrides: parseOverrides([
        {
          clusterName: 'c',
          clusterOverrides: [{ op: 'add', path: '/metadata/annotations/extra', value: 'x' }],
        },
      ]).get('c')!,
    });
    assert.equal(object.metadata.resourceVersion, '77');
    assert.deepEqual(object.metadata.annotations, { rev: '2', extra: 'x' });
    assert.equal((object.spec as { replicas: number }).replicas, 9);
  });

  test('overrides win over retained replicas', () => {
    const member: KubeObject = { metadata: { name: 'test-deployment' }, spec: { replicas: 9 } };
    const { object } = buildClusterObject({
      template,
      name: 'test-deployment',
      namespace: 'test-namespace',
      target: deployment,
      retainReplicas: true,
      member,
      overrides: [{ op: 'replace', path: '/spec/replicas', value: 1 }],
    });
    assert.equal((object.spec as { replicas: number }).replicas, 1);
  });

  test('overrides cannot remove the managed label', () => {
    const { object } = buildClusterObject({
      template,
      name: 'd',
      namespace: 'n',
      target: deployment,
      retainReplicas: false,
      overrides: [{ op: 'replace', path: '/metadata/labels', value: { 'kubefed.io/managed': 'false' } }],
    });
    assert.deepEqual(object.metadata.labels, { 'kubefed.io/managed': 'true' });
  });

  test('/apiVersion may be overridden', () => {
    const { object } = buildClusterObject({
      template,
      name: 'd',
      namespace: 'n',
      target: deployment,
      retainReplicas: false,
      overrides: [{ op: 'replace', path: '/apiVersion', value: 'apps/v1beta2' }],
    });
    assert.equal(object.apiVersion, 'apps/v1beta2');
  });

  const withOverride = (
    ops: { op: 'add' | 'remove' | 'replace'; path: string; value?: unknown }[],
    target = deployment,
  ) =>
    buildClusterObject({
      template,
      name: 'd',
      namespace: 'n',
      target,
      retainReplicas: false,
      overrides: ops,
    });

  test('errors propagate with their own class', () => {
    assert.throws(() => withOverride([{ op: 'remove', path: '/spec/missing' }]), JsonPatchError);
    assert.throws(
      () =>
        buildClusterObject({
          template: 'x',
          name: 'd',
          namespace: 'n',
          target: deployment,
          retainReplicas: false,
          overrides: [],
        }),
      ComputeResourceError,
    );
    assert.throws(
      () =>
        buildClusterObject({
          template,
          name: 'd',
          namespace: 'n',
          target: deployment,
          retainReplicas: true,
          member: { metadata: {}, spec: { replicas: 'x' } },
          overrides: [],
        }),
      FieldRetentionError,
    );
  });

  test('overrides that slip past the forbidden list cannot change the identity', () => {
    const cases: { op: 'add' | 'remove' | 'replace'; path: string; value?: unknown }[][] = [
      [{ op: 'replace', path: '/metadata', value: { name: 'other', namespace: 'n' } }],
      [{ op: 'replace', path: '/metadata', value: { name: 'd', namespace: 'other' } }],
      [{ op: 'replace', path: '/metadata', value: { name: 'd' } }],
      [{ op: 'add', path: '/metadata/generateName', value: 'x-' }],
      [
        {
          op: 'replace',
          path: '',
          value: { apiVersion: 'apps/v1', kind: 'Secret', metadata: { name: 'd', namespace: 'n' } },
        },
      ],
      [{ op: 'remove', path: '/metadata' }],
      [{ op: 'remove', path: '/apiVersion' }],
      [{ op: 'replace', path: '/apiVersion', value: 3 }],
      [{ op: 'replace', path: '/metadata/labels', value: 'x' }],
      [{ op: 'replace', path: '/metadata/labels', value: { a: 1 } }],
    ];
    for (const ops of cases) assert.throws(() => withOverride(ops), OverridesError, JSON.stringify(ops));
  });

  test('replacing the whole object with a scalar changes nothing, as in evanphx/json-patch v4', () => {
    const { object } = withOverride([{ op: 'replace', path: '', value: 'x' }]);
    assert.deepEqual(object, withOverride([]).object);
  });

  test('a /metadata replacement keeping the identity is accepted', () => {
    const { object } = withOverride([
      { op: 'replace', path: '/metadata', value: { name: 'd', namespace: 'n', labels: { x: 'y' } } },
    ]);
    assert.deepEqual(object.metadata, {
      name: 'd',
      namespace: 'n',
      labels: { x: 'y', 'kubefed.io/managed': 'true' },
    });
  });

  test('adding a namespace to a cluster-scoped object is refused', () => {
    assert.throws(
      () =>
        buildClusterObject({
          template: {},
          name: 'admin',
          target: clusterRole,
          retainReplicas: false,
          overrides: [{ op: 'replace', path: '/metadata', value: { name: 'admin', namespace: 'x' } }],
        }),
      OverridesError,
    );
  });
});

describe('null fields after overrides', () => {
  test('an override value {A: null} leaves no key A, at any depth', () => {
    const { object } = buildClusterObject({
      template: { data: { A: 'YQ==', B: 'Yg==' } },
      name: 's',
      namespace: 'ns',
      target: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
      retainReplicas: false,
      overrides: [
        { op: 'replace', path: '/data', value: { A: null, C: 'Yw==' } },
        { op: 'add', path: '/metadata/labels', value: { keep: 'yes', gone: null } },
      ],
    });
    assert.deepEqual(object.data, { C: 'Yw==' });
    assert.deepEqual(object.metadata.labels, { keep: 'yes', 'kubefed.io/managed': 'true' });
  });
});

test('dropNullFields drops nulls at every depth and keeps an own __proto__ key as data', () => {
  const src = JSON.parse(
    '{"a": null, "b": {"c": null, "d": 1}, "e": [{"f": null}], "__proto__": {"g": true}}',
  );
  const out = dropNullFields(src) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.ok(Object.hasOwn(out, '__proto__'));
  assert.equal((out as { g?: boolean }).g, undefined);
  assert.deepEqual(Object.keys(out), ['b', 'e', '__proto__']);
  assert.deepEqual(out['b'], { d: 1 });
  assert.deepEqual(out['e'], [{}]);
});
