import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OWNER_ANNOTATION } from '../../../../src/engine/ownership.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { ownerBindingKey } from '../../../../src/sources/policy/binding-controller.ts';
import { metadataPatch } from '../../../../src/sources/policy/claim-writer.ts';
import { hostStatusWriter } from '../../../../src/sources/policy/host-controllers.ts';
import { parseTemplateKey, templateKey } from '../../../../src/sources/policy/keys.ts';

describe('template keys', () => {
  test('round-trip kind, namespace and name', () => {
    const key = templateKey(
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { metadata: { namespace: 'a', name: 'web' } },
    );
    assert.deepEqual(parseTemplateKey(key), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'a',
      name: 'web',
    });
    const cluster = templateKey({ apiVersion: 'v1', kind: 'Namespace' }, { metadata: { name: 'team' } });
    assert.deepEqual(parseTemplateKey(cluster), {
      apiVersion: 'v1',
      kind: 'Namespace',
      namespace: undefined,
      name: 'team',
    });
  });
});

describe('ownerBindingKey', () => {
  test('finds the binding of a member copy from its owner annotation', () => {
    const o = (id?: string) => ({
      metadata: { annotations: id ? { [OWNER_ANNOTATION]: id } : ({} as Record<string, string>) },
    });
    assert.equal(ownerBindingKey(o('policy:ResourceBinding:apps/web-deployment')), 'apps/web-deployment');
    assert.equal(ownerBindingKey(o('policy:ClusterResourceBinding:team-namespace')), 'team-namespace');
    assert.equal(ownerBindingKey(o('test:TestBundle:x/y')), undefined, "another source's");
    assert.equal(ownerBindingKey(o()), undefined, 'a Federated<Kind> copy');
  });
});

describe('metadataPatch', () => {
  test('sets what changed, removes what went, and is guarded by the resourceVersion', () => {
    const patch = metadataPatch(
      { metadata: { resourceVersion: '5', labels: { a: '1', gone: 'x' }, annotations: { keep: 'y' } } },
      { labels: { a: '1', b: '2' }, annotations: { keep: 'y' } },
    );
    assert.deepEqual(patch, {
      metadata: { resourceVersion: '5', labels: { gone: null, b: '2' }, annotations: {} },
    });
  });
});

describe('hostStatusWriter', () => {
  test('names kube-controller-manager when it writes the template’s status', () => {
    const t = (managers: Array<{ manager: string; subresource?: string }>) =>
      ({ metadata: { name: 't', managedFields: managers } }) as KubeObject;
    assert.equal(
      hostStatusWriter(t([{ manager: 'kube-controller-manager', subresource: 'status' }])),
      'kube-controller-manager',
    );
    assert.equal(
      hostStatusWriter(
        t([{ manager: 'kubectl' }, { manager: 'kubefed-controller-manager', subresource: 'status' }]),
      ),
      undefined,
    );
    assert.equal(
      hostStatusWriter(t([{ manager: 'kube-controller-manager' }])),
      undefined,
      'spec writes do not count',
    );
  });
});
