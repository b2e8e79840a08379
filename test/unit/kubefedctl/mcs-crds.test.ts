import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mcsMemberCrds } from '../../../src/api/crds.ts';
import type { CrdLike } from '../../../src/kubefedctl/crd-takeover.ts';
import {
  API_APPROVED_ANNOTATION,
  labelledMcsCrds,
  MCS_CRD_OWNER_LABEL,
  mcsCrdsSkipReason,
  planMcsCrd,
  planMcsCrds,
  restoredMcsCrd,
} from '../../../src/kubefedctl/mcs-crds.ts';

const SVCEX = 'serviceexports.multicluster.x-k8s.io';
const NAMES = [SVCEX, 'serviceimports.multicluster.x-k8s.io', 'clusterproperties.about.k8s.io'];

const desired = (name: string): CrdLike => {
  const crd = labelledMcsCrds().find((c) => c.metadata.name === name);
  assert.ok(crd, name);
  return crd;
};
/** As the API server returns what join wrote: the same, plus server fields. */
const installed = (name: string): CrdLike => ({
  ...structuredClone(desired(name)),
  status: { storedVersions: ['v1beta1'] },
});
/** Someone else's copy: mcs-api's own CRD has no kubefed-ts label and other printer columns. */
const foreign = (name: string, versions: Array<{ name: string; served: boolean; storage: boolean }>) => {
  const c = structuredClone(mcsMemberCrds().find((x) => x.metadata.name === name)) as unknown as CrdLike;
  const [first] = c.spec.versions;
  c.spec.versions = versions.map((v) => ({ ...structuredClone(first), ...v }));
  return c;
};

describe('join: the member MCS CRDs', () => {
  test('all three, labelled as kubefed-ts', () => {
    assert.deepEqual(
      labelledMcsCrds().map((c) => [c.metadata.name, c.metadata.labels?.[MCS_CRD_OWNER_LABEL]]),
      NAMES.map((n) => [n, 'kubefed-ts']),
    );
  });

  test("ClusterProperty's protected group (about.k8s.io) carries the API approval the API server requires", () => {
    assert.deepEqual(
      labelledMcsCrds().map((c) => c.metadata.annotations?.[API_APPROVED_ANNOTATION]),
      [undefined, undefined, 'https://github.com/kubernetes/kubernetes/pull/78458'],
    );
  });

  test('a member without them gets them created, labelled', () => {
    const steps = planMcsCrds(new Map());
    assert.deepEqual(
      steps.map((s) => [s.action, s.name]),
      NAMES.map((n) => ['create', n]),
    );
    const [first] = steps;
    assert.equal(first?.action, 'create');
    if (first?.action === 'create')
      assert.equal(first.object.metadata.labels?.[MCS_CRD_OWNER_LABEL], 'kubefed-ts');
  });

  test('our own copy, up to date, is not written again (a re-join writes nothing)', () => {
    const step = planMcsCrd(installed(SVCEX), desired(SVCEX));
    assert.deepEqual(step, { action: 'keep', name: SVCEX, reason: 'up to date' });
  });

  test('our own older copy is updated, keeping its metadata (resourceVersion) and adding what it lacks', () => {
    const old = installed(SVCEX);
    old.metadata = { ...old.metadata, annotations: { 'someone/else': 'x' } };
    (old.metadata as Record<string, unknown>).resourceVersion = '42';
    for (const v of old.spec.versions as unknown as Array<Record<string, unknown>>)
      delete v.additionalPrinterColumns;
    const step = planMcsCrd(old, desired(SVCEX));
    assert.equal(step.action, 'update');
    if (step.action !== 'update') return;
    assert.deepEqual(step.changes, ['v1alpha1: printer columns', 'v1beta1: printer columns']);
    assert.equal((step.object.metadata as Record<string, unknown>).resourceVersion, '42');
    assert.equal(step.object.metadata.annotations?.['someone/else'], 'x');
    assert.deepEqual(step.object.spec, desired(SVCEX).spec);
  });

  test('our own copy that would lose a stored version is kept, with a warning', () => {
    const old = installed(SVCEX);
    old.status = { storedVersions: ['v1beta1', 'v1beta2'] };
    const step = planMcsCrd(old, desired(SVCEX));
    assert.equal(step.action, 'keep');
    if (step.action === 'keep') assert.match(step.warning ?? '', /v1beta2/);
  });

  test("another implementation's CRD that serves v1beta1 is left alone, without a warning", () => {
    const other = foreign(SVCEX, [{ name: 'v1beta1', served: true, storage: true }]);
    const step = planMcsCrd(other, desired(SVCEX));
    assert.deepEqual(step, {
      action: 'keep',
      name: SVCEX,
      reason: 'installed by someone else and serves multicluster.x-k8s.io/v1beta1',
    });
  });

  test('one serving only v1alpha1 (Karmada: mcs-api v0.1.0) is left alone too, with a warning', () => {
    const other = foreign(SVCEX, [{ name: 'v1alpha1', served: true, storage: true }]);
    const step = planMcsCrd(other, desired(SVCEX));
    assert.equal(step.action, 'keep');
    if (step.action === 'keep')
      assert.match(step.warning ?? '', /does not serve multicluster\.x-k8s\.io\/v1beta1/);
    // Nor when v1beta1 is listed but not served.
    const unserved = foreign(SVCEX, [
      { name: 'v1alpha1', served: true, storage: true },
      { name: 'v1beta1', served: false, storage: false },
    ]);
    const s2 = planMcsCrd(unserved, desired(SVCEX));
    assert.ok(s2.action === 'keep' && s2.warning);
  });

  test('ClusterProperty follows the same rules (its stored version is about.k8s.io/v1alpha1)', () => {
    const name = 'clusterproperties.about.k8s.io';
    const other = foreign(name, [{ name: 'v1alpha1', served: true, storage: true }]);
    assert.deepEqual(planMcsCrd(other, desired(name)), {
      action: 'keep',
      name,
      reason: 'installed by someone else and serves about.k8s.io/v1alpha1',
    });
    const steps = planMcsCrds(new Map([[name, other]]));
    assert.deepEqual(
      steps.map((s) => s.action),
      ['create', 'create', 'keep'],
    );
  });

  test('installed for a default join in a cluster-scoped control plane only (the members MCS serves)', () => {
    assert.equal(mcsCrdsSkipReason({ scopedRbac: false, scope: 'Cluster' }), undefined);
    assert.match(mcsCrdsSkipReason({ scopedRbac: true, scope: 'Cluster' }) ?? '', /--scoped-rbac/);
    assert.match(mcsCrdsSkipReason({ scopedRbac: false, scope: 'Namespaced' }) ?? '', /namespaced/);
  });
});

describe('join: a failed join puts back the MCS CRDs it updated', () => {
  /** kubefed-ts's older copy: no printer columns, someone's annotation, a resourceVersion. */
  const older = (): CrdLike => {
    const old = installed(SVCEX);
    old.metadata = { ...old.metadata, annotations: { 'someone/else': 'x' } };
    (old.metadata as Record<string, unknown>).resourceVersion = '42';
    for (const v of old.spec.versions as unknown as Array<Record<string, unknown>>)
      delete v.additionalPrinterColumns;
    return old;
  };

  test('the update step carries the copy it replaces', () => {
    const old = older();
    const step = planMcsCrd(old, desired(SVCEX));
    assert.equal(step.action, 'update');
    if (step.action === 'update') assert.deepEqual(step.previous, old);
  });

  test('the previous spec, labels and annotations, on the current resourceVersion', () => {
    const old = older();
    const step = planMcsCrd(old, desired(SVCEX));
    assert.equal(step.action, 'update');
    if (step.action !== 'update') return;
    const current = structuredClone(step.object) as unknown as CrdLike;
    (current.metadata as Record<string, unknown>).resourceVersion = '43';
    current.metadata.labels = { ...current.metadata.labels, 'added/by': 'someone' };
    const restored = restoredMcsCrd(current, old);
    assert.deepEqual(restored.spec, old.spec);
    assert.deepEqual(restored.metadata.labels, old.metadata.labels);
    assert.deepEqual(restored.metadata.annotations, { 'someone/else': 'x' });
    assert.equal((restored.metadata as Record<string, unknown>).resourceVersion, '43');
  });

  test('a version objects were stored in meanwhile stays in the spec, served but not storage', () => {
    const old = older();
    old.spec.versions = old.spec.versions.filter((v) => v.name === 'v1alpha1');
    const [only] = old.spec.versions;
    if (only) only.storage = true;
    old.status = { storedVersions: ['v1alpha1'] };
    const current = {
      ...structuredClone(desired(SVCEX)),
      status: { storedVersions: ['v1alpha1', 'v1beta1'] },
    };
    const restored = restoredMcsCrd(current, old);
    assert.deepEqual(
      restored.spec.versions.map((v) => [v.name, v.served, v.storage]),
      [
        ['v1alpha1', true, true],
        ['v1beta1', true, false],
      ],
    );
  });
});
