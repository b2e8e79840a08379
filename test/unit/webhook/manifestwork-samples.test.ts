import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { parseAllDocuments } from 'yaml';
import { allCrds } from '../../../src/api/crds.ts';
import { REPO_ROOT } from '../../../src/paths.ts';
import type { JsonObject } from '../../../src/propagation/json.ts';
import { reviewManifestWork } from '../../../src/webhook/validation/manifestwork.ts';
import { manifestWorkReplicaSetDenial } from '../../../src/webhook/validation/manifestworkreplicaset.ts';

// config/samples/ocm: OCM's documentation examples, each admitted by the webhook rules and valid against the
// CRD schema kubefed-ts serves (the apiserver's own check, CEL rules included, is test/integration's).

const dir = join(REPO_ROOT, 'config/samples/ocm');
const samples = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => ({
      file,
      obj: d.toJS() as JsonObject,
    })),
  );
const ofKind = (kind: string) => samples.filter((s) => s.obj['kind'] === kind);

/** The schema with fields that have a default no longer required: the apiserver defaults before it validates. */
function defaulted(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(defaulted);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'default' ? v : defaulted(v);
  const props = out['properties'] as Record<string, JsonObject> | undefined;
  if (Array.isArray(out['required']) && props) {
    out['required'] = (out['required'] as string[]).filter((f) => props[f]?.['default'] === undefined);
  }
  return out;
}

/** The schema errors of `obj` against the served CRD of its kind (undefined: not a kubefed-ts CRD). */
function schemaErrors(obj: JsonObject): string[] | undefined {
  const [group] = String(obj['apiVersion']).split('/');
  const crd = allCrds().find((c) => c.spec.group === group && c.spec.names.kind === obj['kind']);
  if (!crd) return undefined;
  const schema = defaulted(crd.spec.versions[0]!.schema.openAPIV3Schema) as JsonObject;
  return [...Value.Errors(schema, obj)].map((e) => `${e.instancePath}: ${e.message}`);
}

describe('config/samples/ocm: the examples of OCM documentation', () => {
  test('every ManifestWork is valid against the CRD and admitted by the webhook rules', () => {
    const works = ofKind('ManifestWork');
    assert.ok(works.length >= 5);
    for (const { file, obj } of works) {
      assert.deepEqual(schemaErrors(obj), [], file);
      const review = reviewManifestWork(obj, undefined);
      assert.notEqual(review.kind, 'deny', `${file}: ${JSON.stringify(review)}`);
      assert.equal((obj['metadata'] as JsonObject)['namespace'], 'cluster1', file);
    }
    const specs = works.map((w) => JSON.stringify(w.obj['spec']));
    assert.ok(specs.some((s) => s.includes('"deleteOption"')));
    assert.ok(specs.some((s) => s.includes('"updateStrategy"')));
    assert.ok(specs.some((s) => s.includes('"type":"CEL"')));
  });

  test('the executor sample asks execute-as for default/executor1, which its Role grants', () => {
    const [executor] = ofKind('ManifestWork').filter((s) => s.file === 'manifestwork-executor.yaml');
    assert.deepEqual(reviewManifestWork(executor!.obj, undefined), {
      kind: 'executeAs',
      serviceAccount: { namespace: 'default', name: 'executor1' },
    });
    const [role] = ofKind('Role');
    assert.deepEqual(role?.obj['rules'], [
      {
        apiGroups: ['work.open-cluster-management.io'],
        resources: ['manifestworks'],
        verbs: ['execute-as'],
        resourceNames: ['system:serviceaccount:default:executor1'],
      },
    ]);
  });

  test('the ManifestWorkReplicaSet and its Placement are valid and admitted', () => {
    const [mwrs] = ofKind('ManifestWorkReplicaSet');
    const [placement] = ofKind('Placement');
    assert.ok(mwrs && placement);
    assert.deepEqual(schemaErrors(mwrs.obj), []);
    assert.deepEqual(schemaErrors(placement.obj), []);
    assert.equal(manifestWorkReplicaSetDenial(mwrs.obj), undefined);
    const refs = (mwrs.obj['spec'] as JsonObject)['placementRefs'] as JsonObject[];
    assert.deepEqual(
      refs.map((r) => r['name']),
      [(placement.obj['metadata'] as JsonObject)['name']],
    );
  });

  test('the schema check does catch a wrong enum (the samples pass because they are right)', () => {
    const [work] = ofKind('ManifestWork');
    const broken = structuredClone(work!.obj);
    (broken['spec'] as JsonObject)['deleteOption'] = { propagationPolicy: 'Sometimes' };
    assert.ok((schemaErrors(broken) ?? []).length > 0);
  });

  test('every sample cites the OCM page it comes from', () => {
    for (const f of readdirSync(dir))
      assert.match(readFileSync(join(dir, f), 'utf8'), /^# .*open-cluster-management\.io\/docs\//m, f);
  });
});
