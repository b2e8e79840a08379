import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type KubeObject, type ResourceType } from '../../../src/kube/client/index.ts';
import {
  ensureFinalizer,
  type FinalizerClient,
  finalizersPatch,
  hasFinalizer,
  removeFinalizer,
} from '../../../src/runtime/finalizers.ts';

const T: ResourceType = {
  group: 'example.io',
  version: 'v1',
  plural: 'things',
  namespaced: true,
  kind: 'Thing',
};
const F = 'example.io/finalizer';

function obj(finalizers?: string[]): KubeObject {
  return { metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', finalizers } };
}

function apiError(statusCode: number, reason: string): ApiError {
  return new ApiError({ statusCode, reason, message: reason, method: 'PATCH', path: '/x' });
}

/** Records the patches and answers with `answer`. */
function fakeClient(answer: (patch: unknown) => KubeObject | Error) {
  const calls: Array<{ name: string; patch: unknown; namespace?: string; patchType?: string }> = [];
  const client: FinalizerClient = {
    patch: async <T extends KubeObject>(
      _t: ResourceType,
      name: string,
      patch: unknown,
      opts: { namespace?: string; patchType?: string } = {},
    ): Promise<T> => {
      calls.push({ name, patch, namespace: opts.namespace, patchType: opts.patchType });
      const a = answer(patch);
      if (a instanceof Error) throw a;
      return a as T;
    },
  };
  return { client, calls };
}

test('the patch adds or removes the finalizer, keeps the others and carries the resourceVersion', () => {
  assert.deepEqual(finalizersPatch(obj(['other']).metadata, F, 'present'), {
    metadata: { finalizers: ['other', F], resourceVersion: '7' },
  });
  assert.deepEqual(finalizersPatch(obj(['other', F]).metadata, F, 'absent'), {
    metadata: { finalizers: ['other'], resourceVersion: '7' },
  });
  assert.equal(finalizersPatch(obj([F]).metadata, F, 'present'), undefined);
  assert.equal(finalizersPatch(obj().metadata, F, 'absent'), undefined);
  assert.equal(hasFinalizer(obj([F]), F), true);
  assert.equal(hasFinalizer(obj(), F), false);
});

test('ensureFinalizer writes a merge patch and returns the patched object', async () => {
  const fresh = { metadata: { name: 'a', namespace: 'ns', resourceVersion: '8', finalizers: [F] } };
  const { client, calls } = fakeClient(() => fresh);
  const w = await ensureFinalizer(client, T, obj(), F);
  assert.deepEqual(w, { done: true, written: true, object: fresh });
  assert.deepEqual(calls, [
    {
      name: 'a',
      namespace: 'ns',
      patchType: 'merge',
      patch: { metadata: { finalizers: [F], resourceVersion: '7' } },
    },
  ]);
});

test('nothing is written when the finalizers are already as wanted', async () => {
  const { client, calls } = fakeClient(() => new Error('no write expected'));
  const present = obj([F]);
  assert.deepEqual(await ensureFinalizer(client, T, present, F), {
    done: true,
    written: false,
    object: present,
  });
  const absent = obj();
  assert.deepEqual(await removeFinalizer(client, T, absent, F), {
    done: true,
    written: false,
    object: absent,
  });
  assert.equal(calls.length, 0);
});

test('one policy for a failed write: gone is ok, a conflict requeues at once, anything else retries', async () => {
  const cases: Array<[Error, string]> = [
    [apiError(404, 'NotFound'), 'ok'],
    [apiError(409, 'Conflict'), 'requeueAfter'],
    [apiError(500, 'InternalError'), 'error'],
  ];
  for (const [error, kind] of cases) {
    const { client } = fakeClient(() => error);
    for (const w of [
      await ensureFinalizer(client, T, obj(), F),
      await removeFinalizer(client, T, obj([F]), F),
    ]) {
      assert.equal(w.done, false);
      if (w.done) continue;
      assert.equal(w.result.kind, kind);
      assert.equal(w.error, error);
      if (w.result.kind === 'requeueAfter') assert.equal(w.result.ms, 0);
    }
  }
});
