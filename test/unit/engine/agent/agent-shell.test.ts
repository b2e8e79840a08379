import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  APPLIED_MANIFEST_WORK_FINALIZER,
  type AppliedManifestWork,
  type ManifestWork,
} from '../../../../src/api/ocm/work/v1/index.ts';
import { appliedWorkUpToDate, desiredAppliedWork } from '../../../../src/engine/agent/applied-work.ts';
import { executorVerbs, notAllowedMessage } from '../../../../src/engine/agent/executor.ts';
import { groupVersionKind } from '../../../../src/engine/agent/resolver.ts';

const work = (labels?: Record<string, string>): ManifestWork => ({
  metadata: { name: 'web', namespace: 'cluster1', ...(labels ? { labels } : {}) },
  spec: {},
});
const id = { name: 'abc-web', hubHash: 'abc', agentId: 'agent' };

test('the AMW names its work, hub and agent, copies the work labels and carries its finalizer', () => {
  const amw = desiredAppliedWork(id, work({ team: 'blue' }), undefined);
  assert.deepEqual(amw.spec, { hubHash: 'abc', agentID: 'agent', manifestWorkName: 'web' });
  assert.deepEqual(amw.metadata.labels, { team: 'blue' });
  assert.deepEqual(amw.metadata.finalizers, [APPLIED_MANIFEST_WORK_FINALIZER]);
});

test('an existing AMW keeps its uid, status and other finalizers, and is up to date only when nothing differs', () => {
  const live: AppliedManifestWork = {
    metadata: { name: 'abc-web', uid: 'u1', finalizers: ['other'], labels: { team: 'blue' } },
    spec: { hubHash: 'abc', agentID: 'agent', manifestWorkName: 'web' },
    status: { appliedResources: [{ resource: 'configmaps', name: 'a', version: 'v1' }] },
  };
  const next = desiredAppliedWork(id, work({ team: 'blue' }), live);
  assert.equal(next.metadata.uid, 'u1');
  assert.deepEqual(next.metadata.finalizers, ['other', APPLIED_MANIFEST_WORK_FINALIZER]);
  assert.deepEqual(next.status, live.status);
  assert.equal(appliedWorkUpToDate(live, next), false, 'our finalizer is missing');
  const ours = { ...live, metadata: { ...live.metadata, finalizers: [APPLIED_MANIFEST_WORK_FINALIZER] } };
  assert.equal(appliedWorkUpToDate(ours, desiredAppliedWork(id, work({ team: 'blue' }), ours)), true);
  assert.equal(appliedWorkUpToDate(ours, desiredAppliedWork(id, work({ team: 'green' }), ours)), false);
});

test('executor verbs: OCM’s four, delete for owned resources, escalate and bind for RBAC', () => {
  assert.deepEqual(executorVerbs({ group: '', resource: 'configmaps' }, false), [
    'create',
    'update',
    'patch',
    'get',
  ]);
  assert.deepEqual(executorVerbs({ group: 'apps', resource: 'deployments' }, true), [
    'create',
    'update',
    'patch',
    'get',
    'delete',
  ]);
  assert.equal(
    executorVerbs({ group: 'rbac.authorization.k8s.io', resource: 'roles' }, true).at(-1),
    'escalate',
  );
  assert.equal(
    executorVerbs({ group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }, true).at(-1),
    'bind',
  );
  assert.equal(
    notAllowedMessage(
      { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'web' },
      false,
    ),
    'not allowed to apply the resource apps deployments, ns web, will try again in 1m0s',
  );
});

test('group, version and kind of a manifest; the core group is empty', () => {
  assert.deepEqual(groupVersionKind({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
  });
  assert.deepEqual(groupVersionKind({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: {} }), {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
  });
});
