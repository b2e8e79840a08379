import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../../../src/api/policy/v1alpha1/labels.ts';
import type { PropagationSpec } from '../../../src/api/policy/v1alpha1/propagationpolicy.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { CommandError } from '../../../src/kubefedctl/errors.ts';
import { offlineClusters, parseExplainFiles, runExplainOffline } from '../../../src/kubefedctl/explain.ts';
import {
  changedPaths,
  type ExplainInput,
  explainTemplate,
  renderExplainText,
} from '../../../src/kubefedctl/explain-report.ts';
import type { PolicyCluster } from '../../../src/sources/policy/cluster-affinity.ts';
import type { CandidatePolicy } from '../../../src/sources/policy/matching.ts';
import type { NamedOverridePolicy } from '../../../src/sources/policy/overrides/select.ts';

const deploy = (
  name: string,
  labels: Record<string, string> = {},
  extra: Partial<KubeObject['metadata']> = {},
): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'apps', labels, ...extra },
  spec: { replicas: 4, template: { spec: { containers: [{ name: 'app', image: 'web:1' }] } } },
});

const policy = (
  kind: CandidatePolicy['kind'],
  name: string,
  spec: Partial<PropagationSpec>,
  extra: Partial<CandidatePolicy> = {},
): CandidatePolicy => ({
  kind,
  ...(kind === 'PropagationPolicy' ? { namespace: 'apps' } : {}),
  name,
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }], ...spec } as PropagationSpec,
  permanentId: `id-${name}`,
  deleting: false,
  ...extra,
});

const cluster = (name: string, labels: Record<string, string> = {}, ready = true): PolicyCluster => ({
  name,
  labels,
  zones: [],
  ready,
});

const input = (over: Partial<ExplainInput>): ExplainInput => ({
  templates: [],
  pps: [],
  cpps: [],
  ops: [],
  cops: [],
  clusters: [cluster('a'), cluster('b')],
  skippedNamespaces: ['kube-federation-system'],
  ...over,
});

describe('explain report: which policy claims a template and why', () => {
  test('a PropagationPolicy wins over a ClusterPropagationPolicy of higher priority', () => {
    const r = explainTemplate(
      input({
        pps: [policy('PropagationPolicy', 'pp', {})],
        cpps: [policy('ClusterPropagationPolicy', 'cpp', { priority: 9 })],
      }),
      deploy('web'),
    );
    assert.deepEqual(r.claimedBy, {
      kind: 'PropagationPolicy',
      namespace: 'apps',
      name: 'pp',
      how: 'new claim',
    });
    const cpp = r.candidates.find((c) => c.name === 'cpp');
    assert.equal(cpp?.winner, false);
    assert.equal(cpp?.explicitPriority, 9);
    assert.match(cpp?.reason ?? '', /PropagationPolicy of the namespace wins/);
  });

  test('explicit priority first, then name > label selector > kind, then the smaller name', () => {
    const t = deploy('web', { app: 'web' });
    const byName = policy('PropagationPolicy', 'z-name', {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
    });
    const byLabel = policy('PropagationPolicy', 'y-label', {
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { app: 'web' } } },
      ],
    });
    const byKind = policy('PropagationPolicy', 'a-kind', {});
    const r = explainTemplate(input({ pps: [byKind, byLabel, byName] }), t);
    assert.equal(r.claimedBy?.name, 'z-name');
    assert.deepEqual(
      r.candidates.map((c) => [c.name, c.match, c.implicitPriority]),
      [
        ['a-kind', 'kind', 1],
        ['y-label', 'labelSelector', 2],
        ['z-name', 'name', 3],
      ],
    );
    assert.match(r.candidates[1]?.reason ?? '', /less specific \(label selector match < name match\)/);

    const urgent = policy('PropagationPolicy', 'a-kind', { priority: 2 });
    const r2 = explainTemplate(input({ pps: [urgent, byName] }), t);
    assert.equal(r2.claimedBy?.name, 'a-kind');
    assert.match(r2.candidates[1]?.reason ?? '', /lower explicit priority \(0 < 2\)/);

    const r3 = explainTemplate(
      input({ pps: [policy('PropagationPolicy', 'b', {}), policy('PropagationPolicy', 'a', {})] }),
      t,
    );
    assert.equal(r3.claimedBy?.name, 'a');
    assert.match(r3.candidates[0]?.reason ?? '', /smaller name wins/);
  });

  test('a current claim is kept while its policy still selects the template (Karmada does not re-claim)', () => {
    const claimed = deploy(
      'web',
      { [PP_PERMANENT_ID_LABEL]: 'id-old' },
      {
        annotations: { [PP_NAMESPACE_ANNOTATION]: 'apps', [PP_NAME_ANNOTATION]: 'old' },
      },
    );
    const r = explainTemplate(
      input({
        pps: [policy('PropagationPolicy', 'old', {}), policy('PropagationPolicy', 'better', { priority: 5 })],
      }),
      claimed,
    );
    assert.equal(r.claimedBy?.name, 'old');
    assert.equal(r.claimedBy?.how, 'current claim');
    assert.match(r.candidates.find((c) => c.name === 'better')?.reason ?? '', /holds the claim/);
  });

  test('a policy of another namespace and a policy being deleted are no candidates for the claim', () => {
    const other = policy('PropagationPolicy', 'other', {}, { namespace: 'elsewhere' });
    const going = policy('PropagationPolicy', 'going', { priority: 3 }, { deleting: true });
    const r = explainTemplate(input({ pps: [other, going] }), deploy('web'));
    assert.equal(r.claimedBy, undefined);
    assert.deepEqual(
      r.candidates.map((c) => [c.name, c.reason]),
      [['going', 'being deleted: ignored']],
    );
  });

  test('nothing selects it: a normal answer', () => {
    const r = explainTemplate(input({}), deploy('web'));
    assert.equal(r.claimedBy, undefined);
    assert.match(renderExplainText([r]), /no PropagationPolicy or ClusterPropagationPolicy selects it/);
  });

  test('templates in reserved or skipped namespaces are ignored', () => {
    const t = { ...deploy('web'), metadata: { name: 'web', namespace: 'kube-system' } };
    assert.match(
      explainTemplate(input({ cpps: [policy('ClusterPropagationPolicy', 'c', {})] }), t).ignored ?? '',
      /never propagate/,
    );
  });
});

describe('explain report: where it lands and what each cluster receives', () => {
  test('Divided replicas by static weight, with overrides per cluster', () => {
    const pp = policy('PropagationPolicy', 'pp', {
      placement: {
        clusterAffinity: { clusterNames: ['a', 'b'] },
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          replicaDivisionPreference: 'Weighted',
          weightPreference: {
            staticWeightList: [
              { targetCluster: { clusterNames: ['a'] }, weight: 1 },
              { targetCluster: { clusterNames: ['b'] }, weight: 3 },
            ],
          },
        },
      },
    } as Partial<PropagationSpec>);
    const op: NamedOverridePolicy = {
      kind: 'OverridePolicy',
      namespace: 'apps',
      name: 'tag',
      spec: {
        overrideRules: [
          {
            targetCluster: { clusterNames: ['b'] },
            overriders: { imageOverrider: [{ component: 'Tag', operator: 'replace', value: '2' }] },
          },
        ],
      },
    };
    const r = explainTemplate(input({ pps: [pp], ops: [op] }), deploy('web'));
    assert.deepEqual(r.placement, {
      ok: true,
      clusters: [
        { name: 'a', replicas: 1 },
        { name: 'b', replicas: 3 },
      ],
    });
    const [a, b] = r.members;
    assert.deepEqual(a?.overrides, [], 'the rule targets b only');
    assert.deepEqual(b?.overrides, ['OverridePolicy apps/tag']);
    assert.equal((b?.object?.spec as { replicas?: number } | undefined)?.replicas, 3);
    assert.ok(a?.changes.includes('~ spec.replicas: 4 -> 1'), a?.changes.join('\n'));
    assert.ok(
      b?.changes.some((c) => c.startsWith('~ spec.template.spec.containers:') && c.includes('web:2')),
    );
    // The claim bookkeeping every copy carries is not reported as a change.
    assert.ok(!b?.changes.some((c) => c.includes('karmada')), b?.changes.join('\n'));
    const text = renderExplainText([r]);
    assert.match(text, /placement: a \(1\), b \(3\)/);
    assert.match(text, / {2}b: replicas 3\n {4}overrides: OverridePolicy apps\/tag/);
  });

  test('NoClusterFit is reported with the scheduler’s reason', () => {
    const pp = policy('PropagationPolicy', 'pp', {
      placement: { clusterAffinity: { clusterNames: ['nowhere'] } },
    });
    const r = explainTemplate(input({ pps: [pp] }), deploy('web'));
    assert.equal(r.placement?.ok, false);
    assert.match(renderExplainText([r]), /placement: NoClusterFit: .*cluster affinity/);
    assert.deepEqual(r.members, []);
  });

  test('an override that cannot be applied is that cluster’s error, not the command’s', () => {
    const pp = policy('PropagationPolicy', 'pp', { placement: { clusterAffinity: { clusterNames: ['a'] } } });
    const op: NamedOverridePolicy = {
      kind: 'OverridePolicy',
      namespace: 'apps',
      name: 'broken',
      spec: {
        overrideRules: [
          { overriders: { plaintext: [{ path: '/spec/nothing/here', operator: 'replace', value: 1 }] } },
        ],
      },
    };
    const r = explainTemplate(input({ pps: [pp], ops: [op] }), deploy('web'));
    assert.match(r.members[0]?.error ?? '', /OverridePolicy apps\/broken/);
    assert.match(renderExplainText([r]), /not sent: /);
  });

  test('changedPaths lists added, removed and changed leaves', () => {
    assert.deepEqual(changedPaths({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 5 }, e: [1] }), [
      '~ b.c: 2 -> 5',
      '- b.d',
      '+ e: [1]',
    ]);
  });
});

describe('explain input files', () => {
  const file = (text: string) => [{ name: 'f.yaml', text }];
  test('documents are sorted into templates, policies and clusters; namespaces are defaulted', () => {
    const f = parseExplainFiles(
      file(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
---
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: p}
spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: c, namespace: ignored}
spec: {}
---
apiVersion: core.kubefed.io/v1beta1
kind: KubeFedCluster
metadata: {name: m1, labels: {region: eu}}
spec: {apiEndpoint: 'https://m1', secretRef: {name: s}}
`),
      'dev',
    );
    assert.deepEqual(
      f.templates.map((t) => [t.kind, t.metadata.namespace]),
      [
        ['Deployment', 'dev'],
        ['Namespace', undefined],
      ],
    );
    assert.equal(f.pps[0]?.metadata.namespace, 'dev');
    assert.equal(f.cops[0]?.metadata.namespace, undefined);
    assert.deepEqual(offlineClusters(f.clusters, ['m2']), [
      { name: 'm1', labels: { region: 'eu' }, zones: [], ready: true },
      { name: 'm2', labels: {}, zones: [], ready: true },
    ]);
  });

  test('bad input is one readable error', () => {
    assert.throws(
      () => parseExplainFiles(file('a: [1'), 'default'),
      (e: unknown) => e instanceof CommandError && /f\.yaml: /.test(e.message),
    );
    assert.throws(
      () => parseExplainFiles(file('metadata: {name: x}'), 'default'),
      /document 1: apiVersion and kind are required/,
    );
    assert.throws(
      () =>
        parseExplainFiles(
          file('apiVersion: policy.karmada.io/v1alpha1\nkind: Nope\nmetadata: {name: x}\nspec: {}'),
          'default',
        ),
      /unknown kind "Nope"/,
    );
    assert.throws(
      () => parseExplainFiles(file('apiVersion: v1\nkind: ConfigMap\nmetadata: {}'), 'default'),
      /no metadata.name/,
    );
    assert.throws(
      () =>
        runExplainOffline({
          filenames: ['f.yaml'],
          namespace: 'default',
          clusterNames: [],
          kubefedNamespace: 'kube-federation-system',
          output: 'text',
          out: () => {},
          readFile: () => 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}',
        }),
      /no clusters/,
    );
  });

  test('-o json carries the full member objects', () => {
    let printed = '';
    runExplainOffline({
      filenames: ['f.yaml'],
      namespace: 'default',
      clusterNames: ['m1'],
      kubefedNamespace: 'kube-federation-system',
      output: 'json',
      out: (t) => {
        printed += t;
      },
      readFile: () => `apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data: {k: v}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: all}
spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}
`,
    });
    const parsed = JSON.parse(printed) as {
      templates: Array<{ members: Array<{ cluster: string; object: KubeObject }> }>;
    };
    assert.equal(parsed.templates[0]?.members[0]?.cluster, 'm1');
    assert.deepEqual((parsed.templates[0]?.members[0]?.object as { data?: unknown } | undefined)?.data, {
      k: 'v',
    });
  });
});
