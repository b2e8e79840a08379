import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OWNER_ANNOTATION } from '../../../../src/engine/ownership.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { MANAGED_LABEL } from '../../../../src/propagation/constants.ts';
import { serviceOwner } from '../../../../src/sources/mcs/types.ts';
import { contains, upToDate } from '../../../../src/sources/mcs/up-to-date.ts';

const owner = serviceOwner('ns', 'hello');
const stamped = { [MANAGED_LABEL]: 'true' };
const ownerAnn = { [OWNER_ANNOTATION]: 'mcs:ServiceImport:ns/hello' };

const desired: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'derived-hello', namespace: 'ns', labels: { a: '1' } },
  spec: { type: 'ClusterIP', ports: [{ name: 'tcp', protocol: 'TCP', port: 42 }] },
};
const live = (over: Partial<KubeObject> = {}, spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: {
    name: 'derived-hello',
    namespace: 'ns',
    resourceVersion: '7',
    uid: 'u',
    labels: { a: '1', ...stamped },
    annotations: { ...ownerAnn },
  },
  spec: {
    type: 'ClusterIP',
    clusterIP: '10.0.0.1',
    sessionAffinity: 'None',
    ports: [{ name: 'tcp', protocol: 'TCP', port: 42, targetPort: 42 }],
    ...spec,
  },
  status: { loadBalancer: {} },
  ...over,
});

describe('upToDate', () => {
  test('fields the server defaults and the member owns do not count; what we set does', () => {
    assert.equal(upToDate(desired, live(), owner), true);
    assert.equal(upToDate(desired, live({}, { type: 'NodePort' }), owner), false);
    assert.equal(
      upToDate(desired, live({}, { ports: [{ name: 'tcp', protocol: 'TCP', port: 43 }] }), owner),
      false,
    );
  });

  test('a list we set is ours in full: an extra element is a difference', () => {
    const two = [
      { name: 'tcp', protocol: 'TCP', port: 42 },
      { name: 'udp', protocol: 'UDP', port: 42 },
    ];
    assert.equal(upToDate(desired, live({}, { ports: two }), owner), false);
  });

  test('labels and annotations are compared exactly, with the engine stamps', () => {
    const l = live();
    assert.equal(upToDate(desired, { ...l, metadata: { ...l.metadata, labels: { a: '1' } } }, owner), false);
    assert.equal(
      upToDate(desired, { ...l, metadata: { ...l.metadata, labels: { ...stamped, a: '1', b: '2' } } }, owner),
      false,
    );
    assert.equal(upToDate(desired, { ...l, metadata: { ...l.metadata, annotations: {} } }, owner), false);
    assert.equal(upToDate(desired, l, serviceOwner('ns', 'other')), false);
  });

  test('owner references, when rendered, must be there', () => {
    const ref = {
      apiVersion: 'multicluster.x-k8s.io/v1beta1',
      kind: 'ServiceImport',
      name: 'hello',
      uid: 'x',
    };
    const withRef = { ...desired, metadata: { ...desired.metadata, ownerReferences: [ref] } };
    assert.equal(upToDate(withRef, live(), owner), false);
    const l = live();
    assert.equal(
      upToDate(withRef, { ...l, metadata: { ...l.metadata, ownerReferences: [ref] } }, owner),
      true,
    );
  });

  test('nothing live is never up to date', () => {
    assert.equal(upToDate(desired, undefined, owner), false);
  });
});

describe('contains', () => {
  test('an empty list or map we set reads back as absent', () => {
    assert.equal(contains(undefined, []), true);
    assert.equal(contains(null, {}), true);
    assert.equal(contains(undefined, [1]), false);
    assert.equal(contains({ a: 1, b: 2 }, { a: 1 }), true);
    assert.equal(contains({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(contains('x', 'x'), true);
  });
});
