import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  findUntoleratedTaint,
  matchToleration,
  taintString,
  tolerates,
  withDefaultTolerations,
} from '../../../../src/sources/policy/taints.ts';

describe('tolerates (corev1 Toleration.ToleratesTaint)', () => {
  const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const };
  test('Equal needs the same value; an empty operator is Equal', () => {
    assert.equal(tolerates({ key: 'dedicated', operator: 'Equal', value: 'gpu' }, taint), true);
    assert.equal(tolerates({ key: 'dedicated', value: 'gpu' }, taint), true);
    assert.equal(tolerates({ key: 'dedicated', value: 'cpu' }, taint), false);
  });
  test('Exists ignores the value; an empty key with Exists tolerates every key', () => {
    assert.equal(tolerates({ key: 'dedicated', operator: 'Exists' }, taint), true);
    assert.equal(tolerates({ operator: 'Exists' }, taint), true);
    assert.equal(tolerates({ key: 'other', operator: 'Exists' }, taint), false);
  });
  test('an effect must match unless empty; unknown operators tolerate nothing', () => {
    assert.equal(tolerates({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, taint), false);
    assert.equal(tolerates({ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }, taint), true);
    assert.equal(tolerates({ key: 'dedicated', operator: 'Lt', value: 'gpu' }, taint), false);
  });
});

describe('findUntoleratedTaint and taintString', () => {
  test('the first selected taint no toleration covers', () => {
    const taints = [
      { key: 'a', effect: 'PreferNoSchedule' as const },
      { key: 'b', value: 'x', effect: 'NoSchedule' as const },
      { key: 'c', effect: 'NoExecute' as const },
    ];
    const noSchedule = (t: { effect: string }) => t.effect !== 'PreferNoSchedule';
    assert.deepEqual(findUntoleratedTaint(taints, [], noSchedule), taints[1]);
    assert.deepEqual(findUntoleratedTaint(taints, [{ key: 'b', operator: 'Exists' }], noSchedule), taints[2]);
    assert.equal(findUntoleratedTaint(taints, [{ operator: 'Exists' }], noSchedule), undefined);
    assert.equal(taintString(taints[1]!), 'b=x:NoSchedule');
    assert.equal(taintString(taints[2]!), 'c:NoExecute');
  });
});

describe('withDefaultTolerations (karmada helper.AddTolerations)', () => {
  const notReady = {
    key: 'cluster.karmada.io/not-ready',
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: 300,
  };
  const unreachable = { ...notReady, key: 'cluster.karmada.io/unreachable' };
  test('adds not-ready and unreachable NoExecute for 300 s', () => {
    assert.deepEqual(withDefaultTolerations(undefined), [notReady, unreachable]);
  });
  test('keeps a toleration the policy already has (tolerationSeconds aside) and adds the other', () => {
    const own = { ...notReady, tolerationSeconds: 5 };
    assert.deepEqual(withDefaultTolerations([own]), [own, unreachable]);
  });
  test('a broader toleration does not stop the defaults, as MatchToleration compares as written', () => {
    const all = { operator: 'Exists' };
    assert.deepEqual(withDefaultTolerations([all]), [all, notReady, unreachable]);
  });
  test('MatchToleration compares key, operator, value and effect as written', () => {
    assert.equal(
      matchToleration({ key: 'k', value: 'v' }, { key: 'k', operator: 'Equal', value: 'v' }),
      false,
    );
    assert.equal(matchToleration({ key: 'k', operator: 'Exists' }, { key: 'k', operator: 'Exists' }), true);
    assert.equal(
      matchToleration({ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }, notReady),
      false,
    );
  });
});
