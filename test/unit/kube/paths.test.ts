import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  apiVersionOf,
  CoreTypes,
  groupQualifiedName,
  resourceTypeName,
} from '../../../src/kube/client/index.ts';

const deployments = { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true };

test('apiVersionOf: group/version, or the bare version for the core group', () => {
  assert.equal(apiVersionOf(deployments), 'apps/v1');
  assert.equal(apiVersionOf(CoreTypes.configMaps), 'v1');
  assert.equal(apiVersionOf({ group: 'types.kubefed.io', version: 'v1beta1' }), 'types.kubefed.io/v1beta1');
});

test('resourceTypeName: plural.group/version, or plural/version for the core group', () => {
  assert.equal(resourceTypeName(deployments), 'deployments.apps/v1');
  assert.equal(resourceTypeName(CoreTypes.namespaces), 'namespaces/v1');
  assert.equal(
    resourceTypeName({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles' }),
    'clusterroles.rbac.authorization.k8s.io/v1',
  );
});

test('groupQualifiedName: plural.group, or the bare plural for the core group', () => {
  assert.equal(groupQualifiedName('deployments', 'apps'), 'deployments.apps');
  assert.equal(groupQualifiedName('configmaps', ''), 'configmaps');
});
