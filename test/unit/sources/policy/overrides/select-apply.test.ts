import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OverrideSpec } from '../../../../../src/api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../../../../src/kube/client/index.ts';
import type { PolicyCluster } from '../../../../../src/sources/policy/cluster-affinity.ts';
import { applyOverrides, OverrideError } from '../../../../../src/sources/policy/overrides/apply.ts';
import {
  type NamedOverridePolicy,
  overridePoliciesFor,
} from '../../../../../src/sources/policy/overrides/select.ts';

const template = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'apps', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'app', image: 'app:1', args: ['--a'] }] } },
  },
});

const cluster = (name: string, labels: Record<string, string> = {}): PolicyCluster => ({
  name,
  labels,
  zones: [],
  ready: true,
});

const op = (name: string, spec: OverrideSpec, namespace = 'apps'): NamedOverridePolicy => ({
  kind: 'OverridePolicy',
  name,
  namespace,
  spec,
});
const cop = (name: string, spec: OverrideSpec): NamedOverridePolicy => ({
  kind: 'ClusterOverridePolicy',
  name,
  spec,
});

const selector = { apiVersion: 'apps/v1', kind: 'Deployment' };

describe('overridePoliciesFor', () => {
  test('ClusterOverridePolicies first, then OverridePolicies of the namespace; each by implicit priority then name', () => {
    const ops = [
      op('z-all', {}),
      op('b-name', { resourceSelectors: [{ ...selector, name: 'web' }] }),
      op('a-label', { resourceSelectors: [{ ...selector, labelSelector: { matchLabels: { app: 'web' } } }] }),
      op('a-all', { resourceSelectors: [selector] }),
      op('other-ns', {}, 'other'),
      op('mismatch', { resourceSelectors: [{ ...selector, name: 'api' }] }),
    ];
    const cops = [cop('y', { resourceSelectors: [{ ...selector, name: 'web' }] }), cop('x', {})];
    assert.deepEqual(
      overridePoliciesFor(template(), cops, ops).map((p) => `${p.kind[0]}:${p.name}`),
      ['C:x', 'C:y', 'O:a-all', 'O:z-all', 'O:a-label', 'O:b-name'],
    );
  });

  test('a policy takes the best of its selectors; a selector namespace must equal the template’s', () => {
    const ops = [
      op('b', { resourceSelectors: [{ ...selector, name: 'nope' }, selector] }),
      op('a', {
        resourceSelectors: [
          { ...selector, namespace: 'other' },
          { ...selector, name: 'web' },
        ],
      }),
      op('c', { resourceSelectors: [{ ...selector, namespace: 'other' }] }),
      op('d', { resourceSelectors: [{ apiVersion: 'apps/v1beta1', kind: 'Deployment' }] }),
    ];
    assert.deepEqual(
      overridePoliciesFor(template(), [], ops).map((p) => p.name),
      ['b', 'a'],
    );
  });

  test('an empty label selector matches as a label selector; an invalid one matches nothing', () => {
    const ops = [
      op('a', { resourceSelectors: [{ ...selector, labelSelector: {} }] }),
      op('b', { resourceSelectors: [selector] }),
      op('c', {
        resourceSelectors: [
          { ...selector, labelSelector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] } },
        ],
      }),
    ];
    assert.deepEqual(
      overridePoliciesFor(template(), [], ops).map((p) => p.name),
      ['b', 'a'],
    );
  });

  test('cluster-scoped templates get ClusterOverridePolicies only', () => {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } };
    assert.deepEqual(
      overridePoliciesFor(ns, [cop('x', {})], [op('a', {}, '')]).map((p) => p.name),
      ['x'],
    );
  });
});

describe('applyOverrides', () => {
  test('within a rule: Image → Command → Args → Labels → Annotations → Field → Plaintext', () => {
    // Plaintext runs last, so it sees (and can overwrite) what the image and labels overriders did.
    const p = op('order', {
      overrideRules: [
        {
          overriders: {
            plaintext: [
              { path: '/metadata/labels/seen-image', operator: 'add', value: 'x' },
              { path: '/spec/template/spec/containers/0/image', operator: 'replace', value: 'final:1' },
            ],
            labelsOverrider: [{ operator: 'add', value: { step: 'labels' } }],
            annotationsOverrider: [{ operator: 'add', value: { step: 'annotations' } }],
            argsOverrider: [{ containerName: 'app', operator: 'add', value: ['--b'] }],
            commandOverrider: [{ containerName: 'app', operator: 'add', value: ['run'] }],
            imageOverrider: [{ component: 'Tag', operator: 'replace', value: '2' }],
          },
        },
      ],
    });
    const { object, applied } = applyOverrides(template(), [p], cluster('c1'));
    const c = (object['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } }).template
      .spec.containers[0]!;
    assert.equal(c['image'], 'final:1');
    assert.deepEqual(c['command'], ['run']);
    assert.deepEqual(c['args'], ['--a', '--b']);
    assert.deepEqual(object.metadata.labels, { app: 'web', step: 'labels', 'seen-image': 'x' });
    assert.deepEqual(object.metadata.annotations, { step: 'annotations' });
    assert.deepEqual(applied, ['OverridePolicy apps/order']);
  });

  test('image overriders of one rule compose in order', () => {
    const p = op('img', {
      overrideRules: [
        {
          overriders: {
            imageOverrider: [
              { component: 'Registry', operator: 'add', value: 'reg.io' },
              { component: 'Tag', operator: 'replace', value: '3' },
            ],
          },
        },
      ],
    });
    const { object } = applyOverrides(template(), [p], cluster('c1'));
    assert.match(JSON.stringify(object), /"image":"reg.io\/app:3"/);
  });

  test('rules apply only on matching clusters; later policies win; applied lists matching policies only', () => {
    const policies = [
      cop('global', {
        overrideRules: [
          { overriders: { plaintext: [{ path: '/spec/replicas', operator: 'replace', value: 5 }] } },
        ],
      }),
      op('east', {
        overrideRules: [
          {
            targetCluster: { clusterNames: ['east'] },
            overriders: { plaintext: [{ path: '/spec/replicas', operator: 'replace', value: 7 }] },
          },
          {
            targetCluster: { labelSelector: { matchLabels: { tier: 'gold' } } },
            overriders: { labelsOverrider: [{ operator: 'add', value: { gold: 'yes' } }] },
          },
        ],
      }),
    ];
    const east = applyOverrides(template(), policies, cluster('east'));
    assert.equal((east.object['spec'] as { replicas: number }).replicas, 7);
    assert.deepEqual(east.applied, ['ClusterOverridePolicy global', 'OverridePolicy apps/east']);
    const gold = applyOverrides(template(), policies, cluster('west', { tier: 'gold' }));
    assert.equal((gold.object['spec'] as { replicas: number }).replicas, 5);
    assert.equal(gold.object.metadata.labels?.['gold'], 'yes');
    const west = applyOverrides(template(), policies, cluster('west'));
    assert.deepEqual(west.applied, ['ClusterOverridePolicy global']);
  });

  test('the deprecated single targetCluster/overriders form', () => {
    const p = op('old', {
      targetCluster: { clusterNames: ['c1'] },
      overriders: { plaintext: [{ path: '/spec/replicas', operator: 'replace', value: 9 }] },
    });
    assert.equal(
      (applyOverrides(template(), [p], cluster('c1')).object['spec'] as { replicas: number }).replicas,
      9,
    );
    const other = applyOverrides(template(), [p], cluster('c2'));
    assert.deepEqual(other, { object: template(), applied: [] });
  });

  test('the input is untouched', () => {
    const t = template();
    applyOverrides(
      t,
      [
        op('x', {
          overrideRules: [{ overriders: { labelsOverrider: [{ operator: 'add', value: { a: 'b' } }] } }],
        }),
      ],
      cluster('c1'),
    );
    assert.deepEqual(t, template());
  });

  test('failures are OverrideError naming the policy and the overrider', () => {
    const bad = op('web', {
      overrideRules: [{ overriders: { plaintext: [{ path: '/spec/nope', operator: 'replace', value: 1 }] } }],
    });
    assert.throws(
      () => applyOverrides(template(), [bad], cluster('c1')),
      (e: unknown) =>
        e instanceof OverrideError &&
        e.policy === 'OverridePolicy apps/web' &&
        e.message ===
          'OverridePolicy apps/web: spec.overrideRules[0].overriders.plaintext: replace operation does not apply: doc is missing key: /spec/nope: missing value',
    );
    const noKind = op('k', {
      overrideRules: [{ overriders: { plaintext: [{ path: '/kind', operator: 'remove' }] } }],
    });
    assert.throws(() => applyOverrides(template(), [noKind], cluster('c1')), /Object 'Kind' is missing/);
    const badSelector = cop('sel', {
      overrideRules: [
        {
          targetCluster: { labelSelector: { matchExpressions: [{ key: 'a', operator: 'Nope' }] } },
          overriders: {},
        },
      ],
    });
    assert.throws(
      () => applyOverrides(template(), [badSelector], cluster('c1')),
      (e: unknown) =>
        e instanceof OverrideError &&
        e.policy === 'ClusterOverridePolicy sel' &&
        /targetCluster/.test(e.location),
    );
    const badImage = op('img', {
      overrideRules: [
        { overriders: { imageOverrider: [{ component: 'Tag', operator: 'replace', value: 'x' }] } },
      ],
    });
    const t = template();
    (t['spec'] as { template: { spec: { containers: { image: string }[] } } }).template.spec
      .containers[0]!.image = 'UPPER';
    assert.throws(
      () => applyOverrides(t, [badImage], cluster('c1')),
      /imageOverrider\[0\]: failed to parse image value\(UPPER\)/,
    );
  });
});
