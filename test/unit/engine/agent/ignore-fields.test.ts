import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IgnoreField } from '../../../../src/api/ocm/work/v1/index.ts';
import { ssaBody } from '../../../../src/engine/agent/ignore-fields.ts';
import { objectHash } from '../../../../src/engine/agent/object-hash.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

const HASH = 'open-cluster-management.io/config-spec-hash';
const desired: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns' },
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] },
          { name: 'b', image: 'b:1' },
        ],
      },
    },
  },
};
const present = (...jsonPaths: string[]): IgnoreField[] => [{ condition: 'OnSpokePresent', jsonPaths }];
const spec = (r: ReturnType<typeof ssaBody>) => {
  assert.ok('body' in r, JSON.stringify(r));
  return r.body.spec as {
    replicas?: number;
    template: { spec: { containers: Array<Record<string, unknown>> } };
  };
};

describe('ssaBody (ocm server_side_apply.go)', () => {
  test('no ignoreFields: the manifest as is, no hash', () => {
    assert.deepEqual(ssaBody(desired, undefined, undefined), { body: desired });
    assert.deepEqual(ssaBody(desired, desired, []), { body: desired });
  });

  test('OnSpokePresent: dropped when the object exists, kept on create; the hash is of the reduced body', () => {
    const created = ssaBody(desired, undefined, present('.spec.replicas'));
    assert.equal(spec(created).replicas, 2);
    const updated = ssaBody(desired, desired, present('.spec.replicas'));
    assert.equal(spec(updated).replicas, undefined);
    const reduced = structuredClone(desired);
    delete (reduced.spec as { replicas?: number }).replicas;
    assert.ok('hash' in updated && updated.hash === objectHash(reduced));
    assert.ok('body' in created && created.body.metadata.annotations?.[HASH] === objectHash(reduced));
    assert.equal((desired.spec as { replicas: number }).replicas, 2, 'desired not mutated');
  });

  test('paths through lists and filters', () => {
    const got = ssaBody(desired, desired, present('.spec.template.spec.containers[?(@.name=="a")].image'));
    assert.deepEqual(
      spec(got).template.spec.containers.map((c) => c.image),
      [undefined, 'b:1'],
    );
    const all = ssaBody(desired, desired, present('.spec.template.spec.containers[*].env'));
    assert.equal(spec(all).template.spec.containers[0]?.env, undefined);
  });

  test('OnSpokeChange: kept in the body; the apply is skipped while the live hash matches', () => {
    const fields: IgnoreField[] = [{ condition: 'OnSpokeChange', jsonPaths: ['.spec.replicas'] }];
    const first = ssaBody(desired, { metadata: { name: 'd' } }, fields);
    assert.ok('body' in first);
    assert.equal(spec(first).replicas, 2);
    assert.equal(first.skip, undefined);
    const live: KubeObject = {
      ...desired,
      spec: { replicas: 5 },
      metadata: { name: 'd', annotations: { [HASH]: first.hash ?? '' } },
    };
    const again = ssaBody(desired, live, fields);
    assert.ok('body' in again && again.skip === true);
    const changed = ssaBody({ ...desired, spec: { replicas: 3 } }, live, fields);
    assert.ok('body' in changed && changed.skip === undefined);
  });

  test('JSON pointers are honoured; invalid paths and pointers are errors', () => {
    const withPointer = [
      { condition: 'OnSpokePresent', jsonPaths: [], jsonPointers: ['/spec/template/spec/containers/1'] },
    ] as unknown as IgnoreField[];
    assert.equal(spec(ssaBody(desired, desired, withPointer)).template.spec.containers.length, 1);
    const bad = ssaBody(desired, desired, present('.spec..x.y'));
    assert.ok('error' in bad && bad.error.startsWith("JSON path error in '.spec..x.y'"));
    const badPointer = [
      { condition: 'OnSpokePresent', jsonPaths: [], jsonPointers: ['spec'] },
    ] as unknown as IgnoreField[];
    const r = ssaBody(desired, desired, badPointer);
    assert.ok('error' in r && r.error.startsWith("JSON Pointer error in 'spec'"));
  });
});
