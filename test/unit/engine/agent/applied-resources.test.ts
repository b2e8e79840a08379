import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  fromAppliedResourceMeta,
  mergeAppliedResources,
  staleResources,
  toAppliedResourceMeta,
} from '../../../../src/engine/agent/applied-resources.ts';
import type { AppliedResource } from '../../../../src/engine/agent/types.ts';

const r = (
  group: string,
  version: string,
  resource: string,
  namespace: string,
  name: string,
  uid = 'u',
): AppliedResource => ({
  group,
  version,
  resource,
  namespace,
  name,
  uid,
});

describe('staleResources (ocm FindUntrackedResources)', () => {
  test('by group/resource/namespace/name; version and uid ignored', () => {
    const previous = [
      r('', 'v1', 'configmaps', 'ns', 'a', 'u1'),
      r('apps', 'v1', 'deployments', 'ns', 'd'),
      r('', 'v1', 'secrets', 'ns', 's'),
    ];
    const current = [
      r('', 'v1', 'configmaps', 'ns', 'a', 'u9'),
      r('apps', 'v1beta1', 'deployments', 'ns', 'd'),
    ];
    assert.deepEqual(staleResources(previous, current), [r('', 'v1', 'secrets', 'ns', 's')]);
    assert.deepEqual(staleResources([], current), []);
  });
});

describe('mergeAppliedResources', () => {
  test('current plus pending deletions, sorted by group, version, resource, namespace, name', () => {
    const current = [
      r('apps', 'v1', 'deployments', 'ns', 'd'),
      r('', 'v1', 'configmaps', 'ns', 'b'),
      r('', 'v1', 'configmaps', 'a-ns', 'z'),
    ];
    const pending = [r('', 'v1', 'secrets', 'ns', 's'), r('', 'v1', 'configmaps', 'ns', 'b', 'old')];
    assert.deepEqual(mergeAppliedResources(pending, current), [
      r('', 'v1', 'configmaps', 'a-ns', 'z'),
      r('', 'v1', 'configmaps', 'ns', 'b'),
      r('', 'v1', 'secrets', 'ns', 's'),
      r('apps', 'v1', 'deployments', 'ns', 'd'),
    ]);
  });
});

describe('AppliedManifestResourceMeta conversion', () => {
  test('omits empty group and namespace, and round-trips', () => {
    const ns = r('', 'v1', 'namespaces', '', 'ns1', 'u1');
    assert.deepEqual(toAppliedResourceMeta(ns), {
      resource: 'namespaces',
      name: 'ns1',
      version: 'v1',
      uid: 'u1',
    });
    assert.deepEqual(fromAppliedResourceMeta(toAppliedResourceMeta(ns)), ns);
    const d = r('apps', 'v1', 'deployments', 'ns', 'd', 'u2');
    assert.deepEqual(fromAppliedResourceMeta(toAppliedResourceMeta(d)), d);
  });
});
