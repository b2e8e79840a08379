import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
} from '../../../src/api/policy/v1alpha1/labels.ts';
import type { CandidatePolicy } from '../../../src/sources/policy/matching.ts';
import { admit, WebhookPath } from '../../../src/webhook/admission.ts';
import { type PolicyView, templateClaimPatch } from '../../../src/webhook/template-claim.ts';

const deploymentSelector = { apiVersion: 'apps/v1', kind: 'Deployment' };

function policy(over: Partial<CandidatePolicy> & { name: string }): CandidatePolicy {
  return {
    kind: 'PropagationPolicy',
    namespace: 'apps',
    permanentId: `id-${over.name}`,
    deleting: false,
    spec: { resourceSelectors: [deploymentSelector] },
    ...over,
  } as CandidatePolicy;
}

function view(pps: CandidatePolicy[], cpps: CandidatePolicy[] = []): PolicyView {
  return {
    kubefedNamespace: 'kube-federation-system',
    propagationPolicies: (ns) => pps.filter((p) => p.namespace === ns),
    clusterPropagationPolicies: () => cpps,
  };
}

const create = (object: unknown, over: Record<string, unknown> = {}) => ({
  operation: 'CREATE',
  subResource: '',
  namespace: 'apps',
  object,
  ...over,
});

const deployment = (metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', ...metadata },
  spec: { replicas: 2 },
});

describe('templateClaimPatch', () => {
  test("a PropagationPolicy's claim, with the template's own labels and annotations kept", () => {
    const patch = templateClaimPatch(
      create(deployment({ labels: { app: 'web' }, annotations: { note: 'x' } })),
      view([policy({ name: 'pp' })]),
    );
    assert.deepEqual(patch, [
      { op: 'add', path: '/metadata/labels', value: { app: 'web', [PP_PERMANENT_ID_LABEL]: 'id-pp' } },
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { note: 'x', [PP_NAMESPACE_ANNOTATION]: 'apps', [PP_NAME_ANNOTATION]: 'pp' },
      },
    ]);
  });

  test('the namespace comes from the request when the object leaves it out', () => {
    const patch = templateClaimPatch(create(deployment()), view([policy({ name: 'pp' })]));
    assert.equal((patch[1]?.value as Record<string, string> | undefined)?.[PP_NAMESPACE_ANNOTATION], 'apps');
  });

  test("the detector's choice: a PropagationPolicy wins over a ClusterPropagationPolicy of higher priority", () => {
    const cpp = policy({ kind: 'ClusterPropagationPolicy', namespace: undefined, name: 'cpp' });
    const pp = policy({ name: 'pp' });
    const both = templateClaimPatch(
      create(deployment()),
      view([pp], [{ ...cpp, spec: { ...cpp.spec, priority: 100 } }]),
    );
    assert.equal((both[0]?.value as Record<string, string> | undefined)?.[PP_PERMANENT_ID_LABEL], 'id-pp');
    const clusterOnly = templateClaimPatch(create(deployment()), view([], [cpp]));
    assert.deepEqual(clusterOnly, [
      { op: 'add', path: '/metadata/labels', value: { [CPP_PERMANENT_ID_LABEL]: 'id-cpp' } },
      { op: 'add', path: '/metadata/annotations', value: { [CPP_NAME_ANNOTATION]: 'cpp' } },
    ]);
  });

  test('a selector naming another template, or another kind, claims nothing', () => {
    const named = policy({
      name: 'pp',
      spec: { resourceSelectors: [{ ...deploymentSelector, name: 'other' }] },
    } as Partial<CandidatePolicy> & { name: string });
    assert.deepEqual(templateClaimPatch(create(deployment()), view([named])), []);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' } };
    assert.deepEqual(templateClaimPatch(create(configMap), view([policy({ name: 'pp' })])), []);
  });

  test('left to the detector: updates, subresources, generated names, claimed, ignored or unselected templates', () => {
    const v = view([policy({ name: 'pp' })]);
    const cases: Array<[string, ReturnType<typeof create>]> = [
      ['an update', create(deployment(), { operation: 'UPDATE' })],
      ['a subresource', create(deployment(), { subResource: 'status' })],
      ['no name yet', create(deployment({ name: undefined, generateName: 'web-' }))],
      [
        'claimed already',
        create(
          deployment({
            labels: { [CPP_PERMANENT_ID_LABEL]: 'x' },
            annotations: { [CPP_NAME_ANNOTATION]: 'c' },
          }),
        ),
      ],
      ['a kube- namespace', create(deployment(), { namespace: 'kube-system' })],
      ['the KubeFed namespace', create(deployment(), { namespace: 'kube-federation-system' })],
      ['another namespace', create(deployment(), { namespace: 'other' })],
      [
        'claimed by another controller',
        create(deployment({ labels: { 'resourcetemplate.karmada.io/claimed-by': 'mcs' } })),
      ],
      ['not an object', create('nope')],
      ['no metadata', create({ apiVersion: 'apps/v1', kind: 'Deployment' })],
    ];
    for (const [what, req] of cases) assert.deepEqual(templateClaimPatch(req, v), [], what);
  });

  test('a policy without its permanent-id yet, or being deleted, claims nothing', () => {
    assert.deepEqual(
      templateClaimPatch(create(deployment()), view([policy({ name: 'pp', permanentId: '' })])),
      [],
    );
    assert.deepEqual(
      templateClaimPatch(create(deployment()), view([policy({ name: 'pp', deleting: true })])),
      [],
    );
  });
});

describe('admit: the template claim webhook', () => {
  const body = (object: unknown) =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u1',
        operation: 'CREATE',
        namespace: 'apps',
        name: 'web',
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        object,
      },
    });

  test('answers a JSON patch the API server applies', () => {
    const r = admit(WebhookPath.ClaimResourceTemplate, body(deployment()), {
      policies: () => view([policy({ name: 'pp' })]),
    }).review.response;
    assert.equal(r.allowed, true);
    assert.equal(r.patchType, 'JSONPatch');
    const ops = JSON.parse(Buffer.from(r.patch ?? '', 'base64').toString('utf8')) as Array<{ path: string }>;
    assert.deepEqual(
      ops.map((o) => o.path),
      ['/metadata/labels', '/metadata/annotations'],
    );
  });

  test('never refuses: without a view, or with an object it cannot read, the create goes through unchanged', () => {
    for (const [object, ctx] of [
      [deployment(), {}],
      [deployment(), { policies: () => undefined }],
      [42, { policies: () => view([policy({ name: 'pp' })]) }],
    ] as const) {
      const r = admit(WebhookPath.ClaimResourceTemplate, body(object), ctx).review.response;
      assert.equal(r.allowed, true);
      assert.equal(r.patch, undefined);
    }
  });

  test('a view that throws admits the object unchanged', () => {
    const broken: PolicyView = {
      ...view([]),
      propagationPolicies: () => {
        throw new Error('boom');
      },
    };
    const r = admit(WebhookPath.ClaimResourceTemplate, body(deployment()), { policies: () => broken }).review
      .response;
    assert.deepEqual([r.allowed, r.patch], [true, undefined]);
  });
});
