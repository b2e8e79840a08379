import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deletionAction, removal } from '../../../../src/engine/agent/delete-plan.ts';
import { appliedManifestWorkOwner } from '../../../../src/engine/agent/owner-refs.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

const res = { group: 'apps', resource: 'deployments', namespace: 'ns', name: 'web' };

describe('deletionAction (ocm OwnedByTheWork)', () => {
  test('Foreground and no option delete; Orphan orphans', () => {
    assert.equal(deletionAction(res, { readOnly: false }), 'delete');
    assert.equal(
      deletionAction(res, { readOnly: false, deleteOption: { propagationPolicy: 'Foreground' } }),
      'delete',
    );
    assert.equal(
      deletionAction(res, { readOnly: false, deleteOption: { propagationPolicy: 'Orphan' } }),
      'orphan',
    );
  });
  test('SelectivelyOrphan orphans only exact matches', () => {
    const opt = (rule: object) => ({
      readOnly: false,
      deleteOption: {
        propagationPolicy: 'SelectivelyOrphan' as const,
        selectivelyOrphans: { orphaningRules: [{ resource: 'deployments', name: 'web', ...rule }] },
      },
    });
    assert.equal(deletionAction(res, opt({ group: 'apps', namespace: 'ns' })), 'orphan');
    assert.equal(deletionAction(res, opt({ group: 'apps', namespace: 'other' })), 'delete');
    assert.equal(deletionAction(res, opt({ group: '', namespace: 'ns' })), 'delete');
    assert.equal(deletionAction(res, opt({ group: 'apps', namespace: '*' })), 'delete', 'no wildcards');
    assert.equal(
      deletionAction(res, { readOnly: false, deleteOption: { propagationPolicy: 'SelectivelyOrphan' } }),
      'delete',
    );
  });
  test('ReadOnly resources are never deleted', () => {
    assert.equal(deletionAction(res, { readOnly: true }), 'orphan');
  });
});

describe('removal (ocm DeleteAppliedResources)', () => {
  const mine = appliedManifestWorkOwner({ name: 'h-a', uid: 'amw1' });
  const theirs = appliedManifestWorkOwner({ name: 'h-b', uid: 'amw2' });
  const live = (owners: unknown[], uid = 'obj1'): KubeObject => ({
    metadata: { name: 'web', uid, ownerReferences: owners },
  });
  test('missing → gone; not ours → none', () => {
    assert.equal(removal(undefined, 'amw1', 'delete'), 'gone');
    assert.equal(removal(live([theirs]), 'amw1', 'delete'), 'none');
  });
  test('shared with another work → only our owner goes', () => {
    assert.equal(removal(live([mine, theirs]), 'amw1', 'delete', 'obj1'), 'remove-owner');
  });
  test('orphan → remove our owner', () => {
    assert.equal(removal(live([mine]), 'amw1', 'orphan', 'obj1'), 'remove-owner');
  });
  test('recreated object (uid differs from the recorded one) is forgotten', () => {
    assert.equal(removal(live([mine], 'obj2'), 'amw1', 'delete', 'obj1'), 'gone');
  });
  test('otherwise delete', () => {
    assert.equal(removal(live([mine]), 'amw1', 'delete', 'obj1'), 'delete');
    assert.equal(removal(live([mine]), 'amw1', 'delete'), 'delete');
  });
});
