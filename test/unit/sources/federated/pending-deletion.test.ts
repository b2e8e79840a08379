import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import {
  judgeCluster,
  judgeFederatedObject,
  judgeMemberCopy,
} from '../../../../src/sources/federated/pending-deletion/decide.ts';
import {
  fromConfigMap,
  PENDING_DELETION_LABEL,
  type PendingDeletion,
  pendingDeletionName,
  toConfigMap,
} from '../../../../src/sources/federated/pending-deletion/record.ts';

const record: PendingDeletion = {
  cluster: 'cluster3',
  target: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  name: 'web',
  namespace: 'apps',
  federated: {
    group: 'types.kubefed.io',
    version: 'v1beta1',
    plural: 'federatedconfigmaps',
    kind: 'FederatedConfigMap',
    namespaced: true,
  },
  federatedNamespace: 'apps',
  federatedUid: 'fed-1',
  memberUid: 'm-1',
  deletedAt: '2026-12-01T10:00:00Z',
  deleteOptions: { propagationPolicy: 'Orphan' },
};

function copy(meta: Partial<KubeObject['metadata']>): KubeObject {
  return {
    metadata: {
      name: 'web',
      namespace: 'apps',
      uid: 'm-1',
      creationTimestamp: '2026-12-01T09:00:00Z',
      labels: { 'kubefed.io/managed': 'true' },
      ...meta,
    },
  };
}

describe('pending-deletion record (ConfigMap)', () => {
  test('round-trips through a labelled ConfigMap in the KubeFed namespace', () => {
    const cm = toConfigMap(record, 'kube-federation-system');
    assert.equal(cm.metadata.namespace, 'kube-federation-system');
    assert.equal(cm.metadata.labels?.[PENDING_DELETION_LABEL], 'true');
    assert.equal(cm.data?.cluster, 'cluster3');
    assert.equal(cm.data?.apiVersion, 'v1');
    assert.deepEqual(fromConfigMap(cm), record);
  });

  test('cluster-scoped targets and unknown member uid round-trip', () => {
    const ns: PendingDeletion = {
      ...record,
      target: { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false },
      name: 'apps',
      namespace: undefined,
      memberUid: undefined,
      deleteOptions: undefined,
      federated: { ...record.federated, plural: 'federatednamespaces', kind: 'FederatedNamespace' },
    };
    assert.deepEqual(fromConfigMap(toConfigMap(ns, 'kf')), ns);
  });

  test('the name is readable, unique per (federated uid, cluster) and always a valid ConfigMap name', () => {
    const n = pendingDeletionName(record);
    assert.match(n, /^pending-deletion-configmap-web-cluster3-[0-9a-f]{10}$/);
    assert.notEqual(n, pendingDeletionName({ ...record, federatedUid: 'fed-2' }));
    assert.notEqual(n, pendingDeletionName({ ...record, cluster: 'cluster4' }));
    const odd = pendingDeletionName({
      ...record,
      target: { ...record.target, kind: 'ClusterRole' },
      name: `system:Controller:${'x'.repeat(300)}`,
    });
    assert.ok(odd.length <= 253, `${odd.length}`);
    assert.match(odd, /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
  });

  test('a record edited into something else is reported, not thrown', () => {
    assert.deepEqual(Object.hasOwn(fromConfigMap({ metadata: {}, data: { cluster: 'c' } }), 'invalid'), true);
    const bad = toConfigMap(record, 'kf');
    assert.match(
      (fromConfigMap({ ...bad, data: { ...bad.data, deleteOptions: '[1' } }) as { invalid: string }).invalid,
      /deleteOptions/,
    );
    assert.match(
      (fromConfigMap({ ...bad, data: { ...bad.data, deletedAt: 'yesterday' } }) as { invalid: string })
        .invalid,
      /deletedAt/,
    );
  });
});

describe('judging a pending deletion', () => {
  test('a member that is gone from the registry drops the record; one not ready waits', () => {
    assert.equal(judgeCluster({ registered: false, ready: false }).action, 'drop');
    assert.equal(judgeCluster({ registered: true, ready: false }).action, 'waitForCluster');
    assert.equal(judgeCluster({ registered: true, ready: true }).action, 'continue');
  });

  test('a federated object of the same name: the deleted one still finalizing waits, a newer one wins', () => {
    assert.equal(judgeFederatedObject(record, undefined).action, 'continue');
    assert.equal(judgeFederatedObject(record, 'fed-1').action, 'waitForRelease');
    assert.deepEqual(
      { ...judgeFederatedObject(record, 'fed-2'), message: '' },
      { action: 'drop', reason: 'superseded', message: '' },
    );
  });

  const reason = (v: ReturnType<typeof judgeMemberCopy>) => (v.action === 'drop' ? v.reason : v.action);

  test('the managed copy with the recorded uid is deleted, with that uid as precondition', () => {
    assert.deepEqual(judgeMemberCopy(record, copy({})), { action: 'delete', uid: 'm-1' });
  });

  test('no copy, or one already being deleted: done', () => {
    assert.equal(reason(judgeMemberCopy(record, undefined)), 'gone');
    assert.equal(
      reason(judgeMemberCopy(record, copy({ deletionTimestamp: '2026-12-01T11:00:00Z' }))),
      'deleting',
    );
  });

  test('a copy a user un-managed (label false or removed) is left alone', () => {
    assert.equal(
      reason(judgeMemberCopy(record, copy({ labels: { 'kubefed.io/managed': 'false' } }))),
      'notManaged',
    );
    assert.equal(reason(judgeMemberCopy(record, copy({ labels: {} }))), 'notManaged');
  });

  test('a managed copy with another uid was replaced: left alone', () => {
    assert.equal(reason(judgeMemberCopy(record, copy({ uid: 'm-2' }))), 'replaced');
  });

  test('without a recorded uid: a copy created before the deletion is deleted, one created after is not', () => {
    const unknown = { ...record, memberUid: undefined };
    assert.deepEqual(judgeMemberCopy(unknown, copy({ uid: 'any' })), { action: 'delete', uid: 'any' });
    assert.equal(
      reason(judgeMemberCopy(unknown, copy({ creationTimestamp: '2026-12-01T10:00:01Z' }))),
      'replaced',
    );
  });

  test("the host cluster's own namespace is never deleted", () => {
    assert.equal(reason(judgeMemberCopy(record, copy({}), 'm-1')), 'hostNamespace');
    assert.equal(judgeMemberCopy(record, copy({}), 'other').action, 'delete');
  });

  test('a copy another source owns is never deleted, even with the recorded uid', () => {
    const owned = copy({ annotations: { 'kubefed-ts.io/owner': 'policy:ResourceBinding:apps/web' } });
    const v = judgeMemberCopy(record, owned);
    assert.equal(reason(v), 'otherOwner');
    assert.match(v.action === 'drop' ? v.message : '', /policy ResourceBinding "apps\/web"/);
  });
});
