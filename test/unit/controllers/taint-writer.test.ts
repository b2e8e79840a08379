import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Taint } from '../../../src/api/core/v1beta1/kubefedcluster.ts';
import {
  type ClusterObject,
  updateClusterTaints,
} from '../../../src/controllers/kubefedcluster/taint-writer.ts';
import { editTaints, UNREACHABLE_NO_SCHEDULE } from '../../../src/controllers/kubefedcluster/taints.ts';
import { ApiError, type KubeClient, type KubeObject } from '../../../src/kube/client/index.ts';

const NOW = '2026-12-01T10:00:00Z';
const user: Taint = { key: 'team', value: 'a', effect: 'NoSchedule' };

/** A host holding one KubeFedCluster with resourceVersions, answering 409 to a stale update. */
function fakeHost(initial: ClusterObject) {
  let stored = structuredClone(initial);
  const updates: ClusterObject[] = [];
  const host: Pick<KubeClient, 'get' | 'update'> = {
    get: (async () => structuredClone(stored)) as unknown as KubeClient['get'],
    update: (async (_type: unknown, obj: KubeObject) => {
      const body = obj as ClusterObject;
      updates.push(structuredClone(body));
      if (body.metadata.resourceVersion !== stored.metadata.resourceVersion)
        throw new ApiError({
          statusCode: 409,
          reason: 'Conflict',
          message: 'conflict',
          method: 'PUT',
          path: '/x',
        });
      stored = {
        ...structuredClone(body),
        metadata: { ...body.metadata, resourceVersion: String(Number(body.metadata.resourceVersion) + 1) },
      };
      return structuredClone(stored);
    }) as unknown as KubeClient['update'],
  };
  return {
    host,
    updates,
    stored: () => stored,
    /** Someone else writes meanwhile. */
    userWrites: (taints: Taint[]) => {
      stored = {
        ...stored,
        spec: { ...stored.spec, taints },
        metadata: {
          ...stored.metadata,
          resourceVersion: String(Number(stored.metadata.resourceVersion) + 1),
        },
      };
    },
  };
}

const cluster = (taints?: Taint[]): ClusterObject => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'KubeFedCluster',
  metadata: { name: 'm1', namespace: 'kube-federation-system', resourceVersion: '1' },
  spec: { apiEndpoint: 'https://m1', secretRef: { name: 'm1' }, ...(taints ? { taints } : {}) },
});

describe('updateClusterTaints', () => {
  const addUnreachable = (c: ClusterObject) => editTaints(c.spec.taints, [UNREACHABLE_NO_SCHEDULE], [], NOW);

  test('no write when the decision is no change', async () => {
    const fake = fakeHost(cluster([user]));
    const res = await updateClusterTaints(fake.host, cluster([user]), () => undefined);
    assert.equal(res.kind, 'unchanged');
    assert.equal(fake.updates.length, 0);
  });

  test('a conflict re-reads and decides again: the taint a user wrote meanwhile is kept', async () => {
    const fake = fakeHost(cluster());
    const stale = cluster();
    fake.userWrites([user]);
    const res = await updateClusterTaints(fake.host, stale, addUnreachable);
    assert.equal(res.kind, 'written');
    assert.equal(fake.updates.length, 2, 'one conflict, one write');
    assert.deepEqual(fake.stored().spec.taints, [user, { ...UNREACHABLE_NO_SCHEDULE, timeAdded: NOW }]);
  });

  test('removing the last taint drops spec.taints; a name alone is read first', async () => {
    const fake = fakeHost(cluster([user]));
    const res = await updateClusterTaints(
      fake.host,
      { name: 'm1', namespace: 'kube-federation-system' },
      (c) => editTaints(c.spec.taints, [], [user], NOW),
    );
    assert.equal(res.kind, 'written');
    assert.equal('taints' in fake.stored().spec, false);
  });

  test('gives up after the attempts, with the conflict', async () => {
    const fake = fakeHost(cluster());
    const host: typeof fake.host = {
      get: fake.host.get,
      update: (async (type: Parameters<KubeClient['update']>[0], obj: KubeObject) => {
        fake.userWrites([]);
        return fake.host.update(type, obj);
      }) as unknown as KubeClient['update'],
    };
    await assert.rejects(updateClusterTaints(host, cluster(), addUnreachable, 3), /conflict/);
  });

  test('a cluster that is gone is no error', async () => {
    const host: Pick<KubeClient, 'get' | 'update'> = {
      get: (async () => {
        throw new ApiError({
          statusCode: 404,
          reason: 'NotFound',
          message: 'not found',
          method: 'GET',
          path: '/x',
        });
      }) as unknown as KubeClient['get'],
      update: (async () => assert.fail('no update')) as unknown as KubeClient['update'],
    };
    assert.equal(
      (await updateClusterTaints(host, { name: 'x', namespace: 'ns' }, addUnreachable)).kind,
      'gone',
    );
  });
});
