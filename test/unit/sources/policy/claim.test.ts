import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../../../../src/api/policy/v1alpha1/labels.ts';
import { type Claim, claimOf, withClaim, withoutClaim } from '../../../../src/sources/policy/claim.ts';

const ppClaim: Claim = {
  kind: 'PropagationPolicy',
  namespace: 'default',
  name: 'nginx-pp',
  permanentId: 'pp-1',
};
const cppClaim: Claim = { kind: 'ClusterPropagationPolicy', name: 'all', permanentId: 'cpp-1' };
const ppMeta = {
  labels: { app: 'web', [PP_PERMANENT_ID_LABEL]: 'pp-1' },
  annotations: { note: 'x', [PP_NAMESPACE_ANNOTATION]: 'default', [PP_NAME_ANNOTATION]: 'nginx-pp' },
};
const cppMeta = {
  labels: { app: 'web', [CPP_PERMANENT_ID_LABEL]: 'cpp-1' },
  annotations: { note: 'x', [CPP_NAME_ANNOTATION]: 'all' },
};

describe('claimOf: the detector reads the claim', () => {
  test('a PropagationPolicy claim', () => assert.deepEqual(claimOf(ppMeta), ppClaim));
  test('a ClusterPropagationPolicy claim', () => assert.deepEqual(claimOf(cppMeta), cppClaim));
  test('a PropagationPolicy claim wins when both are present', () => {
    const both = {
      labels: { ...ppMeta.labels, ...cppMeta.labels },
      annotations: { ...ppMeta.annotations, ...cppMeta.annotations },
    };
    assert.deepEqual(claimOf(both), ppClaim);
  });
  test('a PP label without both annotations is no PP claim (a CPP claim beside it is read)', () => {
    const partial = {
      labels: { [PP_PERMANENT_ID_LABEL]: 'pp-1', [CPP_PERMANENT_ID_LABEL]: 'cpp-1' },
      annotations: { [PP_NAME_ANNOTATION]: 'nginx-pp', [CPP_NAME_ANNOTATION]: 'all' },
    };
    assert.deepEqual(claimOf(partial), cppClaim);
  });
  test('an empty permanent-id is no claim', () => {
    assert.equal(
      claimOf({ labels: { [CPP_PERMANENT_ID_LABEL]: '' }, annotations: { [CPP_NAME_ANNOTATION]: 'all' } }),
      undefined,
    );
  });
  test('no metadata: no claim', () => assert.equal(claimOf({}), undefined));
});

describe('withClaim: ClaimPolicyForObject', () => {
  test('claiming an unclaimed template adds the label and annotations, keeping the rest', () => {
    assert.deepEqual(withClaim({ labels: { app: 'web' }, annotations: { note: 'x' } }, ppClaim), ppMeta);
    assert.deepEqual(withClaim({ labels: { app: 'web' }, annotations: { note: 'x' } }, cppClaim), cppMeta);
  });
  test('from no maps at all', () => {
    assert.deepEqual(withClaim({}, cppClaim), {
      labels: { [CPP_PERMANENT_ID_LABEL]: 'cpp-1' },
      annotations: { [CPP_NAME_ANNOTATION]: 'all' },
    });
  });
  test('already claimed exactly so: no write', () => {
    assert.equal(withClaim(ppMeta, ppClaim), undefined);
    assert.equal(withClaim(cppMeta, cppClaim), undefined);
  });
  test('a PropagationPolicy claim strips a ClusterPropagationPolicy claim (excludeClusterPolicy)', () => {
    assert.deepEqual(withClaim(cppMeta, ppClaim), ppMeta);
  });
  test('a ClusterPropagationPolicy claim drops a stale PropagationPolicy claim', () => {
    assert.deepEqual(withClaim(ppMeta, cppClaim), cppMeta);
  });
  test('a changed permanent-id (policy recreated) is rewritten', () => {
    const next = withClaim(ppMeta, { ...ppClaim, permanentId: 'pp-2' });
    assert.equal(next?.labels[PP_PERMANENT_ID_LABEL], 'pp-2');
  });
  test('a hand-edited name annotation is repaired', () => {
    const edited = {
      labels: ppMeta.labels,
      annotations: { ...ppMeta.annotations, [PP_NAME_ANNOTATION]: 'other' },
    };
    assert.deepEqual(withClaim(edited, ppClaim), ppMeta);
  });
  test('the input maps are not mutated', () => {
    const meta = { labels: { app: 'web' }, annotations: {} };
    withClaim(meta, ppClaim);
    assert.deepEqual(meta, { labels: { app: 'web' }, annotations: {} });
  });
});

describe('withoutClaim: NeedCleanupClaimMetadata (karmada#5307)', () => {
  test('removes a PP claim with the matching permanent-id', () => {
    assert.deepEqual(withoutClaim(ppMeta, 'pp-1'), { labels: { app: 'web' }, annotations: { note: 'x' } });
  });
  test('removes a CPP claim with the matching permanent-id', () => {
    assert.deepEqual(withoutClaim(cppMeta, 'cpp-1'), { labels: { app: 'web' }, annotations: { note: 'x' } });
  });
  test('leaves a claim by another policy alone', () => {
    assert.equal(withoutClaim(ppMeta, 'pp-old'), undefined);
    assert.equal(withoutClaim(cppMeta, 'pp-1'), undefined);
  });
  test('with both claims only the matching one goes', () => {
    const both = {
      labels: { ...ppMeta.labels, ...cppMeta.labels },
      annotations: { ...ppMeta.annotations, ...cppMeta.annotations },
    };
    assert.deepEqual(withoutClaim(both, 'cpp-1'), ppMeta);
  });
  test('nothing claimed: nothing to remove', () =>
    assert.equal(withoutClaim({ labels: { app: 'web' } }, 'pp-1'), undefined));
});
