import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appliedManifestWorkOf, ownershipOf } from '../../../src/engine/ownership.ts';
import { ownedByMessage, planObject } from '../../../src/engine/plan.ts';
import type { WorkOwner } from '../../../src/engine/work.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { MANAGED_LABEL } from '../../../src/propagation/constants.ts';

const owner: WorkOwner = {
  source: 'federated',
  kind: 'FederatedConfigMap',
  namespace: 'ns',
  name: 'a',
  uid: 'u',
};
const HUB_HASH = 'a'.repeat(64);

function applied(
  name: string,
  labels?: Record<string, string>,
  apiVersion = 'work.open-cluster-management.io/v1',
): KubeObject {
  return {
    metadata: {
      name: 'a',
      namespace: 'ns',
      labels,
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1' },
        { apiVersion, kind: 'AppliedManifestWork', name, uid: '2' },
      ],
    },
  };
}

describe('objects an OCM ManifestWork holds', () => {
  test('an AppliedManifestWork owner without the managed label: owned by that ManifestWork', () => {
    assert.deepEqual(ownershipOf(applied(`${HUB_HASH}-web`), owner), {
      kind: 'other',
      owner: 'work:ManifestWork:web',
    });
  });
  test('the report names the ManifestWork', () => {
    const live = applied(`${HUB_HASH}-web`);
    const plan = planObject({ live, ownership: ownershipOf(live, owner), desired: {}, keep: false });
    assert.deepEqual(plan, {
      op: 'none',
      status: 'AlreadyOwned',
      message: 'the object is managed by work ManifestWork "web"',
    });
    assert.equal(ownedByMessage('work:ManifestWork:web'), 'the object is managed by work ManifestWork "web"');
  });
  test('an AppliedManifestWork name without a hub hash is the work name as it is', () => {
    assert.equal(appliedManifestWorkOf(applied('plain')), 'work:ManifestWork:plain');
  });
  test("with the managed label the engine's own rules hold (what an agent applies for the engine)", () => {
    assert.deepEqual(ownershipOf(applied(`${HUB_HASH}-kubefed-x`, { [MANAGED_LABEL]: 'true' }), owner), {
      kind: 'ours',
    });
  });
  test("another group's AppliedManifestWork, or none, leaves the object unmanaged", () => {
    assert.equal(appliedManifestWorkOf(applied('w', undefined, 'example.com/v1')), undefined);
    assert.deepEqual(ownershipOf({ metadata: { name: 'a', ownerReferences: ['junk', null] } }, owner), {
      kind: 'unmanaged',
    });
  });
  test('an object owned by a ManifestWork is neither deleted nor released when not desired', () => {
    const live = applied(`${HUB_HASH}-web`);
    assert.deepEqual(
      planObject({ live, ownership: ownershipOf(live, owner), desired: undefined, keep: false }),
      { op: 'none' },
    );
  });
  test("a Federated<Kind> object a Pull agent applied names its owner: still that owner's, nobody else's", () => {
    const live: KubeObject = {
      metadata: {
        name: 'a',
        namespace: 'ns',
        labels: { [MANAGED_LABEL]: 'true' },
        annotations: { 'kubefed-ts.io/owner': 'federated:FederatedConfigMap:ns/a' },
      },
    };
    assert.deepEqual(ownershipOf(live, owner), { kind: 'ours' });
    assert.deepEqual(ownershipOf(live, { ...owner, name: 'b' }), {
      kind: 'other',
      owner: 'federated:FederatedConfigMap:ns/a',
    });
    assert.deepEqual(
      ownershipOf(live, { source: 'policy', kind: 'ResourceBinding', namespace: 'ns', name: 'a', uid: '' }),
      {
        kind: 'other',
        owner: 'federated:FederatedConfigMap:ns/a',
      },
    );
  });
});
