import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FEDERATED_SOURCE } from '../../../../src/engine/ownership.ts';
import { type DesiredObject, type EventSink, RenderError } from '../../../../src/engine/work.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { ClusterStatus, MANAGED_LABEL } from '../../../../src/propagation/constants.ts';
import { ComputeResourceError } from '../../../../src/propagation/desired.ts';
import type { FederatedObject } from '../../../../src/sources/federated/federated-object.ts';
import {
  type FederatedWorkInput,
  federatedWork,
  keepHostNamespace,
  type TargetType,
} from '../../../../src/sources/federated/render.ts';

const configMaps: TargetType = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  kind: 'ConfigMap',
};
const services: TargetType = {
  group: '',
  version: 'v1',
  plural: 'services',
  namespaced: true,
  kind: 'Service',
};
const namespaces: TargetType = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  kind: 'Namespace',
};
const noEvents: EventSink = () => {};

function fed(spec: FederatedObject['spec'] = {}): FederatedObject {
  return { metadata: { name: 'a', namespace: 'ns', uid: 'fed-uid' }, spec };
}

function input(o: Partial<FederatedWorkInput> = {}): FederatedWorkInput {
  return {
    fed: fed({ template: { data: { k: 'v' } } }),
    federatedKind: 'FederatedConfigMap',
    target: configMaps,
    name: 'a',
    namespace: 'ns',
    selected: new Set(['c1', 'c2']),
    recorded: new Map([['c1', 'rv:3']]),
    adopt: false,
    event: noEvents,
    ...o,
  };
}

/** The one desired object of a cluster. */
function desiredIn(work: ReturnType<typeof federatedWork>['work'], cluster: string): DesiredObject {
  const list = work.clusters.get(cluster);
  assert.ok(list, `cluster ${cluster} is selected`);
  assert.equal(list.length, 1);
  return list[0]!;
}

/** What the render throws, for assertions on its type and status. */
function renderError(d: DesiredObject, live: KubeObject | undefined): unknown {
  try {
    d.render(live);
  } catch (e) {
    return e;
  }
  assert.fail('the render did not throw');
}

describe('federatedWork: a Federated<Kind> as a Work', () => {
  test('the owner is the federated object, of the federated source', () => {
    const event: EventSink = () => {};
    const { work } = federatedWork(input({ adopt: true, event }));
    assert.deepEqual(work.owner, {
      source: FEDERATED_SOURCE,
      kind: 'FederatedConfigMap',
      namespace: 'ns',
      name: 'a',
      uid: 'fed-uid',
    });
    assert.equal(work.adopt, true);
    assert.equal(work.event, event);
  });

  test('one ref in objects: the member object, namespaced as the target', () => {
    const { work } = federatedWork(input());
    assert.deepEqual(work.objects, [{ type: configMaps, name: 'a', namespace: 'ns' }]);
  });

  test('a cluster-scoped target has no namespace in its ref', () => {
    const { work } = federatedWork(
      input({
        fed: fed({}),
        federatedKind: 'FederatedNamespace',
        target: namespaces,
        name: 'ns',
        namespace: 'ns',
      }),
    );
    assert.deepEqual(work.objects, [{ type: namespaces, name: 'ns', namespace: undefined }]);
  });

  test('one desired object per selected cluster, with its recorded version', () => {
    const { work, overridesError } = federatedWork(input());
    assert.equal(overridesError, undefined);
    assert.deepEqual([...work.clusters.keys()].sort(), ['c1', 'c2']);
    const c1 = desiredIn(work, 'c1');
    const c2 = desiredIn(work, 'c2');
    assert.deepEqual(
      { type: c1.type, name: c1.name, namespace: c1.namespace, recordedVersion: c1.recordedVersion },
      { type: configMaps, name: 'a', namespace: 'ns', recordedVersion: 'rv:3' },
    );
    assert.equal(c1.invalid, undefined);
    assert.equal(c2.recordedVersion, undefined);
  });

  test('nothing selected: no clusters, the ref still listed (so copies are removed)', () => {
    const { work } = federatedWork(input({ selected: new Set() }));
    assert.equal(work.clusters.size, 0);
    assert.equal(work.objects.length, 1);
  });

  test('overrides that do not parse: every selected cluster is invalid with ApplyOverridesFailed, and the error returned', () => {
    const { work, overridesError } = federatedWork(
      input({ fed: fed({ template: { data: { k: 'v' } }, overrides: 'not a list' }) }),
    );
    assert.equal(overridesError, 'spec.overrides must be a list');
    for (const cluster of ['c1', 'c2']) {
      assert.deepEqual(desiredIn(work, cluster).invalid, {
        status: ClusterStatus.ApplyOverridesFailed,
        message: 'spec.overrides must be a list',
      });
    }
  });

  test('a good render: the template with identity, the managed label, the cluster overrides', () => {
    const { work } = federatedWork(
      input({
        fed: fed({
          template: { metadata: { labels: { app: 'x' } }, data: { k: 'v' } },
          overrides: [{ clusterName: 'c1', clusterOverrides: [{ path: '/data/k', value: 'c1' }] }],
        }),
      }),
    );
    assert.deepEqual(desiredIn(work, 'c1').render(undefined), {
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'ns', labels: { app: 'x', [MANAGED_LABEL]: 'true' } },
        data: { k: 'c1' },
      },
      warnings: [],
    });
    assert.deepEqual(desiredIn(work, 'c2').render(undefined).object.data, { k: 'v' });
  });

  test("rendering against the live copy keeps the member's fields", () => {
    const { work } = federatedWork(input());
    const live: KubeObject = {
      metadata: { name: 'a', namespace: 'ns', resourceVersion: '9', annotations: { member: 'owned' } },
    };
    const { object } = desiredIn(work, 'c1').render(live);
    assert.equal(object.metadata.resourceVersion, '9');
    assert.deepEqual(object.metadata.annotations, { member: 'owned' });
    assert.equal(object.metadata.labels?.[MANAGED_LABEL], 'true');
  });

  test('template warnings are handed on', () => {
    const { work } = federatedWork(
      input({ fed: fed({ template: { metadata: { annotations: { a: 'b' } }, data: {} } }) }),
    );
    assert.deepEqual(
      desiredIn(work, 'c1')
        .render(undefined)
        .warnings.map((w) => w.reason),
      ['AnnotationsNotSupported'],
    );
  });

  describe('render errors as member statuses', () => {
    const overridden = (ops: unknown[]) =>
      federatedWork(
        input({
          fed: fed({
            template: { data: { k: 'v' } },
            overrides: [{ clusterName: 'c1', clusterOverrides: ops }],
          }),
        }),
      ).work;

    test('a field that cannot be retained: RenderError FieldRetentionFailed', () => {
      const { work } = federatedWork(input({ target: services, fed: fed({ template: { spec: {} } }) }));
      const e = renderError(desiredIn(work, 'c1'), {
        metadata: { name: 'a', namespace: 'ns' },
        spec: 'broken',
      });
      assert.ok(e instanceof RenderError);
      assert.equal(e.status, ClusterStatus.FieldRetentionFailed);
      assert.equal(e.message, 'service: .spec is of type string, expected map');
    });

    test('an override on a missing path (JsonPatchError): RenderError ApplyOverridesFailed', () => {
      const e = renderError(
        desiredIn(overridden([{ op: 'remove', path: '/data/missing' }]), 'c1'),
        undefined,
      );
      assert.ok(e instanceof RenderError);
      assert.equal(e.status, ClusterStatus.ApplyOverridesFailed);
      assert.match(e.message, /Unable to remove nonexistent key: missing/);
    });

    test('an override that changes the identity (OverridesError): RenderError ApplyOverridesFailed', () => {
      const e = renderError(
        desiredIn(overridden([{ op: 'replace', path: '/metadata', value: { name: 'b' } }]), 'c1'),
        undefined,
      );
      assert.ok(e instanceof RenderError);
      assert.equal(e.status, ClusterStatus.ApplyOverridesFailed);
      assert.equal(e.message, 'overrides must not change metadata.name');
    });

    test('a failing override fails only its own cluster: the other renders', () => {
      const work = overridden([{ op: 'remove', path: '/data/missing' }]);
      assert.deepEqual(desiredIn(work, 'c2').render(undefined).object.data, { k: 'v' });
    });

    test('a template that is not an object: thrown as it is (ComputeResourceFailed)', () => {
      const { work } = federatedWork(input({ fed: fed({ template: 'nope' }) }));
      const e = renderError(desiredIn(work, 'c1'), undefined);
      assert.ok(e instanceof ComputeResourceError);
      assert.ok(!(e instanceof RenderError));
    });
  });
});

describe('keepHostNamespace: only the host Namespace itself is kept', () => {
  const live = (uid: string | undefined): KubeObject => ({ metadata: { name: 'ns', uid } });
  const rows: Array<{
    name: string;
    target: TargetType;
    hostUid: string | undefined;
    live: KubeObject;
    want: boolean;
  }> = [
    {
      name: 'Namespace with the host uid: kept',
      target: namespaces,
      hostUid: 'h1',
      live: live('h1'),
      want: true,
    },
    {
      name: 'Namespace with another uid (a member namespace of the same name): not kept',
      target: namespaces,
      hostUid: 'h1',
      live: live('m1'),
      want: false,
    },
    {
      name: 'Namespace, no host namespace known: not kept, even without a uid',
      target: namespaces,
      hostUid: undefined,
      live: live(undefined),
      want: false,
    },
    {
      name: 'Namespace, an empty host uid: not kept',
      target: namespaces,
      hostUid: '',
      live: live(''),
      want: false,
    },
    {
      name: 'another kind with the same uid: not kept',
      target: configMaps,
      hostUid: 'h1',
      live: live('h1'),
      want: false,
    },
  ];
  for (const row of rows)
    test(row.name, () => assert.equal(keepHostNamespace(row.target, row.hostUid)('c1', row.live), row.want));

  test("the Work's keep is this rule", () => {
    const { work } = federatedWork(
      input({
        fed: fed({}),
        federatedKind: 'FederatedNamespace',
        target: namespaces,
        name: 'ns',
        hostNamespaceUid: 'h1',
      }),
    );
    assert.equal(work.keep?.('c1', live('h1')), true);
    assert.equal(work.keep?.('c1', live('m1')), false);
  });
});
