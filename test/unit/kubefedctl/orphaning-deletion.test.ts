import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  isFederatedApiResource,
  isOrphaningEnabled,
  orphanAnnotationPatch,
} from '../../../src/kubefedctl/orphaning-deletion.ts';

describe('orphaning-deletion helpers', () => {
  test('only kubefed.io/orphan: "true" enables orphaning', () => {
    const withValue = (v?: string) => ({
      metadata: { name: 'x', ...(v === undefined ? {} : { annotations: { 'kubefed.io/orphan': v } }) },
    });
    assert.equal(isOrphaningEnabled(withValue('true')), true);
    assert.equal(isOrphaningEnabled(withValue('True')), false);
    assert.equal(isOrphaningEnabled(withValue('false')), false);
    assert.equal(isOrphaningEnabled(withValue()), false);
  });

  test('enable and disable are merge patches of the annotation alone', () => {
    assert.deepEqual(orphanAnnotationPatch(true), {
      metadata: { annotations: { 'kubefed.io/orphan': 'true' } },
    });
    assert.deepEqual(orphanAnnotationPatch(false), {
      metadata: { annotations: { 'kubefed.io/orphan': null } },
    });
  });

  test('federated types are Federated* kinds in types.kubefed.io', () => {
    assert.equal(isFederatedApiResource({ kind: 'FederatedDeployment', group: 'types.kubefed.io' }), true);
    assert.equal(isFederatedApiResource({ kind: 'Deployment', group: 'apps' }), false);
    assert.equal(isFederatedApiResource({ kind: 'FederatedTypeConfig', group: 'core.kubefed.io' }), false);
    assert.equal(isFederatedApiResource({ kind: 'FederatedWidget', group: 'fed.example.io' }), false);
  });
});
