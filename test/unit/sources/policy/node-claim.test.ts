import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../src/kube/client/types.ts';
import { nodeClaimMatcher, parseInt64 } from '../../../../src/sources/policy/node-claim.ts';

const node = (
  name: string,
  labels: Record<string, string> = {},
  spec: Record<string, unknown> = {},
): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec });

/** The names of the nodes the claim admits. */
const admitted = (claim: unknown, nodes: readonly KubeObject[]): string[] => {
  const admits = nodeClaimMatcher(claim);
  return nodes.filter(admits).map((n) => n.metadata.name ?? '');
};

const affinity = (...terms: Record<string, unknown>[]) => ({
  hardNodeAffinity: { nodeSelectorTerms: terms },
});

describe('nodeClaimMatcher: nodeSelector', () => {
  const nodes = [
    node('gpu', { accelerator: 'nvidia', zone: 'a' }),
    node('cpu', { zone: 'a' }),
    node('other-gpu', { accelerator: 'amd', zone: 'b' }),
  ];

  test('no claim, an empty claim and an empty selector admit every node', () => {
    for (const claim of [undefined, null, {}, { nodeSelector: {} }])
      assert.deepEqual(admitted(claim, nodes), ['gpu', 'cpu', 'other-gpu'], JSON.stringify(claim));
  });

  test('every selector label must be present with the same value', () => {
    assert.deepEqual(admitted({ nodeSelector: { accelerator: 'nvidia' } }, nodes), ['gpu']);
    assert.deepEqual(admitted({ nodeSelector: { accelerator: 'nvidia', zone: 'b' } }, nodes), []);
    assert.deepEqual(admitted({ nodeSelector: { zone: 'a' } }, nodes), ['gpu', 'cpu']);
    assert.deepEqual(admitted({ nodeSelector: { accelerator: '' } }, nodes), [], 'absent is not empty');
  });

  test('the selector and the affinity must both hold', () => {
    const claim = {
      nodeSelector: { zone: 'a' },
      ...affinity({ matchExpressions: [{ key: 'accelerator', operator: 'Exists' }] }),
    };
    assert.deepEqual(admitted(claim, nodes), ['gpu']);
  });
});

describe('nodeClaimMatcher: hardNodeAffinity', () => {
  const nodes = [
    node('a1', { zone: 'a', cores: '8' }),
    node('b1', { zone: 'b', cores: '16' }),
    node('c1', { zone: 'c', cores: 'many' }),
    node('bare'),
  ];

  test('terms are ORed, the expressions of a term ANDed', () => {
    const ored = affinity(
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['c'] }] },
    );
    assert.deepEqual(admitted(ored, nodes), ['a1', 'c1']);
    const anded = affinity({
      matchExpressions: [
        { key: 'zone', operator: 'In', values: ['a', 'b'] },
        { key: 'cores', operator: 'In', values: ['16'] },
      ],
    });
    assert.deepEqual(admitted(anded, nodes), ['b1']);
  });

  test('In, NotIn (an absent label satisfies it), Exists and DoesNotExist', () => {
    const one = (expr: Record<string, unknown>) => admitted(affinity({ matchExpressions: [expr] }), nodes);
    assert.deepEqual(one({ key: 'zone', operator: 'In', values: ['b', 'c'] }), ['b1', 'c1']);
    assert.deepEqual(one({ key: 'zone', operator: 'NotIn', values: ['b', 'c'] }), ['a1', 'bare']);
    assert.deepEqual(one({ key: 'zone', operator: 'Exists' }), ['a1', 'b1', 'c1']);
    assert.deepEqual(one({ key: 'zone', operator: 'DoesNotExist' }), ['bare']);
  });

  test('Gt and Lt compare integers; a label that is not an integer never matches', () => {
    const one = (operator: string, values: string[]) =>
      admitted(affinity({ matchExpressions: [{ key: 'cores', operator, values }] }), nodes);
    assert.deepEqual(one('Gt', ['8']), ['b1'], 'strictly greater');
    assert.deepEqual(one('Gt', ['7']), ['a1', 'b1']);
    assert.deepEqual(one('Lt', ['16']), ['a1'], 'strictly less');
    assert.deepEqual(one('Lt', ['100']), ['a1', 'b1']);
  });

  test('an invalid expression makes its term match nothing; the other terms still count', () => {
    const valid = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] };
    for (const bad of [
      { key: 'cores', operator: 'Gt', values: ['8', '9'] },
      { key: 'cores', operator: 'Gt', values: ['eight'] },
      { key: 'cores', operator: 'Lt', values: [] },
      // A sign is an integer to ParseInt, but not a label value, so NewRequirement rejects it.
      { key: 'cores', operator: 'Lt', values: ['+100'] },
      { key: 'cores', operator: 'Gt', values: ['-1'] },
      { key: 'zone', operator: 'In', values: [] },
      { key: 'zone', operator: 'Exists', values: ['a'] },
      { key: 'zone', operator: 'Equals', values: ['b'] },
      { key: 'not a key', operator: 'Exists' },
    ]) {
      const claim = affinity(valid, { matchExpressions: [{ key: 'zone', operator: 'Exists' }, bad] });
      assert.deepEqual(admitted(claim, nodes), ['a1'], JSON.stringify(bad));
    }
  });

  test('empty terms and an empty term list match nothing', () => {
    assert.deepEqual(admitted({ hardNodeAffinity: { nodeSelectorTerms: [] } }, nodes), []);
    assert.deepEqual(admitted(affinity({}), nodes), []);
    assert.deepEqual(admitted(affinity({ matchExpressions: [] }, { matchFields: [] }), nodes), []);
  });

  test('matchFields on metadata.name: In and NotIn with exactly one value', () => {
    const field = (operator: string, values: string[]) =>
      admitted(affinity({ matchFields: [{ key: 'metadata.name', operator, values }] }), nodes);
    assert.deepEqual(field('In', ['b1']), ['b1']);
    assert.deepEqual(field('NotIn', ['b1']), ['a1', 'c1', 'bare']);
    assert.deepEqual(field('In', ['a1', 'b1']), [], 'more than one value is a parse error');
    assert.deepEqual(field('Exists', []), [], 'only In and NotIn for fields');
    const both = affinity({
      matchExpressions: [{ key: 'zone', operator: 'Exists' }],
      matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['a1'] }],
    });
    assert.deepEqual(admitted(both, nodes), ['b1', 'c1']);
  });
});

describe('nodeClaimMatcher: taints and tolerations', () => {
  const nodes = [
    node('plain'),
    node('gpu', {}, { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] }),
    node('draining', {}, { taints: [{ key: 'drain', effect: 'NoExecute' }] }),
    node('soft', {}, { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] }),
    node('cordoned', {}, { unschedulable: true }),
  ];

  test('NoSchedule and NoExecute taints keep pods off unless tolerated; PreferNoSchedule never does', () => {
    assert.deepEqual(admitted(undefined, nodes), ['plain', 'soft']);
  });

  test('a toleration lets the pod onto the tainted node (corev1 toleration semantics)', () => {
    const tol = (...tolerations: Record<string, unknown>[]) => admitted({ tolerations }, nodes);
    assert.deepEqual(tol({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }), [
      'plain',
      'gpu',
      'soft',
    ]);
    assert.deepEqual(tol({ key: 'nvidia.com/gpu', value: 'present' }), ['plain', 'gpu', 'soft'], 'Equal');
    assert.deepEqual(tol({ key: 'nvidia.com/gpu', value: 'absent' }), ['plain', 'soft'], 'value differs');
    assert.deepEqual(tol({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute' }), [
      'plain',
      'soft',
    ]);
    assert.deepEqual(tol({ key: 'drain', operator: 'Exists' }), ['plain', 'draining', 'soft']);
    assert.deepEqual(tol({ operator: 'Exists' }), ['plain', 'gpu', 'draining', 'soft', 'cordoned'], 'all');
    assert.deepEqual(tol({ key: 'nvidia.com/gpu', operator: 'Gt', value: '1' }), ['plain', 'soft']);
  });

  test('a cordoned node takes only pods tolerating node.kubernetes.io/unschedulable', () => {
    const claim = {
      tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
    };
    assert.deepEqual(admitted(claim, nodes), ['plain', 'soft', 'cordoned']);
  });

  test('every untolerated taint counts', () => {
    const twice = node(
      'twice',
      {},
      {
        taints: [
          { key: 'a', effect: 'NoSchedule' },
          { key: 'b', effect: 'NoSchedule' },
        ],
      },
    );
    assert.deepEqual(admitted({ tolerations: [{ key: 'a', operator: 'Exists' }] }, [twice]), []);
    assert.deepEqual(
      admitted(
        {
          tolerations: [
            { key: 'a', operator: 'Exists' },
            { key: 'b', operator: 'Exists' },
          ],
        },
        [twice],
      ),
      ['twice'],
    );
  });
});

describe('parseInt64', () => {
  test('strconv.ParseInt base 10, 64 bits', () => {
    assert.equal(parseInt64('42'), 42n);
    assert.equal(parseInt64('+7'), 7n);
    assert.equal(parseInt64('-9223372036854775808'), -(2n ** 63n));
    assert.equal(parseInt64('9223372036854775808'), undefined);
    for (const bad of ['', ' 1', '1.0', '0x10', '1_000', '+']) assert.equal(parseInt64(bad), undefined, bad);
  });
});
