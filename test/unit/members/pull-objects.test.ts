import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { manifestWorkFor } from '../../../src/engine/pull/manifest-work.ts';
import { CoreTypes } from '../../../src/kube/client/index.ts';
import { pullMemberObjects } from '../../../src/members/pull-objects.ts';

const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };
const SECRET = { ...CoreTypes.secrets, kind: 'Secret' };
const NS = { ...CoreTypes.namespaces, kind: 'Namespace' };
const owner = { source: 'policy', kind: 'ResourceBinding', namespace: 'apps', name: 'b', uid: 'u' };

describe('pullMemberObjects', () => {
  const mw = manifestWorkFor(owner, 'c', [
    { ref: { type: NS, name: 'apps' }, object: { metadata: { name: 'apps' } } },
    {
      ref: { type: CM, namespace: 'apps', name: 'x' },
      object: { metadata: { name: 'x', namespace: 'apps' } },
    },
    {
      ref: { type: SECRET, namespace: 'apps', name: 'x' },
      object: { metadata: { name: 'x', namespace: 'apps' } },
    },
  ]);
  test('the manifests of one type, told apart from another type of the same name', () => {
    assert.deepEqual(
      pullMemberObjects(mw, CM).map((o) => o.kind),
      ['ConfigMap'],
    );
    assert.deepEqual(
      pullMemberObjects(mw, SECRET).map((o) => o.kind),
      ['Secret'],
    );
    assert.deepEqual(
      pullMemberObjects(mw, NS).map((o) => o.metadata.name),
      ['apps'],
    );
  });
  test("a manifest whose config does not name it is nobody's type", () => {
    const odd = structuredClone(mw);
    odd.spec.manifestConfigs = odd.spec.manifestConfigs?.slice(1);
    assert.deepEqual(pullMemberObjects(odd, CM), []);
  });
});
