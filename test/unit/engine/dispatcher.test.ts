// The dispatcher against fake members: one Normal event per pass naming every cluster written, Warnings per
// member, and the rendering hash stamped on what is written and honoured when nothing is recorded.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Dispatcher } from '../../../src/engine/dispatcher.ts';
import { FEDERATED_SOURCE } from '../../../src/engine/ownership.ts';
import type { DesiredObject, ObjectRef, Work, WorkOwner } from '../../../src/engine/work.ts';
import { ApiError, CoreTypes, type KubeClient, type KubeObject } from '../../../src/kube/client/index.ts';
import type { ClusterRegistry } from '../../../src/members/cluster-registry.ts';
import type { MemberCache } from '../../../src/members/member-caches.ts';
import { MANAGED_LABEL, RENDERING_ANNOTATION } from '../../../src/propagation/constants.ts';
import { MapStore } from '../../../src/runtime/informer/store.ts';

const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };
const ref: ObjectRef = { type: CM, namespace: 'ns', name: 'a' };
const CLUSTERS = ['c3', 'c1', 'c2'];
const policy: WorkOwner = { source: 'policy', kind: 'ResourceBinding', namespace: 'ns', name: 'b', uid: 'u' };
const federated: WorkOwner = { ...policy, source: FEDERATED_SOURCE, kind: 'FederatedConfigMap' };

/** Members holding ConfigMaps in synced caches; `refuse` names members whose writes fail. */
function fakeFleet(refuse: ReadonlySet<string> = new Set()) {
  const stores = new Map(CLUSTERS.map((c) => [c, new MapStore<KubeObject>()]));
  /** Writes and events, in the order they happened. */
  const log: string[] = [];
  const events: Array<{ type: string; reason: string; message: string }> = [];
  let rv = 10;
  const store = (c: string) => stores.get(c) ?? new MapStore<KubeObject>();
  const write = (c: string, verb: string, obj: KubeObject): KubeObject => {
    log.push(`${verb} ${c}`);
    if (refuse.has(c))
      throw new ApiError({
        statusCode: 403,
        reason: 'Forbidden',
        message: 'denied',
        method: 'PUT',
        path: '/',
      });
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: `${++rv}` } };
    store(c).set(stored);
    return stored;
  };
  const client = (c: string) =>
    ({
      create: async (_t: unknown, obj: KubeObject) => write(c, 'create', obj),
      update: async (_t: unknown, obj: KubeObject) => write(c, 'update', obj),
      delete: async (_t: unknown, name: string, o: { namespace?: string }) => {
        log.push(`delete ${c}`);
        store(c).delete(`${o.namespace}/${name}`);
        return {};
      },
    }) as unknown as KubeClient;
  const registry = {
    list: () => CLUSTERS.map((name) => ({ metadata: { name } })),
    get: (name: string) => (CLUSTERS.includes(name) ? { metadata: { name } } : undefined),
    isPull: () => false,
    isReady: () => true,
    clientFor: client,
    isUnresponsive: () => false,
    markUnresponsive: () => {},
  } as unknown as ClusterRegistry;
  const cache: MemberCache = {
    spec: { type: CM },
    state: (c) => ({ kind: 'synced', store: store(c) }),
    get: (c, key) => store(c).get(key),
    lastSeen: (c, key) => store(c).get(key),
    ownWrite: (_c, _k, _rv, write) => write(),
    close: async () => {},
  };
  const dispatcher = new Dispatcher({ registry, cacheFor: () => cache });
  const event: Work['event'] = (type, reason, message) => {
    log.push(`event ${reason}`);
    events.push({ type, reason, message });
  };
  return { dispatcher, stores, log, events, event };
}

function workFor(
  fleet: ReturnType<typeof fakeFleet>,
  opts: { owner?: WorkOwner; data?: string; hash?: string } = {},
): Work {
  const desired = (): DesiredObject => ({
    ...ref,
    appliedHash: opts.hash,
    render: () => ({
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'ns' },
        data: { k: opts.data ?? 'v1' },
      },
      warnings: [],
    }),
  });
  return {
    owner: opts.owner ?? policy,
    objects: [ref],
    clusters: new Map(CLUSTERS.map((c) => [c, [desired()]])),
    adopt: false,
    event: fleet.event,
  };
}

describe('Dispatcher: one Normal event per pass', () => {
  test('a cold create in three members: three writes, then one CreateInCluster naming them all', async () => {
    const fleet = fakeFleet();
    const out = await fleet.dispatcher.apply(workFor(fleet));
    assert.equal(out.written, true);
    assert.deepEqual(fleet.events, [
      {
        type: 'Normal',
        reason: 'CreateInCluster',
        message: 'Creating ConfigMap "ns/a" in clusters "c1", "c2", "c3"',
      },
    ]);
    assert.deepEqual(fleet.log.slice(-1), ['event CreateInCluster'], 'recorded after the writes');
    assert.equal(fleet.log.filter((l) => l.startsWith('create')).length, 3);
  });

  test('a write that fails: its Warning as today, and the Normal event still names every cluster tried', async () => {
    const fleet = fakeFleet(new Set(['c2']));
    await fleet.dispatcher.apply(workFor(fleet));
    assert.deepEqual(fleet.events, [
      {
        type: 'Warning',
        reason: 'CreateInClusterFailed',
        message: 'Failed to create ConfigMap "ns/a" in cluster "c2": denied',
      },
      {
        type: 'Normal',
        reason: 'CreateInCluster',
        message: 'Creating ConfigMap "ns/a" in clusters "c1", "c2", "c3"',
      },
    ]);
  });

  test('an update in one member only: the message is exactly KubeFed’s', async () => {
    const fleet = fakeFleet();
    const first = await fleet.dispatcher.apply(workFor(fleet, { owner: federated }));
    const recorded = new Map(CLUSTERS.map((c) => [c, first.clusters.get(c)?.objects[0]?.version]));
    // Someone changes c1's copy: its version is no longer the recorded one.
    const live = fleet.stores.get('c1')?.get('ns/a');
    assert.ok(live);
    fleet.stores.get('c1')?.set({ ...live, metadata: { ...live.metadata, resourceVersion: '99' } });
    fleet.events.length = 0;
    const work = workFor(fleet, { owner: federated });
    const clusters = new Map(
      [...work.clusters].map(([c, list]) => [
        c,
        list.map((d) => ({ ...d, recordedVersion: recorded.get(c) })),
      ]),
    );
    await fleet.dispatcher.apply({ ...work, clusters });
    assert.deepEqual(fleet.events, [
      { type: 'Normal', reason: 'UpdateInCluster', message: 'Updating ConfigMap "ns/a" in cluster "c1"' },
    ]);
  });

  test('nothing to write: no event at all', async () => {
    const fleet = fakeFleet();
    await fleet.dispatcher.apply(workFor(fleet, { hash: 'h1' }));
    fleet.events.length = 0;
    await fleet.dispatcher.apply(workFor(fleet, { hash: 'h1' }));
    assert.deepEqual(fleet.events, []);
  });

  test('remove: one DeleteInCluster naming every member deleted from', async () => {
    const fleet = fakeFleet();
    await fleet.dispatcher.apply(workFor(fleet));
    fleet.events.length = 0;
    const out = await fleet.dispatcher.remove(
      { owner: policy, objects: [ref], clusters: new Set(CLUSTERS), event: fleet.event },
      { abandonUnready: false, deferUnready: false },
    );
    assert.deepEqual(out.remaining, ['c1', 'c2', 'c3']);
    assert.deepEqual(fleet.events, [
      {
        type: 'Normal',
        reason: 'DeleteInCluster',
        message: 'Deleting ConfigMap "ns/a" in clusters "c1", "c2", "c3"',
      },
    ]);
  });
});

describe('Dispatcher: the rendering hash', () => {
  test('stamped on every copy written, with the owner marks', async () => {
    const fleet = fakeFleet();
    await fleet.dispatcher.apply(workFor(fleet, { hash: 'h1' }));
    for (const c of CLUSTERS) {
      const live = fleet.stores.get(c)?.get('ns/a');
      assert.equal(live?.metadata.annotations?.[RENDERING_ANNOTATION], 'h1');
      assert.equal(live?.metadata.labels?.[MANAGED_LABEL], 'true');
    }
  });

  test('after a restart (nothing recorded) a copy carrying the hash is current: no write, its version reported', async () => {
    const fleet = fakeFleet();
    await fleet.dispatcher.apply(workFor(fleet, { hash: 'h1' }));
    const writes = fleet.log.length;
    const out = await fleet.dispatcher.apply(workFor(fleet, { hash: 'h1' }));
    assert.equal(out.written, false);
    assert.equal(fleet.log.length, writes, 'no write, no event');
    const c1 = out.clusters.get('c1')?.objects[0];
    assert.equal(c1?.version, `rv:${fleet.stores.get('c1')?.get('ns/a')?.metadata.resourceVersion}`);
  });

  test('a new hash rewrites every copy', async () => {
    const fleet = fakeFleet();
    await fleet.dispatcher.apply(workFor(fleet, { hash: 'h1' }));
    const out = await fleet.dispatcher.apply(workFor(fleet, { hash: 'h2', data: 'v2' }));
    assert.equal(out.written, true);
    assert.equal(fleet.stores.get('c3')?.get('ns/a')?.metadata.annotations?.[RENDERING_ANNOTATION], 'h2');
    assert.equal(fleet.events.at(-1)?.message, 'Updating ConfigMap "ns/a" in clusters "c1", "c2", "c3"');
  });

  test('no hash (Federated<Kind>): nothing stamped, and with nothing recorded every copy is written', async () => {
    const fleet = fakeFleet();
    await fleet.dispatcher.apply(workFor(fleet, { owner: federated }));
    assert.equal(fleet.stores.get('c1')?.get('ns/a')?.metadata.annotations, undefined);
    const out = await fleet.dispatcher.apply(workFor(fleet, { owner: federated }));
    assert.equal(out.written, true);
  });
});
