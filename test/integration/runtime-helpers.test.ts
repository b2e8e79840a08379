import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  API_VERSION,
  type ReplicaSchedulingPreference,
  ReplicaSchedulingPreferenceType,
  RSP_KIND,
} from '../../src/api/scheduling/v1alpha1/index.ts';
import { installControlPlane } from '../../src/install/control-plane.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client/index.ts';
import { ensureFinalizer, removeFinalizer } from '../../src/runtime/finalizers.ts';
import { writeStatusIfChanged } from '../../src/runtime/status.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { NS } from './helpers.ts';

type Rsp = ReplicaSchedulingPreference & KubeObject;
const T = ReplicaSchedulingPreferenceType;
const typeMeta = { apiVersion: API_VERSION, kind: RSP_KIND };
const F = 'example.io/test-finalizer';

/** The finalizer and status helpers against a real API server: its 409s and 404s, not a fake's. */
describe('finalizer and status helpers against a real apiserver', () => {
  let fed: Federation;
  let host: KubeClient;

  before(async () => {
    fed = await startFederation({ members: [] });
    host = fed.host.client();
    await installControlPlane(host, NS);
  });
  after(async () => {
    await host?.close();
    await fed?.stop();
  });

  const create = (name: string) =>
    host.create<Rsp>(T, {
      apiVersion: API_VERSION,
      kind: RSP_KIND,
      metadata: { name, namespace: NS },
      spec: { targetKind: 'FederatedDeployment', totalReplicas: 3 },
    });
  const touch = (name: string, patch: object) =>
    host.patch<Rsp>(T, name, patch, { namespace: NS, patchType: 'merge' });
  const get = (name: string) => host.get<Rsp>(T, name, NS);

  test('a finalizer write from a stale object conflicts and asks for a look at once; the fresh one succeeds', async () => {
    const stale = await create('finalizers');
    await touch('finalizers', { metadata: { labels: { touched: '1' } } });

    const conflicted = await ensureFinalizer(host, T, stale, F);
    assert.equal(conflicted.done, false);
    if (!conflicted.done) assert.deepEqual(conflicted.result, { kind: 'requeueAfter', ms: 0 });
    assert.deepEqual(
      (await get('finalizers')).metadata.finalizers ?? [],
      [],
      'the stale write changed nothing',
    );

    const ensured = await ensureFinalizer(host, T, await get('finalizers'), F);
    assert.ok(ensured.done && ensured.written);
    assert.deepEqual(ensured.object.metadata.finalizers, [F]);
    assert.equal(ensured.object.metadata.labels?.touched, '1', 'the merge patch kept the rest');

    await touch('finalizers', { metadata: { labels: { touched: '2' } } });
    const removeConflicted = await removeFinalizer(host, T, ensured.object, F);
    assert.ok(!removeConflicted.done && removeConflicted.result.kind === 'requeueAfter');
    assert.deepEqual((await get('finalizers')).metadata.finalizers, [F]);

    // Deleting waits for the finalizer; removing it from the fresh object lets the object go.
    await host.delete(T, 'finalizers', { namespace: NS });
    const removed = await removeFinalizer(host, T, await get('finalizers'), F);
    assert.ok(removed.done && removed.written);
    await assert.rejects(get('finalizers'), (e: { statusCode?: number }) => e.statusCode === 404);

    const gone = await ensureFinalizer(host, T, stale, F);
    assert.ok(!gone.done);
    if (!gone.done) assert.deepEqual(gone.result, { kind: 'ok' });
  });

  test('the status writer re-reads on a conflict, recomputes from the fresh object and writes', async () => {
    const stale = await create('status');
    await touch('status', { metadata: { labels: { touched: '1' } } });
    const seen: string[] = [];
    const w = await writeStatusIfChanged({
      client: host,
      type: T,
      typeMeta,
      object: stale,
      compute: (current) => {
        seen.push(current.metadata.resourceVersion ?? '');
        return { status: { totalScheduled: 3 }, changed: current.status?.totalScheduled !== 3 };
      },
    });
    assert.equal(w.kind, 'written');
    assert.equal(seen.length, 2, 'computed once from the stale object and once from the fresh one');
    assert.notEqual(seen[0], seen[1]);
    assert.equal((await get('status')).status?.totalScheduled, 3);

    // Now the same status is not written again.
    const again = await writeStatusIfChanged({
      client: host,
      type: T,
      typeMeta,
      object: await get('status'),
      compute: (current) => ({
        status: { totalScheduled: 3 },
        changed: current.status?.totalScheduled !== 3,
      }),
    });
    assert.deepEqual(again, { kind: 'unchanged' });
  });

  test('the status writer gives way to a newer generation and reports a deleted object as gone', async () => {
    const stale = await create('generation');
    await touch('generation', { spec: { totalReplicas: 4 } });
    const compute = () => ({ status: { totalScheduled: 3 }, changed: true });
    const w = await writeStatusIfChanged({ client: host, type: T, typeMeta, object: stale, compute });
    assert.deepEqual(w, { kind: 'superseded' });
    assert.equal((await get('generation')).status?.totalScheduled, undefined, 'no status for the old spec');

    await host.delete(T, 'generation', { namespace: NS });
    const gone = await writeStatusIfChanged({ client: host, type: T, typeMeta, object: stale, compute });
    assert.deepEqual(gone, { kind: 'gone' });
  });
});
