import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  invalidOverrideSelectors,
  overrideConditions,
  type PolicyConditionsInput,
  policyConditions,
} from '../../../../src/sources/policy/policy-status.ts';

const base: PolicyConditionsInput = {
  spec: {
    resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
    placement: { clusterAffinity: { clusterNames: ['c1', 'c2'] } },
  },
  generation: 2,
  claimed: 3,
  unresolvedKinds: [],
  knownClusters: ['c1', 'c2'],
  previous: [],
  now: '2026-12-01T00:00:00Z',
};

const byType = (input: PolicyConditionsInput) =>
  Object.fromEntries(policyConditions(input).map((c) => [c.type, c]));

describe('policyConditions', () => {
  test('Ready when it claims templates, ClustersKnown when every named cluster is registered', () => {
    const c = byType(base);
    assert.equal(c.Ready?.status, 'True');
    assert.equal(c.Ready?.reason, 'Claimed');
    assert.equal(c.Ready?.message, 'Claims 3 resource templates');
    assert.equal(c.Ready?.observedGeneration, 2);
    assert.equal(c.ClustersKnown?.status, 'True');
  });

  test('says which named clusters are not registered', () => {
    const c = byType({ ...base, knownClusters: ['c1'] });
    assert.equal(c.ClustersKnown?.status, 'False');
    assert.equal(c.ClustersKnown?.reason, 'UnknownClusters');
    assert.match(c.ClustersKnown?.message ?? '', /c2/);
  });

  test('an invalid label selector, a kind nobody serves, and no claims are each reported', () => {
    const invalid = byType({
      ...base,
      spec: {
        resourceSelectors: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            labelSelector: { matchExpressions: [{ key: 'a', operator: 'Sideways' }] },
          },
        ],
      },
    });
    assert.equal(invalid.Ready?.reason, 'InvalidSelector');
    assert.match(invalid.Ready?.message ?? '', /resourceSelectors\[0\]\.labelSelector/);
    assert.equal(
      byType({ ...base, unresolvedKinds: ['no Widget in example.io/v1'] }).Ready?.reason,
      'KindNotServed',
    );
    assert.equal(byType({ ...base, claimed: 0 }).Ready?.reason, 'NoMatchingResources');
  });

  test('keeps lastTransitionTime while a condition’s status does not change', () => {
    const first = policyConditions(base);
    const later = policyConditions({ ...base, claimed: 4, previous: first, now: '2026-12-02T00:00:00Z' });
    assert.equal(later.find((c) => c.type === 'Ready')?.lastTransitionTime, '2026-12-01T00:00:00Z');
    const flipped = policyConditions({ ...base, claimed: 0, previous: first, now: '2026-12-02T00:00:00Z' });
    assert.equal(flipped.find((c) => c.type === 'Ready')?.lastTransitionTime, '2026-12-02T00:00:00Z');
  });
});

describe('overrideConditions', () => {
  test('Overriding when it selects propagated templates; NoMatchingResources; InvalidSelector', () => {
    const at = (input: Partial<Parameters<typeof overrideConditions>[0]>) =>
      overrideConditions({ generation: 1, matched: 2, invalid: [], previous: [], now: 'T', ...input })[0];
    assert.equal(at({})?.reason, 'Overriding');
    assert.equal(at({})?.message, 'Overrides 2 propagated resource templates');
    assert.equal(at({ matched: 0 })?.reason, 'NoMatchingResources');
    assert.equal(at({ invalid: ['x: bad'] })?.reason, 'InvalidSelector');
  });

  test('invalidOverrideSelectors names the selector that does not compile', () => {
    assert.deepEqual(
      invalidOverrideSelectors({
        overrideRules: [
          {
            targetCluster: { labelSelector: { matchExpressions: [{ key: 'a', operator: 'Sideways' }] } },
            overriders: {},
          },
        ],
      }).map((m) => m.split(':')[0]),
      ['overrideRules[0].targetCluster.labelSelector'],
    );
    assert.deepEqual(
      invalidOverrideSelectors({ resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap' }] }),
      [],
    );
  });
});
