import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, GROUP, pluralName, VERSION } from '../../../src/api/core/v1beta1/index.ts';

test('group constants', () => {
  assert.equal(GROUP, 'core.kubefed.io');
  assert.equal(VERSION, 'v1beta1');
  assert.equal(API_VERSION, 'core.kubefed.io/v1beta1');
});

test('pluralName follows KubeFed PluralName(kind)', () => {
  assert.equal(pluralName('ConfigMap'), 'configmaps');
  assert.equal(pluralName('Ingress'), 'ingresses');
  assert.equal(pluralName('Box'), 'boxes');
  assert.equal(pluralName('Match'), 'matches');
  assert.equal(pluralName('Mesh'), 'meshes');
  assert.equal(pluralName('Quiz'), 'quizes');
  assert.equal(pluralName('Potato'), 'potatoes');
  assert.equal(pluralName('NetworkPolicy'), 'networkpolicies');
  assert.equal(pluralName('Endpoints'), 'endpointses');
  assert.equal(pluralName('FederatedDeployment'), 'federateddeployments');
});
