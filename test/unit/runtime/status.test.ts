import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type KubeObject, type ResourceType } from '../../../src/kube/client/index.ts';
import { type StatusClient, statusWriteResult, writeStatusIfChanged } from '../../../src/runtime/status.ts';

const T: ResourceType = {
  group: 'example.io',
  version: 'v1',
  plural: 'things',
  namespaced: true,
  kind: 'Thing',
};
const typeMeta = { apiVersion: 'example.io/v1', kind: 'Thing' };

interface Thing extends KubeObject {
  status?: { seen?: number; note?: string };
}

function thing(rv: string, generation: number, seen?: number): Thing {
  return { metadata: { name: 'a', namespace: 'ns', resourceVersion: rv, generation }, status: { seen } };
}

function apiError(statusCode: number, reason: string): ApiError {
  return new ApiError({ statusCode, reason, message: reason, method: 'PUT', path: '/x' });
}

/** A fake API: updates answer from `updates` in turn, reads from `reads`. */
function fakeClient(updates: Array<Error | undefined>, reads: Array<Thing | Error>) {
  const written: KubeObject[] = [];
  let gets = 0;
  const client: StatusClient = {
    update: async <T extends KubeObject>(_t: ResourceType, o: T, opts: { subresource?: string } = {}) => {
      assert.equal(opts.subresource, 'status');
      const answer = updates.shift();
      if (answer) throw answer;
      written.push(o);
      return o;
    },
    get: async <T extends KubeObject>(_t: ResourceType, name: string, namespace?: string) => {
      assert.deepEqual([name, namespace], ['a', 'ns']);
      gets++;
      const r = reads.shift();
      if (!r || r instanceof Error) throw r ?? new Error('no read expected');
      return r as unknown as T;
    },
  };
  return { client, written, gets: () => gets };
}

/** The status counts what it saw; changed unless it says so already. */
const compute = (current: Thing) => {
  const status = { seen: 1, note: `from ${current.metadata.resourceVersion}` };
  return { status, changed: current.status?.seen !== 1 };
};

test('an unchanged status is not written', async () => {
  const { client, written } = fakeClient([], []);
  const w = await writeStatusIfChanged({ client, type: T, typeMeta, object: thing('1', 1, 1), compute });
  assert.deepEqual(w, { kind: 'unchanged' });
  assert.equal(written.length, 0);
  assert.equal(statusWriteResult(w).kind, 'ok');
});

test('a changed status is written with apiVersion and kind stamped on', async () => {
  const { client, written } = fakeClient([undefined], []);
  const w = await writeStatusIfChanged({ client, type: T, typeMeta, object: thing('1', 1), compute });
  assert.equal(w.kind, 'written');
  assert.deepEqual(written, [{ ...thing('1', 1), ...typeMeta, status: { seen: 1, note: 'from 1' } }]);
});

test('on a conflict the object is read again and the status recomputed from it', async () => {
  const { client, written } = fakeClient([apiError(409, 'Conflict'), undefined], [thing('2', 1)]);
  const w = await writeStatusIfChanged({ client, type: T, typeMeta, object: thing('1', 1), compute });
  assert.equal(w.kind, 'written');
  assert.equal(written.length, 1);
  assert.equal(written[0]?.metadata.resourceVersion, '2');
  assert.deepEqual(written[0]?.status, { seen: 1, note: 'from 2' });
});

test('the fresh object may already have the status: nothing more is written', async () => {
  const { client, written } = fakeClient([apiError(409, 'Conflict')], [thing('2', 1, 1)]);
  const w = await writeStatusIfChanged({ client, type: T, typeMeta, object: thing('1', 1), compute });
  assert.deepEqual(w, { kind: 'unchanged' });
  assert.equal(written.length, 0);
});

test('a spec that moved on (generation) ends the loop: its own reconcile reports on it', async () => {
  const { client, written } = fakeClient([apiError(409, 'Conflict')], [thing('2', 2)]);
  const w = await writeStatusIfChanged({ client, type: T, typeMeta, object: thing('1', 1), compute });
  assert.deepEqual(w, { kind: 'superseded' });
  assert.equal(written.length, 0);
  assert.equal(statusWriteResult(w).kind, 'ok');
});

test('after the last attempt conflicts the reconcile retries with backoff, without another read', async () => {
  const conflict = apiError(409, 'Conflict');
  const { client, gets } = fakeClient([conflict, conflict, conflict], [thing('2', 1), thing('3', 1)]);
  const w = await writeStatusIfChanged({
    client,
    type: T,
    typeMeta,
    object: thing('1', 1),
    compute,
    attempts: 3,
  });
  assert.deepEqual(w, { kind: 'conflict', error: conflict });
  assert.equal(gets(), 2);
  const r = statusWriteResult(w);
  assert.equal(r.kind, 'error');
});

test('one attempt never reads again', async () => {
  const { client, gets } = fakeClient([apiError(409, 'Conflict')], []);
  const w = await writeStatusIfChanged({
    client,
    type: T,
    typeMeta,
    object: thing('1', 1),
    compute,
    attempts: 1,
  });
  assert.equal(w.kind, 'conflict');
  assert.equal(gets(), 0);
});

test('gone — on the write or on the read — is nothing to report on; other errors retry', async () => {
  const notFound = apiError(404, 'NotFound');
  const a = fakeClient([notFound], []);
  assert.deepEqual(
    await writeStatusIfChanged({ client: a.client, type: T, typeMeta, object: thing('1', 1), compute }),
    {
      kind: 'gone',
    },
  );
  const b = fakeClient([apiError(409, 'Conflict')], [notFound]);
  const gone = await writeStatusIfChanged({
    client: b.client,
    type: T,
    typeMeta,
    object: thing('1', 1),
    compute,
  });
  assert.deepEqual(gone, { kind: 'gone' });
  assert.equal(statusWriteResult(gone).kind, 'ok');
  const boom = apiError(500, 'InternalError');
  const c = fakeClient([boom], []);
  const failed = await writeStatusIfChanged({
    client: c.client,
    type: T,
    typeMeta,
    object: thing('1', 1),
    compute,
  });
  assert.deepEqual(failed, { kind: 'failed', error: boom });
  assert.deepEqual(statusWriteResult(failed), { kind: 'error', error: boom });
});
