// The pull path's I/O against a fake hub: what it writes, when it does not, and what it reports.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MANIFEST_WORK_FINALIZER } from '../../../../src/api/ocm/work/v1/index.ts';
import { manifestWorkName } from '../../../../src/engine/pull/names.ts';
import { PullDispatcher, type PullRegistry } from '../../../../src/engine/pull/pull-dispatcher.ts';
import type { DesiredObject, ObjectRef, Work, WorkOwner } from '../../../../src/engine/work.ts';
import { ApiError, CoreTypes, type KubeObject } from '../../../../src/kube/client/index.ts';
import type { WorkObject } from '../../../../src/members/pull-works.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';

const owner: WorkOwner = {
  source: 'federated',
  kind: 'FederatedConfigMap',
  namespace: 'ns',
  name: 'a',
  uid: 'u',
};
const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };
const ref: ObjectRef = { type: CM, namespace: 'ns', name: 'a' };
const NAME = manifestWorkName(owner);

const notFound = () =>
  new ApiError({ statusCode: 404, reason: 'NotFound', message: 'not found', method: 'GET', path: '/' });

/** A hub holding ManifestWorks, counting writes; its store doubles as the informer's. */
function fakeHub(opts: { ready?: boolean; synced?: boolean } = {}) {
  const works = new Map<string, WorkObject>();
  const writes: string[] = [];
  let rv = 0;
  const key = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;
  const registry: PullRegistry = {
    isReady: () => opts.ready ?? true,
    pullWorks: {
      hasSynced: () => opts.synced ?? true,
      get: (cluster, name) => works.get(key(cluster, name)),
      ownWrite: (_cluster, _name, _rv, write) => write(),
      hostClient: {
        get: async <T extends KubeObject>(_t: unknown, name: string, ns?: string): Promise<T> => {
          const w = works.get(key(ns, name));
          if (!w) throw notFound();
          return w as unknown as T;
        },
        create: async <T extends KubeObject>(_t: unknown, obj: T): Promise<T> => {
          writes.push(`create ${obj.metadata.name}`);
          const w = {
            ...structuredClone(obj),
            metadata: { ...obj.metadata, generation: 1, uid: 'w1', resourceVersion: `${++rv}` },
          };
          works.set(key(obj.metadata.namespace, obj.metadata.name), w as unknown as WorkObject);
          return w;
        },
        update: async <T extends KubeObject>(_t: unknown, obj: T): Promise<T> => {
          writes.push(`update ${obj.metadata.name}`);
          const old = works.get(key(obj.metadata.namespace, obj.metadata.name));
          const w = {
            ...structuredClone(obj),
            metadata: {
              ...obj.metadata,
              generation: (old?.metadata.generation ?? 0) + 1,
              resourceVersion: `${++rv}`,
            },
          };
          works.set(key(obj.metadata.namespace, obj.metadata.name), w as unknown as WorkObject);
          return w;
        },
        delete: async (_t: unknown, name: string, o?: { namespace?: string }): Promise<KubeObject> => {
          writes.push(`delete ${name}`);
          const w = works.get(key(o?.namespace, name));
          if (!w) throw notFound();
          if ((w.metadata.finalizers ?? []).length > 0) w.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
          else works.delete(key(o?.namespace, name));
          return w;
        },
      },
    },
  };
  /** The agent's side: finalizer and an Applied report of the current generation. */
  const report = (cluster: string) => {
    const w = works.get(key(cluster, NAME));
    assert.ok(w);
    w.metadata.finalizers = [MANIFEST_WORK_FINALIZER];
    const c = (type: string) => ({ type, status: 'True', reason: 'R', message: '', lastTransitionTime: 't' });
    w.status = {
      conditions: [{ ...c('Applied'), observedGeneration: w.metadata.generation }],
      resourceStatus: {
        manifests: [{ resourceMeta: { ordinal: 0 }, conditions: [c('Applied'), c('Available')] }],
      },
    };
  };
  return { registry, works, writes, report };
}

function workOf(clusters: Record<string, Record<string, string>>, events: string[] = []): Work {
  return {
    owner,
    objects: [ref],
    clusters: new Map(
      Object.entries(clusters).map(([c, data]) => [
        c,
        [
          {
            ...ref,
            render: () => ({
              object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data },
              warnings: [],
            }),
          } satisfies DesiredObject,
        ],
      ]),
    ),
    adopt: false,
    event: (_t, reason) => events.push(reason),
  };
}

describe('PullDispatcher.apply', () => {
  test('writes the work once, waits for the agent, then reports OK; unchanged content is never written again', async () => {
    const hub = fakeHub();
    const p = new PullDispatcher(hub.registry, silentLogger);
    const events: string[] = [];
    const first = await p.apply(
      workOf({ c1: { k: 'v' } }, events),
      'c1',
      workOf({ c1: { k: 'v' } }).clusters.get('c1'),
    );
    assert.deepEqual(hub.writes, [`create ${NAME}`]);
    assert.deepEqual(events, ['CreateManifestWork']);
    assert.equal(first.written, true);
    assert.equal(first.outcome?.objects[0]?.status, 'WaitingForAgent');
    hub.report('c1');
    const second = await p.apply(
      workOf({ c1: { k: 'v' } }),
      'c1',
      workOf({ c1: { k: 'v' } }).clusters.get('c1'),
    );
    assert.deepEqual(hub.writes, [`create ${NAME}`], 'no second write');
    assert.equal(second.written, false);
    assert.equal(second.outcome?.objects[0]?.status, '');
    assert.deepEqual(second.outcome?.objects[0]?.object?.data, { k: 'v' });
  });

  test("changed content: updated, keeping the agent's finalizer", async () => {
    const hub = fakeHub();
    const p = new PullDispatcher(hub.registry, silentLogger);
    const w1 = workOf({ c1: { k: 'v' } });
    await p.apply(w1, 'c1', w1.clusters.get('c1'));
    hub.report('c1');
    const w2 = workOf({ c1: { k: 'w' } });
    const r = await p.apply(w2, 'c1', w2.clusters.get('c1'));
    assert.deepEqual(hub.writes, [`create ${NAME}`, `update ${NAME}`]);
    const mw = hub.works.get(`c1/${NAME}`);
    assert.deepEqual(mw?.metadata.finalizers, [MANIFEST_WORK_FINALIZER]);
    assert.deepEqual(mw?.spec.workload?.manifests?.[0]?.data, { k: 'w' });
    assert.equal(r.outcome?.objects[0]?.status, 'WaitingForAgent', 'the agent has not reported generation 2');
  });

  test('the works not loaded yet: pending, nothing written', async () => {
    const hub = fakeHub({ synced: false });
    const w = workOf({ c1: { k: 'v' } });
    const r = await new PullDispatcher(hub.registry, silentLogger).apply(w, 'c1', w.clusters.get('c1'));
    assert.equal(r.pending, true);
    assert.deepEqual(hub.writes, []);
  });

  test('not ready: the work is still handed over, the cluster reported ClusterNotReady', async () => {
    const hub = fakeHub({ ready: false });
    const events: string[] = [];
    const w = workOf({ c1: { k: 'v' } }, events);
    const r = await new PullDispatcher(hub.registry, silentLogger).apply(w, 'c1', w.clusters.get('c1'));
    assert.equal(r.outcome?.status, 'ClusterNotReady');
    assert.deepEqual(hub.writes, [`create ${NAME}`]);
    assert.ok(events.includes('ClusterNotReady'));
  });

  test('no longer selected: the work is deleted and the objects reported WaitingForRemoval until it is gone', async () => {
    const hub = fakeHub();
    const p = new PullDispatcher(hub.registry, silentLogger);
    const w = workOf({ c1: { k: 'v' } });
    await p.apply(w, 'c1', w.clusters.get('c1'));
    hub.report('c1');
    const r = await p.apply(workOf({}), 'c1', undefined);
    assert.deepEqual(hub.writes, [`create ${NAME}`, `delete ${NAME}`]);
    assert.deepEqual(r.outcome, { selected: false, objects: [{ ref, status: 'WaitingForRemoval' }] });
    const again = await p.apply(workOf({}), 'c1', undefined);
    assert.deepEqual(hub.writes.length, 2, 'a work being deleted is not deleted again');
    assert.equal(again.outcome?.objects[0]?.status, 'WaitingForRemoval');
  });

  test('a render failure without an earlier work: its status, and nothing written', async () => {
    const hub = fakeHub();
    const w: Work = {
      ...workOf({}),
      clusters: new Map([
        [
          'c1',
          [
            {
              ...ref,
              render: () => {
                throw new Error('boom');
              },
            },
          ],
        ],
      ]),
    };
    const r = await new PullDispatcher(hub.registry, silentLogger).apply(w, 'c1', w.clusters.get('c1'));
    assert.deepEqual(hub.writes, []);
    assert.equal(r.outcome?.objects[0]?.status, 'ComputeResourceFailed');
  });
});

describe('PullDispatcher deletion', () => {
  test('remove: deleted, remaining while the agent holds it, then verifyRemoved finds nothing', async () => {
    const hub = fakeHub();
    const p = new PullDispatcher(hub.registry, silentLogger);
    const w = workOf({ c1: { k: 'v' } });
    await p.apply(w, 'c1', w.clusters.get('c1'));
    hub.report('c1');
    const out = {
      remaining: [] as string[],
      waiting: [] as string[],
      errors: [] as string[],
      abandoned: [] as string[],
    };
    await p.remove(owner, 'c1', false, () => {}, out);
    assert.deepEqual(out.remaining, ['c1']);
    assert.equal(await p.holds(owner, 'c1'), true);
    hub.works.delete(`c1/${NAME}`);
    assert.equal(await p.holds(owner, 'c1'), false);
  });

  test('remove from a cluster that is not ready: handed to the agent, not waited for', async () => {
    const ready = fakeHub();
    const p0 = new PullDispatcher(ready.registry, silentLogger);
    const w = workOf({ c1: { k: 'v' } });
    await p0.apply(w, 'c1', w.clusters.get('c1'));
    ready.report('c1');
    const down: PullRegistry = { ...ready.registry, isReady: () => false };
    const p = new PullDispatcher(down, silentLogger);
    const out = {
      remaining: [] as string[],
      waiting: [] as string[],
      errors: [] as string[],
      abandoned: [] as string[],
    };
    await p.remove(owner, 'c1', false, () => {}, out);
    assert.deepEqual(out, { remaining: [], waiting: [], errors: [], abandoned: [] });
    assert.equal(await p.holds(owner, 'c1'), false);
    assert.ok(
      ready.works.get(`c1/${NAME}`)?.metadata.deletionTimestamp,
      'the deletion is recorded on the work',
    );
  });

  test('release: the work loses the marks and turns Orphan first; deleted once the agent reported it', async () => {
    const hub = fakeHub();
    const p = new PullDispatcher(hub.registry, silentLogger);
    const w = workOf({ c1: { k: 'v' } });
    await p.apply(w, 'c1', w.clusters.get('c1'));
    hub.report('c1');
    const out = () => ({
      remaining: [] as string[],
      waiting: [] as string[],
      errors: [] as string[],
      abandoned: [] as string[],
    });
    const first = out();
    await p.release(owner, [ref], 'c1', false, () => {}, first);
    assert.equal(first.waiting.length, 1);
    const mw = hub.works.get(`c1/${NAME}`);
    assert.deepEqual(mw?.spec.deleteOption, { propagationPolicy: 'Orphan' });
    assert.equal(mw?.spec.workload?.manifests?.[0]?.metadata.labels?.['kubefed.io/managed'], undefined);
    const second = out();
    await p.release(owner, [ref], 'c1', false, () => {}, second);
    assert.equal(second.waiting.length, 1, 'the agent has not reported the released generation');
    hub.report('c1');
    const third = out();
    await p.release(owner, [ref], 'c1', false, () => {}, third);
    assert.deepEqual(third, out());
    assert.ok(hub.works.get(`c1/${NAME}`)?.metadata.deletionTimestamp);
    assert.deepEqual(hub.writes, [`create ${NAME}`, `update ${NAME}`, `delete ${NAME}`]);
  });
});
