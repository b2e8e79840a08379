import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  appliedManifestWorkOwner,
  isOwnedBy,
  otherWorkOwners,
  withOwner,
  withoutOwner,
} from '../../../../src/engine/agent/owner-refs.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

const mine = appliedManifestWorkOwner({ name: 'h-web', uid: 'u1' });
const theirs = appliedManifestWorkOwner({ name: 'h-other', uid: 'u2' });
const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: 'u3', controller: true };
const cm = (owners?: unknown[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'ns', ...(owners ? { ownerReferences: owners } : {}) },
});

describe('appliedManifestWorkOwner (ocm NewAppliedManifestWorkOwner)', () => {
  test('a plain owner reference, no controller flag', () => {
    assert.deepEqual(mine, {
      apiVersion: 'work.open-cluster-management.io/v1',
      kind: 'AppliedManifestWork',
      name: 'h-web',
      uid: 'u1',
    });
  });
});

describe('withOwner / withoutOwner', () => {
  test('adds once, keeps other owners, never mutates', () => {
    const obj = cm([rs]);
    const owned = withOwner(withOwner(obj, mine), mine);
    assert.deepEqual(owned.metadata.ownerReferences, [rs, mine]);
    assert.deepEqual(obj.metadata.ownerReferences, [rs]);
    assert.deepEqual(withoutOwner(owned, 'u1').metadata.ownerReferences, [rs]);
  });
  test('drops ownerReferences entirely when the last one goes (orphaned resources have none)', () => {
    const gone = withoutOwner(withOwner(cm(), mine), 'u1');
    assert.equal('ownerReferences' in gone.metadata, false);
  });
});

describe('isOwnedBy / otherWorkOwners', () => {
  test('count only other AppliedManifestWork owners', () => {
    const obj = cm([mine, theirs, rs]);
    assert.ok(isOwnedBy(obj, 'u1'));
    assert.ok(!isOwnedBy(obj, 'nope'));
    assert.equal(otherWorkOwners(obj, 'u1'), 1);
    assert.equal(otherWorkOwners(cm([mine, rs]), 'u1'), 0);
    assert.equal(otherWorkOwners(cm(['junk', null]), 'u1'), 0);
  });
});
