import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import {
  CPP_FINALIZER,
  CPP_PERMANENT_ID_LABEL,
  PP_FINALIZER,
  PP_PERMANENT_ID_LABEL,
} from '../../../src/api/policy/v1alpha1/labels.ts';
import { REPO_ROOT } from '../../../src/paths.ts';
import { isPlainObject, type JsonObject } from '../../../src/propagation/json.ts';
import { applyJsonPatch } from '../../../src/propagation/json-patch.ts';
import { validateOverrideSpec } from '../../../src/sources/policy/overrides/validation.ts';
import { type AdmissionRequest, admit, handlers, WebhookPath } from '../../../src/webhook/admission.ts';
import { defaultPropagationSpec, propagationPolicyPatch } from '../../../src/webhook/propagationpolicy.ts';
import { aggregateMessages, overridePolicyHandler } from '../../../src/webhook/validation/overridepolicy.ts';
import {
  propagationPolicyDenial,
  validatePropagationSpec,
} from '../../../src/webhook/validation/propagationpolicy.ts';

const ID = '7f0c3a52-0000-4000-8000-000000000001';
const pp = (spec: JsonObject, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'p', namespace: 'apps', ...metadata },
  spec,
});
const deployments = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }];
/** What helper.AddTolerations gives a policy that tolerates neither taint. */
const DEFAULT_TOLERATIONS = [
  { key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'cluster.karmada.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];
const PP_CTX = { cluster: false, namespace: 'apps' };
const CPP_CTX = { cluster: true, namespace: '' };

/** The object as stored after the mutating webhook: the patch applied. */
const mutated = (obj: JsonObject, cluster = false, namespace = 'apps'): JsonObject =>
  applyJsonPatch(
    obj,
    propagationPolicyPatch(obj, { cluster, operation: 'CREATE', namespace, newId: () => ID }),
  );

/** The spec errors of a stored (mutated) PropagationPolicy, formatted. */
const denial = (spec: JsonObject, ctx = PP_CTX): string | undefined =>
  propagationPolicyDenial(mutated(pp(spec), ctx.cluster, ctx.namespace), ctx);

describe('PropagationPolicy defaulting (Karmada MutatingAdmission)', () => {
  test('on CREATE: selector namespaces, spread constraints, ServiceImport deps, Weighted, grace period, id and finalizer', () => {
    const obj = pp({
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment' },
        {
          apiVersion: 'multicluster.x-k8s.io/v1alpha1',
          kind: 'ServiceImport',
          name: 'svc',
          namespace: 'apps',
        },
      ],
      placement: {
        spreadConstraints: [{ maxGroups: 2 }, { spreadByLabel: 'zone-group', minGroups: 3 }],
        replicaScheduling: {},
      },
      failover: { application: { decisionConditions: { tolerationSeconds: 300 }, purgeMode: 'Gracefully' } },
    });
    const patch = propagationPolicyPatch(obj, {
      cluster: false,
      operation: 'CREATE',
      namespace: 'apps',
      newId: () => ID,
    });
    assert.deepEqual(patch.slice(1), [
      { op: 'add', path: '/metadata/labels', value: { [PP_PERMANENT_ID_LABEL]: ID } },
      { op: 'add', path: '/metadata/finalizers', value: [PP_FINALIZER] },
    ]);
    assert.equal(patch[0]?.op, 'replace');
    assert.equal(patch[0]?.path, '/spec');
    assert.deepEqual(patch[0]?.value, {
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps' },
        {
          apiVersion: 'multicluster.x-k8s.io/v1alpha1',
          kind: 'ServiceImport',
          name: 'svc',
          namespace: 'apps',
        },
      ],
      placement: {
        spreadConstraints: [
          { maxGroups: 2, spreadByField: 'cluster', minGroups: 1 },
          { spreadByLabel: 'zone-group', minGroups: 3 },
        ],
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted' },
        clusterTolerations: DEFAULT_TOLERATIONS,
      },
      failover: {
        application: {
          decisionConditions: { tolerationSeconds: 300 },
          purgeMode: 'Gracefully',
          gracePeriodSeconds: 600,
        },
      },
      propagateDeps: true,
    });
  });

  test('values the user set are kept; Duplicated gets no division preference; other purge modes no grace period', () => {
    const spec = {
      resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps' }],
      placement: {
        spreadConstraints: [{ spreadByField: 'region', minGroups: 2 }],
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
        // Has both default tolerations already (other seconds): nothing is added.
        clusterTolerations: DEFAULT_TOLERATIONS.map((t) => ({ ...t, tolerationSeconds: 30 })),
      },
      failover: { application: { decisionConditions: {}, purgeMode: 'Directly' } },
      propagateDeps: true,
    };
    assert.deepEqual(defaultPropagationSpec(spec, 'apps'), spec);
    const aggregated = { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' };
    assert.deepEqual(defaultPropagationSpec({ placement: { replicaScheduling: aggregated } }).placement, {
      replicaScheduling: aggregated,
      clusterTolerations: DEFAULT_TOLERATIONS,
    });
  });

  test('default tolerations (helper.AddTolerations): added unless the policy has that very toleration', () => {
    const mine = {
      key: 'cluster.karmada.io/not-ready',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 60,
    };
    assert.deepEqual(defaultPropagationSpec({ placement: { clusterTolerations: [mine] } }).placement, {
      clusterTolerations: [mine, DEFAULT_TOLERATIONS[1]],
    });
    // Only an identical toleration (helper.TolerationExists: key, operator, value, effect) stops a default,
    // so one for NoSchedule, and one without an effect that would tolerate the taint, still get both.
    const noSchedule = { key: 'cluster.karmada.io/unreachable', operator: 'Exists', effect: 'NoSchedule' };
    assert.deepEqual(defaultPropagationSpec({ placement: { clusterTolerations: [noSchedule] } }).placement, {
      clusterTolerations: [noSchedule, ...DEFAULT_TOLERATIONS],
    });
    const anyEffect = { key: 'cluster.karmada.io/unreachable', operator: 'Exists' };
    assert.deepEqual(defaultPropagationSpec({ placement: { clusterTolerations: [anyEffect] } }).placement, {
      clusterTolerations: [anyEffect, ...DEFAULT_TOLERATIONS],
    });
    // Not a list of tolerations: left for validation to report.
    assert.deepEqual(defaultPropagationSpec({ placement: { clusterTolerations: 'x' } }).placement, {
      clusterTolerations: 'x',
    });
  });

  test('existing labels and finalizers: the id is set (replacing one the user wrote), the finalizer added once', () => {
    const obj = pp(
      { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps' }] },
      {
        labels: { team: 'a', [PP_PERMANENT_ID_LABEL]: 'mine' },
        finalizers: ['example.com/keep', PP_FINALIZER],
      },
    );
    const patch = propagationPolicyPatch(obj, {
      cluster: false,
      operation: 'CREATE',
      namespace: 'apps',
      newId: () => ID,
    });
    assert.equal(patch[0]?.path, '/spec');
    assert.deepEqual(patch.slice(1), [
      { op: 'add', path: '/metadata/labels/propagationpolicy.karmada.io~1permanent-id', value: ID },
    ]);
    const other = pp(
      { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'apps' }] },
      { labels: {}, finalizers: ['example.com/keep'] },
    );
    const stored = mutated(other);
    assert.deepEqual((stored['metadata'] as JsonObject)['finalizers'], ['example.com/keep', PP_FINALIZER]);
  });

  test('a ClusterPropagationPolicy: its own label and finalizer, selector namespaces left empty', () => {
    const obj = {
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'c' },
      spec: { resourceSelectors: deployments },
    };
    const stored = mutated(obj, true, '');
    assert.deepEqual(stored['metadata'], {
      name: 'c',
      labels: { [CPP_PERMANENT_ID_LABEL]: ID },
      finalizers: [CPP_FINALIZER],
    });
    assert.deepEqual(stored['spec'], {
      resourceSelectors: deployments,
      placement: { clusterTolerations: DEFAULT_TOLERATIONS },
    });
  });

  test('UPDATE: defaults only, no id or finalizer; an unchanged spec is not touched', () => {
    const old = mutated(pp({ resourceSelectors: deployments }));
    const changed = pp({ resourceSelectors: [...deployments, { apiVersion: 'v1', kind: 'Secret' }] });
    assert.deepEqual(
      propagationPolicyPatch(changed, {
        cluster: false,
        operation: 'UPDATE',
        namespace: 'apps',
        oldObject: old,
      }),
      [
        {
          op: 'replace',
          path: '/spec',
          value: {
            resourceSelectors: [
              { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx', namespace: 'apps' },
              { apiVersion: 'v1', kind: 'Secret', namespace: 'apps' },
            ],
            placement: { clusterTolerations: DEFAULT_TOLERATIONS },
          },
        },
      ],
    );
    // Stored before the webhook, its selector namespace never defaulted: a finalizer removal leaves it so.
    const bare = pp({ resourceSelectors: deployments });
    assert.deepEqual(
      propagationPolicyPatch(bare, {
        cluster: false,
        operation: 'UPDATE',
        namespace: 'apps',
        oldObject: bare,
      }),
      [],
    );
  });

  test('through the server: a base64 JSONPatch response', () => {
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u1',
        operation: 'CREATE',
        namespace: 'apps',
        resource: { group: 'policy.karmada.io', version: 'v1alpha1', resource: 'propagationpolicies' },
        object: pp({ resourceSelectors: deployments }),
      },
    });
    const { review } = admit(WebhookPath.MutatePropagationPolicy, body);
    assert.equal(review.response.allowed, true);
    assert.equal(review.response.patchType, 'JSONPatch');
    const ops = JSON.parse(Buffer.from(review.response.patch ?? '', 'base64').toString()) as Array<{
      path: string;
    }>;
    assert.deepEqual(
      ops.map((o) => o.path),
      ['/spec', '/metadata/labels', '/metadata/finalizers'],
    );
  });
});

describe('PropagationPolicy validation (Karmada ValidatingAdmission)', () => {
  const valid = {
    resourceSelectors: deployments,
    placement: { clusterAffinity: { clusterNames: ['member1'] } },
  };

  test('a valid policy passes; the permanent-id label is required', () => {
    assert.equal(denial(valid), undefined);
    assert.equal(
      propagationPolicyDenial(pp(valid), PP_CTX),
      `label ${PP_PERMANENT_ID_LABEL} is required, it should be set by the mutating admission webhook during creation`,
    );
    assert.match(
      propagationPolicyDenial(pp(valid), CPP_CTX) ?? '',
      /^label clusterpropagationpolicy\.karmada\.io\/permanent-id is required/,
    );
  });

  test('UPDATE: schedulerName and the permanent-id label are immutable, also when only metadata changes', () => {
    const old = mutated(pp(valid));
    const withSpec = (patch: JsonObject): JsonObject => ({
      ...old,
      spec: { ...(old['spec'] as JsonObject), ...patch },
    });
    assert.equal(
      propagationPolicyDenial(withSpec({ schedulerName: 'other' }), PP_CTX, old),
      'the schedulerName should not be updated',
    );
    const relabelled = {
      ...old,
      metadata: { ...(old['metadata'] as JsonObject), labels: { [PP_PERMANENT_ID_LABEL]: 'x' } },
    };
    const immutable = `label ${PP_PERMANENT_ID_LABEL} is immutable, it can only be set by the system during creation`;
    assert.equal(propagationPolicyDenial(relabelled, PP_CTX, old), immutable);
    assert.equal(propagationPolicyDenial(relabelled, PP_CTX, old, { immutabilityOnly: true }), immutable);
    const unlabelled = { ...old, metadata: { ...(old['metadata'] as JsonObject), labels: {} } };
    assert.equal(propagationPolicyDenial(unlabelled, PP_CTX, old), immutable);
  });

  test('through the server: a finalizer removal of a policy stored without the label is allowed, a label change is not', () => {
    const stored = pp(valid, { finalizers: [PP_FINALIZER] });
    const req = (object: JsonObject, oldObject: JsonObject): AdmissionRequest => ({
      uid: 'u',
      resource: { group: 'policy.karmada.io', version: 'v1alpha1', resource: 'propagationpolicies' },
      subResource: '',
      name: 'p',
      namespace: 'apps',
      operation: 'UPDATE',
      object,
      oldObject,
    });
    const validate = handlers[WebhookPath.ValidatePropagationPolicy];
    assert.equal(validate(req(pp(valid), stored)).allowed, true);
    const labelled = mutated(pp(valid));
    const changed = {
      ...labelled,
      metadata: { ...(labelled['metadata'] as JsonObject), labels: { [PP_PERMANENT_ID_LABEL]: 'y' } },
    };
    const d = validate(req(changed, labelled));
    assert.equal(d.allowed, false);
    assert.equal(!d.allowed && d.code, 403);
    // Another group's resource of the same name is not examined.
    assert.equal(
      validate({
        ...req(changed, labelled),
        resource: { group: 'x.io', version: 'v1', resource: 'propagationpolicies' },
      }).allowed,
      true,
    );
  });

  test('resource selectors: non-empty, apiVersion and kind, the policy namespace, valid label selectors', () => {
    assert.equal(
      validatePropagationSpec({ resourceSelectors: [] }, PP_CTX)
        .map((e) => e.field)
        .join(),
      'spec.resourceSelectors',
    );
    assert.equal(
      denial({ resourceSelectors: [{ namespace: 'apps' }] }),
      '[spec.resourceSelectors[0].apiVersion: Required value, spec.resourceSelectors[0].kind: Required value]',
    );
    assert.equal(
      denial({ resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'other' }] }),
      'spec.resourceSelectors[0].namespace: Invalid value: "other": must be the namespace of the PropagationPolicy ("apps"): a PropagationPolicy selects resources in its own namespace only',
    );
    assert.equal(
      denial({
        resourceSelectors: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            labelSelector: { matchExpressions: [{ key: 'app', operator: 'In' }] },
          },
        ],
      }),
      "spec.resourceSelectors[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    );
    assert.match(
      denial({
        resourceSelectors: [
          { apiVersion: 'v1', kind: 'ConfigMap', labelSelector: { matchLabels: { 'a b': 'x' } } },
        ],
      }) ?? '',
      /^spec\.resourceSelectors\[0\]\.labelSelector\.matchLabels: Invalid value: "a b": name part must consist of/,
    );
  });

  test('ClusterPropagationPolicy: any namespace but Karmada reserved ones', () => {
    const sel = (namespace: string) => ({
      resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace }],
    });
    assert.equal(denial(sel('apps'), CPP_CTX), undefined);
    for (const ns of ['karmada-system', 'karmada-cluster', 'karmada-es-member1']) {
      assert.equal(
        denial(sel(ns), CPP_CTX),
        `spec.resourceSelectors[0].namespace: Forbidden: namespace "${ns}" is reserved by Karmada (karmada-system, karmada-cluster, karmada-es-*) and cannot be propagated`,
      );
    }
  });

  test('preemption Always needs a name on every selector; suspension dispatching excludes dispatchingOnClusters', () => {
    assert.equal(
      denial({
        resourceSelectors: [...deployments, { apiVersion: 'v1', kind: 'Pod' }],
        preemption: 'Always',
      }),
      'spec.resourceSelectors[1].name: Invalid value: "": name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption',
    );
    const suspension = { dispatching: true, dispatchingOnClusters: { clusterNames: ['member1'] } };
    assert.equal(
      denial({ resourceSelectors: deployments, suspension }),
      `spec.suspension: Invalid value: ${JSON.stringify(suspension)}: suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames`,
    );
    assert.equal(
      denial({
        resourceSelectors: deployments,
        suspension: { dispatching: false, dispatchingOnClusters: { clusterNames: ['m'] } },
      }),
      undefined,
    );
  });

  test('cluster affinity: not both forms; field selector keys and operators; affinity names valid and unique', () => {
    const both = {
      clusterAffinity: { clusterNames: ['m1'] },
      clusterAffinities: [{ affinityName: 'g', clusterNames: ['m1'] }],
    };
    assert.match(
      denial({ resourceSelectors: deployments, placement: both }) ?? '',
      /^spec\.placement: Invalid value: .*: clusterAffinities cannot co-exist with clusterAffinity$/,
    );
    const fieldSelector = (key: string, operator: string) => ({
      resourceSelectors: deployments,
      placement: {
        clusterAffinity: { fieldSelector: { matchExpressions: [{ key, operator, values: ['x'] }] } },
      },
    });
    assert.match(
      denial(fieldSelector('foo', 'In')) ?? '',
      /fieldSelector: Invalid value: .*: unsupported key "foo", must be provider, region, or zone$/,
    );
    assert.match(
      denial(fieldSelector('zone', 'Exists')) ?? '',
      /unsupported operator "Exists", must be In or NotIn$/,
    );
    assert.equal(denial(fieldSelector('region', 'NotIn')), undefined);
    const groups = (...names: string[]) => ({
      resourceSelectors: deployments,
      placement: { clusterAffinities: names.map((affinityName) => ({ affinityName, clusterNames: ['m1'] })) },
    });
    assert.match(
      denial(groups('g', 'g')) ?? '',
      /^spec\.placement\.clusterAffinities: Invalid value: .*: each affinity term in a policy must have a unique name$/,
    );
    assert.match(
      denial(groups('bad name')) ?? '',
      /^spec\.placement\.clusterAffinities\[0\]: Invalid value: "bad name": name part must consist of/,
    );
    assert.match(
      denial(groups('a'.repeat(33))) ?? '',
      /affinityName: Invalid value: "a{33}": must be no more than 32 characters/,
    );
    assert.match(
      denial({
        resourceSelectors: deployments,
        placement: {
          clusterAffinity: { labelSelector: { matchExpressions: [{ key: 'k', operator: 'Has' }] } },
        },
      }) ?? '',
      /^spec\.placement\.clusterAffinity\.labelSelector\.matchExpressions\[0\]\.operator: Invalid value: "Has": not a valid selector operator$/,
    );
  });

  test('overflow affinities: only with dynamic weight or Aggregated, after a non-empty inline affinity, names unique', () => {
    const term = (overflow: JsonObject[], inline: JsonObject = { clusterNames: ['m1'] }) => ({
      affinityName: 'primary',
      ...inline,
      overflowAffinities: overflow,
    });
    const spec = (t: JsonObject, replicaScheduling?: JsonObject) => ({
      resourceSelectors: deployments,
      placement: { clusterAffinities: [t], ...(replicaScheduling ? { replicaScheduling } : {}) },
    });
    const ok = [{ affinityName: 'cloud', clusterNames: ['m2'] }];
    const aggregated = { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' };
    const dynamic = {
      replicaSchedulingType: 'Divided',
      weightPreference: { dynamicWeight: 'AvailableReplicas' },
    };
    assert.equal(denial(spec(term(ok), aggregated)), undefined);
    assert.equal(denial(spec(term(ok), dynamic)), undefined);
    assert.match(
      denial(spec(term(ok))) ?? '',
      /^spec\.placement\.clusterAffinities\[0\]\.overflowAffinities: Invalid value: .*: overflowAffinities can only be used together with dynamic weight or aggregated scheduling$/,
    );
    assert.match(
      denial(spec(term(ok, {}), aggregated)) ?? '',
      /overflowAffinities can only be used together with the inline ClusterAffinity$/,
    );
    assert.match(
      denial(spec(term([{ affinityName: 'primary', clusterNames: ['m2'] }]), aggregated)) ?? '',
      /overflow affinity name must be unique and must not duplicate the primary group's affinityName$/,
    );
  });

  test('tolerations Lt/Gt, spread constraints, static weights, workload affinity', () => {
    assert.equal(
      denial({
        resourceSelectors: deployments,
        placement: { clusterTolerations: [{ key: 'k', operator: 'Lt', value: '1' }] },
      }),
      'spec.placement.clusterTolerations[0].operator: Unsupported value: "Lt": supported values: "Exists", "Equal"',
    );
    const spread = (...c: JsonObject[]) =>
      denial({ resourceSelectors: deployments, placement: { spreadConstraints: c } });
    assert.match(
      spread({ spreadByField: 'cluster', spreadByLabel: 'x' }) ?? '',
      /spreadByLabel should not co-exist with spreadByField$/,
    );
    assert.match(
      spread({ spreadByField: 'cluster', minGroups: 3, maxGroups: 2 }) ?? '',
      /maxGroups lower than minGroups is not allowed$/,
    );
    assert.match(
      spread({ spreadByField: 'cluster', maxGroups: -1 }) ?? '',
      /maxGroups lower than 0 is not allowed/,
    );
    assert.match(
      spread({ spreadByField: 'cluster' }, { spreadByField: 'cluster' }) ?? '',
      /multiple cluster spread constraints are not allowed$/,
    );
    assert.match(
      spread({ spreadByField: 'region' }) ?? '',
      /the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled$/,
    );
    assert.equal(spread({ spreadByField: 'region', maxGroups: 2 }, { spreadByField: 'cluster' }), undefined);
    assert.equal(spread({ spreadByLabel: 'group' }), undefined);
    const weights = (weight: number) =>
      denial({
        resourceSelectors: deployments,
        placement: {
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: ['m1'] }, weight }] },
          },
        },
      });
    assert.equal(weights(1), undefined);
    assert.equal(
      weights(0),
      'spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: Invalid value: 0: must be greater than or equal to 1',
    );
    assert.match(
      denial({
        resourceSelectors: deployments,
        placement: {
          workloadAffinity: {
            affinity: { groupByLabelKey: 'app' },
            antiAffinity: { groupByLabelKey: 'app' },
          },
        },
      }) ?? '',
      /^spec\.placement\.workloadAffinity: Invalid value: .*: affinity and antiAffinity must not use the same groupByLabelKey$/,
    );
  });

  test('failover: application failover needs propagateDeps; grace period only when Gracefully and positive', () => {
    const app = (application: JsonObject, propagateDeps = true) =>
      denial({ resourceSelectors: deployments, propagateDeps, failover: { application } });
    const decisionConditions = { tolerationSeconds: 30 };
    assert.equal(app({ decisionConditions, purgeMode: 'Gracefully' }), undefined);
    assert.equal(
      app({ decisionConditions, purgeMode: 'Gracefully' }, false),
      'spec.propagateDeps: Invalid value: false: application failover is set, propagateDeps must be true',
    );
    assert.equal(
      app({ decisionConditions, purgeMode: 'Directly', gracePeriodSeconds: 10 }),
      'spec.failover.application.gracePeriodSeconds: Invalid value: 10: only takes effect when purgeMode is gracefully',
    );
    assert.equal(
      app({ decisionConditions, purgeMode: 'Gracefully', gracePeriodSeconds: -5 }),
      'spec.failover.application.gracePeriodSeconds: Invalid value: -5: must be greater than 0',
    );
    assert.equal(
      app({ decisionConditions: { tolerationSeconds: -1 } }),
      'spec.failover.application.decisionConditions.tolerationSeconds: Invalid value: -1: must be greater than or equal to 0',
    );
    assert.match(
      app({
        decisionConditions,
        purgeMode: 'Directly',
        statePreservation: { rules: [{ aliasLabelName: '-x', jsonPath: '{.a}' }] },
      }) ?? '',
      /^spec\.failover\.application\.statePreservation\.rules\[0\]\.aliasLabelName: Invalid value: "-x": name part must consist of/,
    );
  });

  test('wrong JSON types are field errors, not exceptions', () => {
    assert.equal(
      denial({ resourceSelectors: 'all' }),
      'spec.resourceSelectors: Invalid value: "all": must be a list',
    );
    assert.equal(
      denial({ resourceSelectors: deployments, placement: { spreadConstraints: {} } }),
      'spec.placement.spreadConstraints: Invalid value: {}: must be a list',
    );
  });
});

describe('OverridePolicy handler', () => {
  const req = (resource: string, spec: unknown): AdmissionRequest => ({
    uid: 'u',
    resource: { group: 'policy.karmada.io', version: 'v1alpha1', resource },
    subResource: '',
    name: 'o',
    namespace: 'apps',
    operation: 'CREATE',
    object: { metadata: { name: 'o' }, spec },
  });

  test('the validator decides; several messages are aggregated; other resources are not examined', () => {
    const seen: unknown[] = [];
    const handler = overridePolicyHandler('overridepolicies', (spec) => {
      seen.push(spec);
      return ['spec.a: Invalid value: 1: no', 'spec.b: Required value'];
    });
    const d = handler(req('overridepolicies', { overrideRules: [] }));
    assert.deepEqual(d, {
      allowed: false,
      code: 403,
      reason: 'Forbidden',
      message: '[spec.a: Invalid value: 1: no, spec.b: Required value]',
    });
    assert.deepEqual(seen, [{ overrideRules: [] }]);
    assert.equal(handler(req('clusteroverridepolicies', {})).allowed, true);
    assert.equal(
      overridePolicyHandler('overridepolicies', () => [])(req('overridepolicies', {})).allowed,
      true,
    );
    assert.equal(aggregateMessages(['x', 'x']), 'x');
  });
});

describe('config/samples/karmada: the examples of Karmada documentation', () => {
  const dir = join(REPO_ROOT, 'config/samples/karmada');
  const objects = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => ({
        file: f,
        obj: d.toJS() as JsonObject,
      })),
    );
  const ofKind = (kind: string) => objects.filter((o) => o.obj['kind'] === kind);

  test('every PropagationPolicy and ClusterPropagationPolicy is admitted as created', () => {
    const policies = [...ofKind('PropagationPolicy'), ...ofKind('ClusterPropagationPolicy')];
    assert.ok(policies.length >= 4);
    for (const { file, obj } of policies) {
      const cluster = obj['kind'] === 'ClusterPropagationPolicy';
      const meta = obj['metadata'] as JsonObject;
      const namespace = cluster ? '' : typeof meta['namespace'] === 'string' ? meta['namespace'] : 'default';
      const stored = mutated(
        { ...obj, metadata: { ...meta, ...(cluster ? {} : { namespace }) } },
        cluster,
        namespace,
      );
      assert.equal(propagationPolicyDenial(stored, { cluster, namespace }), undefined, file);
    }
    const placements = ofKind('PropagationPolicy').map(
      (o) => (o.obj['spec'] as JsonObject)['placement'] as JsonObject,
    );
    assert.ok(placements.some((p) => isPlainObject(p['clusterAffinity'])));
    assert.ok(placements.some((p) => Array.isArray(p['clusterAffinities'])));
    assert.ok(placements.some((p) => JSON.stringify(p).includes('staticWeightList')));
  });

  test('every OverridePolicy and ClusterOverridePolicy passes Karmada’s validation; together they use every overrider', () => {
    const overrides = [...ofKind('OverridePolicy'), ...ofKind('ClusterOverridePolicy')];
    assert.ok(ofKind('ClusterOverridePolicy').length >= 1);
    const kinds = new Set<string>();
    for (const { file, obj } of overrides) {
      assert.deepEqual(validateOverrideSpec(obj['spec']), [], file);
      for (const rule of ((obj['spec'] as JsonObject)['overrideRules'] as JsonObject[]) ?? []) {
        for (const k of Object.keys(rule['overriders'] as JsonObject)) kinds.add(k);
      }
    }
    assert.deepEqual([...kinds].sort(), [
      'annotationsOverrider',
      'argsOverrider',
      'commandOverrider',
      'fieldOverrider',
      'imageOverrider',
      'labelsOverrider',
      'plaintext',
    ]);
  });

  test('every sample cites the Karmada page or file it comes from', () => {
    for (const f of readdirSync(dir))
      assert.match(
        readFileSync(join(dir, f), 'utf8'),
        /^# .*(karmada\.io\/docs\/|karmada-io\/(website|karmada) )/m,
        f,
      );
  });
});
