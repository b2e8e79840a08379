import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemberStatusWriter, type StatusRegistry } from '../../../src/engine/member-status.ts';
import { type KubeClient, type KubeObject, TransportError } from '../../../src/kube/client/index.ts';

const TYPE = {
  group: 'multicluster.x-k8s.io',
  version: 'v1beta1',
  plural: 'serviceexports',
  namespaced: true,
  kind: 'ServiceExport',
};
const obj: KubeObject = { metadata: { name: 'hello', namespace: 'ns', resourceVersion: '1' } };

function registry(update: (o: KubeObject) => Promise<KubeObject>, unresponsive = false) {
  const calls: Array<{ body: KubeObject; subresource?: string }> = [];
  let marked = 0;
  const client = {
    update: async (_t: unknown, body: KubeObject, opts?: { subresource?: string }) => {
      calls.push({ body, subresource: opts?.subresource });
      return update(body);
    },
    get: async () => obj,
  } as unknown as KubeClient;
  const r: StatusRegistry = {
    clientFor: () => client,
    isUnresponsive: () => unresponsive,
    markUnresponsive: () => {
      marked++;
    },
  };
  return { r, calls, marked: () => marked };
}

describe('MemberStatusWriter', () => {
  test('writes /status with the type stamped, only when changed', async () => {
    const { r, calls } = registry(async (o) => o);
    const w = new MemberStatusWriter(r);
    assert.equal(
      (await w.write('c1', TYPE, obj, () => ({ status: { a: 1 }, changed: false }))).kind,
      'unchanged',
    );
    assert.equal(calls.length, 0);
    assert.equal(
      (await w.write('c1', TYPE, obj, () => ({ status: { a: 1 }, changed: true }))).kind,
      'written',
    );
    assert.equal(calls[0]?.subresource, 'status');
    assert.equal(calls[0]?.body.kind, 'ServiceExport');
    assert.equal(calls[0]?.body.apiVersion, 'multicluster.x-k8s.io/v1beta1');
  });

  test('an unresponsive member is not tried', async () => {
    const { r, calls } = registry(async (o) => o, true);
    const got = await new MemberStatusWriter(r).write('c1', TYPE, obj, () => ({ status: {}, changed: true }));
    assert.equal(got.kind, 'skipped');
    assert.equal(calls.length, 0);
  });

  test('no answer at all marks the member unresponsive', async () => {
    const { r, marked } = registry(async () => {
      throw new TransportError('PUT', 'https://m/x', new Error('ECONNREFUSED'));
    });
    const got = await new MemberStatusWriter(r).write('c1', TYPE, obj, () => ({ status: {}, changed: true }));
    assert.equal(got.kind, 'failed');
    assert.equal(marked(), 1);
  });
});
