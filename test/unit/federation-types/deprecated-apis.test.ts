import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EQUIVALENT_APIS, isEquivalentApi } from '../../../src/federation-types/deprecated-apis.ts';

test('KubeFed TestIsEquivalentAPI (enable/deprecatedapis_test.go): the first group/version of each plural is equivalent to every other', () => {
  let pairs = 0;
  for (const [plural, gvs] of Object.entries(EQUIVALENT_APIS)) {
    const [first, ...rest] = gvs;
    assert.ok(first);
    for (const gv of rest) {
      assert.ok(
        isEquivalentApi({ plural, ...first }, { plural, ...gv }),
        `${plural} ${first.group}/${first.version} ~ ${gv.group}/${gv.version}`,
      );
      pairs++;
    }
  }
  assert.equal(pairs, 3 + 3 + 2 + 3 + 1 + 1 + 1);
});

test('the table is KubeFed v0.10 deprecatedapis.go', () => {
  const flat = Object.fromEntries(
    Object.entries(EQUIVALENT_APIS).map(([p, gvs]) => [p, gvs.map((g) => `${g.group}/${g.version}`)]),
  );
  assert.deepEqual(flat, {
    deployments: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'],
    daemonsets: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'],
    statefulsets: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2'],
    replicasets: ['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1'],
    networkpolicies: ['networking.k8s.io/v1', 'extensions/v1beta1'],
    podsecuritypolicies: ['policy/v1beta1', 'extensions/v1beta1'],
    ingresses: ['networking.k8s.io/v1beta1', 'extensions/v1beta1'],
  });
});

test('an identical API, other plurals and unlisted resources are not equivalent', () => {
  const apps = { plural: 'deployments', group: 'apps', version: 'v1' };
  assert.equal(isEquivalentApi(apps, apps), false);
  assert.equal(isEquivalentApi(apps, { ...apps, plural: 'replicasets', version: 'v1beta2' }), false);
  assert.equal(isEquivalentApi(apps, { ...apps, group: 'example.io' }), false);
  const cm = { plural: 'configmaps', group: '', version: 'v1' };
  assert.equal(isEquivalentApi(cm, { ...cm, version: 'v2' }), false);
  // Inherited object keys are not table entries.
  assert.equal(
    isEquivalentApi(
      { plural: 'constructor', group: 'a', version: 'v1' },
      { plural: 'constructor', group: 'b', version: 'v1' },
    ),
    false,
  );
});

test('quirk: ingresses networking.k8s.io/v1 is not in the table, so it is only "equivalent" from the other side', () => {
  const v1 = { plural: 'ingresses', group: 'networking.k8s.io', version: 'v1' };
  const ext = { plural: 'ingresses', group: 'extensions', version: 'v1beta1' };
  assert.equal(isEquivalentApi(ext, v1), false);
  assert.equal(isEquivalentApi(v1, ext), true);
});
