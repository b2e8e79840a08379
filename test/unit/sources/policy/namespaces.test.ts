import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WorkOutcome } from '../../../../src/engine/work.ts';
import {
  NAMESPACE_RENDERING,
  namespaceClusters,
  namespaceWork,
  recordedNamespaceVersions,
} from '../../../../src/sources/policy/namespace-controller.ts';

describe('namespaceClusters', () => {
  test('is the union of the clusters the namespace’s bindings are scheduled to', () => {
    const bindings = [
      { metadata: { namespace: 'a' }, spec: { clusters: [{ name: 'c1' }, { name: 'c2' }] } },
      { metadata: { namespace: 'a' }, spec: { clusters: [{ name: 'c2' }, { name: 'c3' }] } },
      { metadata: { namespace: 'b' }, spec: { clusters: [{ name: 'c4' }] } },
      { metadata: {}, spec: { clusters: [{ name: 'c5' }] } },
    ];
    assert.deepEqual([...namespaceClusters(bindings, 'a')].sort(), ['c1', 'c2', 'c3']);
    assert.deepEqual([...namespaceClusters(bindings, 'z')], []);
  });
});

describe('namespaceWork', () => {
  test('holds a plain Namespace in each needed cluster, never deleted, keeping what the member set on it', () => {
    const work = namespaceWork('apps', new Set(['c1']), () => {});
    assert.equal(work.owner.source, 'policy');
    assert.deepEqual([...work.clusters.keys()], ['c1']);
    assert.equal(work.keep?.('c1', { metadata: { name: 'apps' } }), true);
    const d = work.clusters.get('c1')?.[0];
    const rendered = d?.render({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'apps', labels: { team: 'x' } },
      spec: { finalizers: ['kubernetes'] },
    });
    assert.deepEqual(rendered?.object.metadata.labels, { team: 'x' });
    assert.deepEqual(rendered?.object.spec, { finalizers: ['kubernetes'] });
    assert.equal(d?.render(undefined).object.metadata.name, 'apps');
  });
});

describe('recorded namespace versions', () => {
  test('each cluster’s copy carries the version recorded for it and the one rendering hash', () => {
    const work = namespaceWork('apps', new Set(['c1', 'c2']), () => {}, new Map([['c1', 'rv:7']]));
    assert.equal(work.clusters.get('c1')?.[0]?.recordedVersion, 'rv:7');
    assert.equal(work.clusters.get('c2')?.[0]?.recordedVersion, undefined);
    assert.equal(work.clusters.get('c2')?.[0]?.appliedHash, NAMESPACE_RENDERING);
  });

  test('are the versions written or found up to date, not those that failed', () => {
    const ref = {
      type: { group: '', version: 'v1', plural: 'namespaces', namespaced: false, kind: 'Namespace' },
      name: 'apps',
    };
    const outcome: WorkOutcome = {
      pending: false,
      written: false,
      clusters: new Map([
        ['c1', { selected: true, objects: [{ ref, status: '', version: 'rv:7' }] }],
        ['c2', { selected: true, objects: [{ ref, status: 'UpdateFailed', version: 'rv:3' }] }],
        ['c3', { selected: true, status: 'ClusterNotReady', objects: [] }],
      ]),
    };
    assert.deepEqual([...recordedNamespaceVersions(outcome)], [['c1', 'rv:7']]);
  });
});
