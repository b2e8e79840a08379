import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCrds } from '../../../src/install/control-plane.ts';
import { type CrdLike, planCrdTakeover, replacementCrd } from '../../../src/kubefedctl/crd-takeover.ts';

const ours = (name: string): CrdLike => {
  const crd = (loadCrds() as unknown as CrdLike[]).find((c) => c.metadata.name === name);
  assert.ok(crd, name);
  return structuredClone(crd);
};
const RSP = 'replicaschedulingpreferences.scheduling.kubefed.io';

/** KubeFed v0.10's RSP CRD differs from kubefed-ts's in having no status subresource and no status schema. */
function kubefedRsp(): CrdLike {
  const c = ours(RSP);
  const v = c.spec.versions[0] as unknown as Record<string, unknown>;
  delete v.subresources;
  const schema = v.schema as { openAPIV3Schema: { properties: Record<string, unknown> } };
  delete schema.openAPIV3Schema.properties.status;
  return { ...c, status: { storedVersions: ['v1alpha1'] } };
}

describe('planCrdTakeover', () => {
  test('a missing CRD is created', () => {
    assert.deepEqual(planCrdTakeover(undefined, ours(RSP)), { action: 'create', name: RSP });
  });

  test('an installed CRD equal to ours (server defaults aside) is left alone', () => {
    const installed = ours(RSP);
    (installed.spec as Record<string, unknown>).conversion = { strategy: 'None' };
    // Stored without the empty maps it was written with (omitempty).
    const pv = ours('propagatedversions.core.kubefed.io');
    const spec = (
      pv.spec.versions[0] as unknown as {
        schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } };
      }
    ).schema.openAPIV3Schema.properties.spec;
    assert.deepEqual(spec.properties, {});
    delete spec.properties;
    assert.equal(planCrdTakeover(pv, ours('propagatedversions.core.kubefed.io')).action, 'unchanged');
    installed.status = { storedVersions: ['v1alpha1'] };
    assert.deepEqual(planCrdTakeover(installed, ours(RSP)), { action: 'unchanged', name: RSP });
  });

  test("KubeFed's RSP CRD is replaced, gaining the status subresource and schema", () => {
    assert.deepEqual(planCrdTakeover(kubefedRsp(), ours(RSP)), {
      action: 'replace',
      name: RSP,
      changes: ['v1alpha1: adds the status subresource', 'v1alpha1: kubefed-ts schema'],
    });
  });

  test('a version the installed CRD serves, or has stored objects in, must not be dropped', () => {
    const served = kubefedRsp();
    served.spec.versions.push({ name: 'v1alpha2', served: true, storage: false });
    assert.deepEqual(planCrdTakeover(served, ours(RSP)), {
      action: 'refuse',
      name: RSP,
      reason: "kubefed-ts's CRD has no version v1alpha2, which the installed one serves or stores",
    });
    const stored = kubefedRsp();
    stored.status = { storedVersions: ['v1alpha0', 'v1alpha1'] };
    const step = planCrdTakeover(stored, ours(RSP));
    assert.equal(step.action, 'refuse');
    assert.match(step.action === 'refuse' ? step.reason : '', /no version v1alpha0/);
  });

  test('another storage version, group, scope or kind is refused', () => {
    const twoVersions = kubefedRsp();
    twoVersions.spec.versions = [
      { name: 'v1alpha1', served: true, storage: false },
      { name: 'v1beta1', served: true, storage: true },
    ];
    const desired = ours(RSP);
    desired.spec.versions.push({ name: 'v1beta1', served: true, storage: false });
    assert.match(
      JSON.stringify(planCrdTakeover(twoVersions, desired)),
      /storage version v1beta1 would become v1alpha1/,
    );
    for (const [field, value] of [
      ['group', 'other.io'],
      ['scope', 'Cluster'],
    ] as const) {
      const installed = kubefedRsp();
      installed.spec[field] = value;
      assert.equal(planCrdTakeover(installed, ours(RSP)).action, 'refuse', field);
    }
    const kind = kubefedRsp();
    kind.spec.names = { ...kind.spec.names, kind: 'Other' };
    assert.equal(planCrdTakeover(kind, ours(RSP)).action, 'refuse');
  });

  test('a version served before must stay served', () => {
    const desired = ours(RSP);
    desired.spec.versions[0] = { ...desired.spec.versions[0], name: 'v1alpha1', served: false };
    assert.match(JSON.stringify(planCrdTakeover(kubefedRsp(), desired)), /no longer be served/);
  });
});

test('the replacement keeps the installed metadata and takes our spec', () => {
  const installed = {
    ...kubefedRsp(),
    metadata: {
      name: RSP,
      resourceVersion: '42',
      labels: { team: 'fed' },
      annotations: { 'meta.helm.sh/release-name': 'kubefed' },
    },
  };
  const r = replacementCrd(installed, ours(RSP));
  assert.equal(r.metadata.resourceVersion, '42');
  assert.deepEqual(r.metadata.labels, { team: 'fed' });
  assert.deepEqual(r.metadata.annotations, { 'meta.helm.sh/release-name': 'kubefed' });
  assert.deepEqual(r.spec, ours(RSP).spec);
  assert.deepEqual(r.status, { storedVersions: ['v1alpha1'] });
});
