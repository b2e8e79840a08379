import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describeOwnerId,
  FEDERATED_SOURCE,
  OWNER_ANNOTATION,
  type Ownership,
  ownerId,
  ownershipOf,
  stampOwner,
  stampRendering,
} from '../../../src/engine/ownership.ts';
import type { WorkOwner } from '../../../src/engine/work.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { MANAGED_LABEL, RENDERING_ANNOTATION } from '../../../src/propagation/constants.ts';

const federated: WorkOwner = {
  source: FEDERATED_SOURCE,
  kind: 'FederatedConfigMap',
  namespace: 'ns',
  name: 'a',
  uid: 'f1',
};
const policy: WorkOwner = {
  source: 'policy',
  kind: 'ResourceBinding',
  namespace: 'ns',
  name: 'b',
  uid: 'p1',
};
const POLICY_ID = 'policy:ResourceBinding:ns/b';
const OTHER_POLICY_ID = 'policy:ResourceBinding:ns/c';

function obj(labels?: Record<string, string>, annotations?: Record<string, string>): KubeObject {
  return { metadata: { name: 'a', namespace: 'ns', labels, annotations } };
}
const managed = { [MANAGED_LABEL]: 'true' };

describe('ownerId and describeOwnerId', () => {
  test('a namespaced owner: source, kind and namespace/name', () => {
    assert.equal(ownerId(policy), POLICY_ID);
  });
  test('a cluster-scoped owner: source, kind and name', () => {
    assert.equal(ownerId({ source: 'work', kind: 'ClusterWork', name: 'w' }), 'work:ClusterWork:w');
  });
  test('an empty namespace counts as none', () => {
    assert.equal(ownerId({ ...policy, namespace: '' }), 'policy:ResourceBinding:b');
  });
  test('words an owner id for messages', () => {
    assert.equal(describeOwnerId(POLICY_ID), 'policy ResourceBinding "ns/b"');
  });
  test('a name with colons is kept whole', () => {
    assert.equal(describeOwnerId('policy:ClusterRole:system:admin'), 'policy ClusterRole "system:admin"');
  });
  test('no id: the federated source, which writes none', () => {
    assert.equal(describeOwnerId(undefined), 'a federated object of the same name');
  });
  test('an id round-trips into its words', () => {
    assert.equal(describeOwnerId(ownerId(policy)), 'policy ResourceBinding "ns/b"');
  });
});

describe('ownershipOf: who holds a member object, from an owner point of view', () => {
  const rows: Array<{ name: string; live: KubeObject; owner: WorkOwner; want: Ownership }> = [
    { name: 'no labels: unmanaged', live: obj(), owner: federated, want: { kind: 'unmanaged' } },
    {
      name: 'managed label "false": unmanaged',
      live: obj({ [MANAGED_LABEL]: 'false' }),
      owner: federated,
      want: { kind: 'unmanaged' },
    },
    {
      name: 'unmanaged even with an owner annotation',
      live: obj({}, { [OWNER_ANNOTATION]: POLICY_ID }),
      owner: policy,
      want: { kind: 'unmanaged' },
    },
    {
      name: 'federated owner, managed without annotation: ours',
      live: obj(managed),
      owner: federated,
      want: { kind: 'ours' },
    },
    {
      name: 'federated owner, managed with an annotation: the annotated owner',
      live: obj(managed, { [OWNER_ANNOTATION]: POLICY_ID }),
      owner: federated,
      want: { kind: 'other', owner: POLICY_ID },
    },
    {
      name: 'other source, its own annotation: ours',
      live: obj(managed, { [OWNER_ANNOTATION]: POLICY_ID }),
      owner: policy,
      want: { kind: 'ours' },
    },
    {
      name: 'other source, another owner annotation: that owner',
      live: obj(managed, { [OWNER_ANNOTATION]: OTHER_POLICY_ID }),
      owner: policy,
      want: { kind: 'other', owner: OTHER_POLICY_ID },
    },
    {
      name: 'other source seeing a federated object (no annotation): the federated source',
      live: obj(managed, { unrelated: 'x' }),
      owner: policy,
      want: { kind: 'other', owner: undefined },
    },
  ];
  for (const row of rows) test(row.name, () => assert.deepEqual(ownershipOf(row.live, row.owner), row.want));
});

describe('stampOwner: marks an object to write as its owner', () => {
  test('federated: an object without annotations is left without them', () => {
    const o = obj(managed);
    stampOwner(o, federated);
    assert.deepEqual(o, obj(managed));
    assert.equal(o.metadata.annotations, undefined);
  });

  test('federated: other annotations are left as they are', () => {
    const annotations = { note: 'x' };
    const o = obj(managed, annotations);
    stampOwner(o, federated);
    assert.equal(o.metadata.annotations, annotations);
    assert.deepEqual(annotations, { note: 'x' });
  });

  test('federated: a stray owner annotation is removed, the others kept, the original map untouched', () => {
    const annotations = { note: 'x', [OWNER_ANNOTATION]: POLICY_ID };
    const o = obj(managed, annotations);
    stampOwner(o, federated);
    assert.deepEqual(o.metadata.annotations, { note: 'x' });
    assert.deepEqual(annotations, { note: 'x', [OWNER_ANNOTATION]: POLICY_ID });
  });

  test('other sources: the owner annotation is added, the others kept, the original map untouched', () => {
    const annotations = { note: 'x' };
    const o = obj(managed, annotations);
    stampOwner(o, policy);
    assert.deepEqual(o.metadata.annotations, { note: 'x', [OWNER_ANNOTATION]: POLICY_ID });
    assert.deepEqual(annotations, { note: 'x' });
  });

  test('other sources: added where there were no annotations', () => {
    const o = obj(managed);
    stampOwner(o, policy);
    assert.deepEqual(o.metadata.annotations, { [OWNER_ANNOTATION]: POLICY_ID });
  });

  test("other sources: another owner's annotation is replaced by this owner's", () => {
    const o = obj(managed, { [OWNER_ANNOTATION]: OTHER_POLICY_ID });
    stampOwner(o, policy);
    assert.deepEqual(o.metadata.annotations, { [OWNER_ANNOTATION]: POLICY_ID });
  });

  test('what is stamped reads back as ours', () => {
    for (const owner of [federated, policy]) {
      const o = obj(managed, { [OWNER_ANNOTATION]: OTHER_POLICY_ID });
      stampOwner(o, owner);
      assert.deepEqual(ownershipOf(o, owner), { kind: 'ours' });
    }
  });
});

describe('stampRendering: the hash of the rendering on the object to write', () => {
  test('a hash: set, replacing an older one, the other annotations kept and the original map untouched', () => {
    const annotations = { note: 'x', [RENDERING_ANNOTATION]: 'old' };
    const o = obj(managed, annotations);
    stampRendering(o, 'h1');
    assert.deepEqual(o.metadata.annotations, { note: 'x', [RENDERING_ANNOTATION]: 'h1' });
    assert.deepEqual(annotations, { note: 'x', [RENDERING_ANNOTATION]: 'old' });
  });

  test('a hash where there were no annotations', () => {
    const o = obj(managed);
    stampRendering(o, 'h1');
    assert.deepEqual(o.metadata.annotations, { [RENDERING_ANNOTATION]: 'h1' });
  });

  test('no hash: the object is left exactly as it is', () => {
    const o = obj(managed);
    stampRendering(o, undefined);
    assert.deepEqual(o, obj(managed));
    assert.equal(o.metadata.annotations, undefined);
  });
});
