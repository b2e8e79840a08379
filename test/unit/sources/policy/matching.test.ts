import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ResourceSelector } from '../../../../src/api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../../../src/kube/client/types.ts';
import {
  type CandidatePolicy,
  ImplicitPriority,
  implicitPriority,
  isIgnoredTemplate,
  selectPolicy,
} from '../../../../src/sources/policy/matching.ts';

const deploy = (name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, labels },
});
const sel = (extra: Partial<ResourceSelector> = {}): ResourceSelector => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  ...extra,
});

function policy(
  kind: CandidatePolicy['kind'],
  name: string,
  selectors: ResourceSelector[],
  extra: { priority?: number; deleting?: boolean; namespace?: string } = {},
): CandidatePolicy {
  return {
    kind,
    name,
    ...(kind === 'PropagationPolicy' ? { namespace: extra.namespace ?? 'default' } : {}),
    spec: {
      resourceSelectors: selectors,
      ...(extra.priority !== undefined ? { priority: extra.priority } : {}),
    },
    permanentId: `${name}-id`,
    deleting: extra.deleting ?? false,
  };
}
const pp = (name: string, selectors: ResourceSelector[], extra = {}) =>
  policy('PropagationPolicy', name, selectors, extra);
const cpp = (name: string, selectors: ResourceSelector[], extra = {}) =>
  policy('ClusterPropagationPolicy', name, selectors, extra);

describe('implicitPriority: Karmada ResourceSelectorPriority', () => {
  const t = deploy('nginx', 'default', { app: 'web' });
  const cases: [string, ResourceSelector[] | undefined, number][] = [
    ['a name match', [sel({ name: 'nginx' })], ImplicitPriority.MatchName],
    ['another name does not match', [sel({ name: 'other' })], ImplicitPriority.MisMatch],
    [
      'a name wins over a non-matching labelSelector',
      [sel({ name: 'nginx', labelSelector: { matchLabels: { app: 'x' } } })],
      ImplicitPriority.MatchName,
    ],
    [
      'a labelSelector match',
      [sel({ labelSelector: { matchLabels: { app: 'web' } } })],
      ImplicitPriority.MatchLabelSelector,
    ],
    [
      'a labelSelector mismatch',
      [sel({ labelSelector: { matchLabels: { app: 'db' } } })],
      ImplicitPriority.MisMatch,
    ],
    ['neither name nor selector matches all', [sel()], ImplicitPriority.MatchAll],
    ['another kind', [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }], ImplicitPriority.MisMatch],
    [
      'another apiVersion (exact string)',
      [{ apiVersion: 'apps/v1beta1', kind: 'Deployment' }],
      ImplicitPriority.MisMatch,
    ],
    ['a selector namespace must equal', [sel({ namespace: 'prod' })], ImplicitPriority.MisMatch],
    [
      'an equal selector namespace',
      [sel({ namespace: 'default', name: 'nginx' })],
      ImplicitPriority.MatchName,
    ],
    [
      'the best of several selectors',
      [sel(), sel({ name: 'nginx' }), sel({ name: 'x' })],
      ImplicitPriority.MatchName,
    ],
    [
      'an invalid labelSelector matches nothing',
      [sel({ labelSelector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] } })],
      ImplicitPriority.MisMatch,
    ],
    ['no selectors', undefined, ImplicitPriority.MisMatch],
  ];
  for (const [name, selectors, expected] of cases)
    test(name, () => assert.equal(implicitPriority(selectors, t), expected));
});

describe('selectPolicy: Karmada getHighestPriorityPropagationPolicy and PP before CPP', () => {
  const t = deploy('nginx', 'default', { app: 'web' });

  test('name beats label selector beats kind-only, at equal explicit priority', () => {
    const byKind = pp('a-kind', [sel()]);
    const byLabel = pp('b-label', [sel({ labelSelector: { matchLabels: { app: 'web' } } })]);
    const byName = pp('c-name', [sel({ name: 'nginx' })]);
    assert.equal(selectPolicy(t, [byKind, byLabel, byName], [])?.name, 'c-name');
    assert.equal(selectPolicy(t, [byKind, byLabel], [])?.name, 'b-label');
    assert.equal(selectPolicy(t, [byKind], [])?.name, 'a-kind');
  });

  test('a higher explicit priority wins over a more specific selector', () => {
    const byName = pp('a-name', [sel({ name: 'nginx' })]);
    const byKind = pp('b-kind', [sel()], { priority: 1 });
    assert.equal(selectPolicy(t, [byName, byKind], [])?.name, 'b-kind');
  });

  test('negative explicit priorities lose to the default 0', () => {
    const low = pp('a-low', [sel({ name: 'nginx' })], { priority: -1 });
    const def = pp('b-default', [sel()]);
    assert.equal(selectPolicy(t, [low, def], [])?.name, 'b-default');
  });

  test('equal explicit and implicit priority: the smaller name wins, whatever the order given', () => {
    const a = pp('alpha', [sel()], { priority: 2 });
    const b = pp('beta', [sel()], { priority: 2 });
    assert.equal(selectPolicy(t, [b, a], [])?.name, 'alpha');
    assert.equal(selectPolicy(t, [a, b], [])?.name, 'alpha');
  });

  test('a PropagationPolicy beats a ClusterPropagationPolicy whatever their priorities', () => {
    const weak = pp('weak', [sel()], { priority: -5 });
    const strong = cpp('strong', [sel({ name: 'nginx' })], { priority: 100 });
    assert.equal(selectPolicy(t, [weak], [strong])?.kind, 'PropagationPolicy');
  });

  test('with no matching PropagationPolicy the best ClusterPropagationPolicy is chosen', () => {
    const other = pp('other', [sel({ name: 'x' })]);
    const c1 = cpp('c1', [sel()]);
    const c2 = cpp('c2', [sel({ labelSelector: { matchLabels: { app: 'web' } } })]);
    assert.equal(selectPolicy(t, [other], [c1, c2])?.name, 'c2');
  });

  test('policies being deleted are ignored', () => {
    const deleting = pp('a-deleting', [sel({ name: 'nginx' })], { priority: 9, deleting: true });
    const live = pp('b-live', [sel()]);
    assert.equal(selectPolicy(t, [deleting, live], [])?.name, 'b-live');
    const deletingCpp = cpp('c', [sel()], { deleting: true });
    assert.equal(
      selectPolicy(t, [pp('d', [sel(), { ...sel(), name: 'x' }], { deleting: true })], [deletingCpp]),
      undefined,
    );
  });

  test('PropagationPolicies of another namespace are never chosen', () => {
    const elsewhere = pp('elsewhere', [sel()], { namespace: 'prod' });
    assert.equal(selectPolicy(t, [elsewhere], []), undefined);
  });

  test('a PropagationPolicy given without namespace is taken as the template namespace one', () => {
    const { namespace: _, ...unnamespaced } = pp('p', [sel()]);
    assert.equal(selectPolicy(t, [unnamespaced], [])?.name, 'p');
  });

  test('a cluster-scoped template only looks at ClusterPropagationPolicies', () => {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } };
    const ppForNs = policy('PropagationPolicy', 'p', [{ apiVersion: 'v1', kind: 'Namespace' }], {
      namespace: '',
    });
    const cppForNs = cpp('c', [{ apiVersion: 'v1', kind: 'Namespace', name: 'team' }]);
    assert.equal(selectPolicy(ns, [ppForNs], []), undefined);
    assert.equal(selectPolicy(ns, [ppForNs], [cppForNs])?.name, 'c');
  });

  test('nothing matches: undefined', () => {
    assert.equal(
      selectPolicy(t, [pp('p', [sel({ name: 'x' })])], [cpp('c', [{ apiVersion: 'v1', kind: 'ConfigMap' }])]),
      undefined,
    );
  });
});

describe('isIgnoredTemplate: Karmada detector EventFilter', () => {
  const cases: [string, KubeObject, boolean][] = [
    ['an ordinary namespace', deploy('a', 'default'), false],
    ['karmada-system', deploy('a', 'karmada-system'), true],
    ['karmada-cluster', deploy('a', 'karmada-cluster'), true],
    ['karmada-es-*', deploy('a', 'karmada-es-member1'), true],
    ['kube-system', deploy('a', 'kube-system'), true],
    ['kube-public', deploy('a', 'kube-public'), true],
    ['a name merely containing kube-', deploy('a', 'my-kube-apps'), false],
    ['an extra skipped namespace (the KubeFed namespace)', deploy('a', 'kube-federation-system'), true],
    ['an extra skipped namespace given by name', deploy('a', 'fed'), true],
    ['extra namespaces are exact names', deploy('a', 'fed2'), false],
    [
      'a cluster-scoped object',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } },
      false,
    ],
    [
      'claimed by another controller',
      deploy('a', 'default', { 'resourcetemplate.karmada.io/claimed-by': 'mcs' }),
      true,
    ],
  ];
  for (const [name, template, expected] of cases)
    test(name, () => assert.equal(isIgnoredTemplate(template, ['fed']), expected));
});
