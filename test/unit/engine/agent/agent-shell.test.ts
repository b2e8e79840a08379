import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  APPLIED_MANIFEST_WORK_FINALIZER,
  type AppliedManifestWork,
  type ManifestWork,
} from '../../../../src/api/ocm/work/v1/index.ts';
import { appliedWorkUpToDate, desiredAppliedWork } from '../../../../src/engine/agent/applied-work.ts';
import { executorVerbs, notAllowedMessage } from '../../../../src/engine/agent/executor.ts';
import { managedElsewhere } from '../../../../src/engine/agent/manifest-applier.ts';
import { groupVersionKind } from '../../../../src/engine/agent/resolver.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { wantsPushAgent } from '../../../../src/sources/manifestwork/push-controller.ts';

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

test('two fronts: an object another kubefed-ts front manages is not taken over, unless the manifest names its owner', () => {
  const live = (annotations?: Record<string, string>): KubeObject => ({
    metadata: {
      name: 'a',
      labels: { 'kubefed.io/managed': 'true' },
      ...(annotations ? { annotations } : {}),
    },
  });
  const manifest = (annotations?: Record<string, string>): KubeObject => ({
    metadata: { name: 'a', ...(annotations ? { annotations } : {}) },
  });
  assert.equal(
    managedElsewhere(live(), manifest()),
    'the object is managed by a federated object of the same name',
    'a plain manifest does not take a Federated<Kind> object',
  );
  assert.equal(
    managedElsewhere(
      live({ 'kubefed-ts.io/owner': 'policy:ResourceBinding:ns/b' }),
      manifest({ 'kubefed-ts.io/owner': 'policy:ResourceBinding:ns/b' }),
    ),
    undefined,
    'the manifest names the same owner',
  );
  assert.equal(
    managedElsewhere(live({ 'kubefed-ts.io/owner': 'policy:ResourceBinding:ns/b' }), manifest()),
    'the object is managed by policy ResourceBinding "ns/b"',
  );
  assert.equal(
    managedElsewhere(live(), manifest({ 'kubefed-ts.io/owner': 'policy:ResourceBinding:ns/b' })),
    'the object is managed by a federated object of the same name',
  );
  assert.equal(managedElsewhere({ metadata: { name: 'a' } }, manifest()), undefined, 'not managed at all');
});

test('push agents run for ready Push-mode clusters only', () => {
  assert.equal(wantsPushAgent({ spec: {} }, true), true, 'Push is the default');
  assert.equal(wantsPushAgent({ spec: { syncMode: 'Push' } }, false), false);
  assert.equal(wantsPushAgent({ spec: { syncMode: 'Pull' } }, true), false);
  assert.equal(wantsPushAgent(undefined, true), false);
  assert.equal(
    wantsPushAgent({ metadata: { annotations: { 'kubefed-ts.io/member-rbac': 'scoped' } }, spec: {} }, true),
    false,
    'scoped member credentials grant no AppliedManifestWorks',
  );
});
