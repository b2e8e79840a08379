import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../src/kube/client/types.ts';
import type {
  MemberCache,
  MemberCacheHandlers,
  MemberCacheSpec,
  MemberCacheState,
  MemberCaches,
} from '../../../../src/members/member-caches.ts';
import type { Store } from '../../../../src/runtime/informer/store.ts';
import { CapacityEstimator } from '../../../../src/sources/policy/capacity-estimator.ts';

/** Member caches of one cluster whose nodes and pods a test sets, and whose handlers it can fire. */
function fakeCaches() {
  const opened: { spec: MemberCacheSpec; handlers: MemberCacheHandlers; closed: boolean }[] = [];
  const objects: Record<string, KubeObject[]> = { nodes: [], pods: [] };
  let synced = false;
  const caches = {
    open(spec: MemberCacheSpec, handlers: MemberCacheHandlers = {}): MemberCache {
      const entry = { spec, handlers, closed: false };
      opened.push(entry);
      return {
        spec,
        state(): MemberCacheState {
          if (!synced) return { kind: 'syncing' };
          return { kind: 'synced', store: storeOf(objects[spec.type.plural] ?? []) };
        },
        get: () => undefined,
        lastSeen: () => undefined,
        ownWrite: (_c, _k, _rv, write) => write(),
        close: async () => {
          entry.closed = true;
        },
      };
    },
  } as unknown as MemberCaches;
  return {
    caches,
    opened,
    objects,
    sync: () => {
      synced = true;
    },
    fire: (cluster: string) => {
      for (const o of opened) o.handlers.onObject?.(cluster, { apiVersion: 'v1', kind: 'Pod', metadata: {} });
    },
  };
}

function storeOf(items: KubeObject[]) {
  return { list: () => items, get: () => undefined } as unknown as Store<KubeObject>;
}

const node: KubeObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n' },
  status: { allocatable: { cpu: '4', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
};
const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns' },
  spec: { nodeName: 'n', containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] },
  status: { phase: 'Running' },
};

describe('CapacityEstimator', () => {
  test('opens node and pod caches only when first asked; unknown while loading', async () => {
    const f = fakeCaches();
    const est = new CapacityEstimator({ caches: f.caches, debounceMs: 5 });
    assert.equal(f.opened.length, 0, 'nothing opened before a binding needs capacity');
    assert.equal(est.available('c1', { cpu: '1' }), undefined);
    assert.equal(est.loading('c1'), true);
    assert.deepEqual(
      f.opened.map((o) => o.spec.type.plural),
      ['nodes', 'pods'],
    );
    f.objects.nodes = [node];
    f.sync();
    assert.equal(est.loading('c1'), false);
    assert.equal(est.available('c1', { cpu: '1' }), 4);
    await est.close();
    assert.ok(f.opened.every((o) => o.closed));
  });

  test('estimates are kept per request and node claim', async () => {
    const f = fakeCaches();
    const est = new CapacityEstimator({ caches: f.caches, debounceMs: 5 });
    const gpuNode: KubeObject = { ...node, metadata: { name: 'g', labels: { gpu: 'true' } } };
    f.objects.nodes = [node, gpuNode];
    f.sync();
    const tolerations = [{ key: 'k', operator: 'Exists' }];
    const gpu = { nodeSelector: { gpu: 'true' }, tolerations };
    assert.equal(est.available('c1', { cpu: '1' }), 8);
    assert.equal(est.available('c1', { cpu: '1' }, gpu), 4, 'not the unconstrained estimate');
    assert.equal(est.available('c1', { cpu: '1' }, { nodeSelector: { gpu: 'false' } }), 0);
    assert.equal(est.available('c1', { cpu: '2' }, gpu), 2);
    // Known (request, claim) pairs, one with its members in another order, are answered from the memo
    // (the nodes changed under it without a notice); an unseen claim is computed.
    f.objects.nodes = [];
    assert.equal(est.available('c1', { cpu: '1' }), 8);
    assert.equal(est.available('c1', { cpu: '1' }, { tolerations, nodeSelector: { gpu: 'true' } }), 4);
    assert.equal(est.available('c1', { cpu: '1' }, { tolerations: [] }), 0, 'a new claim is computed');
    await est.close();
  });

  test('a change forgets the estimate and tells the listeners once per burst', async () => {
    const f = fakeCaches();
    const est = new CapacityEstimator({ caches: f.caches, debounceMs: 5 });
    f.objects.nodes = [node];
    f.sync();
    assert.equal(est.available('c1', { cpu: '1' }), 4);
    const told: string[] = [];
    est.onChange((c) => told.push(c));
    f.objects.pods = [pod];
    f.fire('c1');
    f.fire('c1');
    assert.equal(est.available('c1', { cpu: '1' }), 3, 'the memo is dropped at once');
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(told, ['c1']);
    await est.close();
  });
});
