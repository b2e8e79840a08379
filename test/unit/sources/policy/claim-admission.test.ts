import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { claimRules, selectorKinds, withClaimRules } from '../../../../src/sources/policy/claim-admission.ts';
import type { TemplateType } from '../../../../src/sources/policy/templates.ts';

const deployments: TemplateType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
};
const configMaps: TemplateType = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  kind: 'ConfigMap',
};
const namespaces: TemplateType = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  kind: 'Namespace',
};

describe('selectorKinds', () => {
  test("the kinds the resource selectors name, each once; propagateDeps' dependency kinds are not claimed", () => {
    const kinds = selectorKinds([
      { spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'a' }] } },
      {
        spec: {
          resourceSelectors: [
            { apiVersion: 'apps/v1', kind: 'Deployment' },
            { apiVersion: 'v1', kind: 'Namespace' },
          ],
        },
      },
      { spec: { propagateDeps: true, resourceSelectors: [] } as never },
      { spec: { resourceSelectors: [{ apiVersion: '', kind: 'Broken' }] } },
      {},
    ]);
    assert.deepEqual([...kinds].sort(), ['apps/v1|Deployment', 'v1|Namespace']);
  });
});

describe('claimRules', () => {
  test('one CREATE rule per resource, in the version selected, scoped as the resource is, in a stable order', () => {
    assert.deepEqual(claimRules([namespaces, deployments, configMaps, deployments]), [
      {
        operations: ['CREATE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps'],
        scope: 'Namespaced',
      },
      {
        operations: ['CREATE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['namespaces'],
        scope: 'Cluster',
      },
      {
        operations: ['CREATE'],
        apiGroups: ['apps'],
        apiVersions: ['v1'],
        resources: ['deployments'],
        scope: 'Namespaced',
      },
    ]);
    assert.deepEqual(claimRules([configMaps, deployments]), claimRules([deployments, configMaps]));
    assert.deepEqual(claimRules([]), []);
  });
});

describe('withClaimRules', () => {
  const other = {
    name: 'federated.types.kubefed.io',
    rules: [{ operations: ['CREATE'] }],
    failurePolicy: 'Fail',
  };
  const config = (rules: unknown) => ({
    metadata: { name: 'mutation.core.kubefed.io', resourceVersion: '7' },
    webhooks: [other, { name: 'resourcetemplates.policy.kubefed.io', rules, failurePolicy: 'Ignore' }],
  });

  test("sets the claim entry's rules and leaves every other entry and the resourceVersion as they were", () => {
    const rules = claimRules([deployments]);
    const next = withClaimRules(config([]), rules);
    assert.deepEqual(next, {
      metadata: { name: 'mutation.core.kubefed.io', resourceVersion: '7' },
      webhooks: [other, { name: 'resourcetemplates.policy.kubefed.io', rules, failurePolicy: 'Ignore' }],
    });
    assert.equal(next?.webhooks[0], other);
  });

  test('nothing to write when the rules are those already, or the install has no claim entry', () => {
    const rules = claimRules([deployments, configMaps]);
    assert.equal(withClaimRules(config(structuredClone(rules)), rules), undefined);
    assert.equal(withClaimRules({ webhooks: [other] }, rules), undefined);
    assert.equal(withClaimRules({}, rules), undefined);
  });

  test('an entry without rules counts as empty: clearing it writes nothing', () => {
    assert.equal(withClaimRules(config(undefined), []), undefined);
    assert.deepEqual(withClaimRules(config(claimRules([deployments])), [])?.webhooks[1]?.rules, []);
  });
});
