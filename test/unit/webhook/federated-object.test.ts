import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatFieldErrors } from '../../../src/api/field-errors.ts';
import { compileLabelSelector } from '../../../src/propagation/label-selector.ts';
import { parseOverrides } from '../../../src/propagation/overrides.ts';
import { validateFederatedObject } from '../../../src/webhook/validation/federated-object.ts';

const QUALIFIED_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const IDENTITY =
  'may not be overridden: the name, namespace and kind of member objects come from the federated object';

/** KubeFed's worked example (docs/userguide.md). */
const fdeploy = (spec: Record<string, unknown> = {}) => ({
  apiVersion: 'types.kubefed.io/v1beta1',
  kind: 'FederatedDeployment',
  metadata: { name: 'test-deployment', namespace: 'test-namespace' },
  spec: {
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'nginx' } },
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: { containers: [{ image: 'nginx', name: 'nginx' }] },
        },
      },
    },
    placement: { clusters: [{ name: 'cluster2' }, { name: 'cluster1' }] },
    overrides: [
      {
        clusterName: 'cluster2',
        clusterOverrides: [
          { path: '/spec/replicas', value: 5 },
          { path: '/spec/template/spec/containers/0/image', value: 'nginx:1.17.0-alpine' },
          { path: '/metadata/annotations', op: 'add', value: { foo: 'bar' } },
          { path: '/metadata/annotations/foo', op: 'remove' },
        ],
      },
    ],
    ...spec,
  },
});

const messages = (obj: unknown, ctx = {}) => formatFieldErrors(validateFederatedObject(obj, ctx).errors);
const overrides = (clusterOverrides: unknown[], clusterName = 'cluster1') => ({
  overrides: [{ clusterName, clusterOverrides }],
});

describe('validateFederatedObject', () => {
  test("KubeFed's worked example is valid", () => {
    assert.deepEqual(validateFederatedObject(fdeploy()), { errors: [], warnings: [] });
  });

  test('spec is required; template, placement and overrides are optional', () => {
    assert.equal(messages({ metadata: { name: 'x' } }), 'spec: Required value');
    assert.deepEqual(validateFederatedObject({ spec: {} }).errors, []);
    assert.deepEqual(
      validateFederatedObject({ spec: { template: null, placement: null, overrides: null } }).errors,
      [],
    );
  });

  describe('placement', () => {
    test('cluster names: required and not repeated', () => {
      assert.equal(
        messages(fdeploy({ placement: { clusters: [{ name: 'a' }, {}, { name: '' }, { name: 'a' }, 'b'] } })),
        '[spec.placement.clusters[1].name: Required value, spec.placement.clusters[2].name: Required value, spec.placement.clusters[3].name: Duplicate value: "a", spec.placement.clusters[4]: Invalid value: "b": must be an object]',
      );
      assert.equal(
        messages(fdeploy({ placement: { clusters: { name: 'a' } } })),
        'spec.placement.clusters: Invalid value: {"name":"a"}: must be a list',
      );
      assert.deepEqual(validateFederatedObject(fdeploy({ placement: { clusters: [] } })).errors, []);
    });

    test('the selector: label keys and values', () => {
      assert.deepEqual(validateFederatedObject(fdeploy({ placement: { clusterSelector: {} } })).errors, []);
      assert.deepEqual(
        validateFederatedObject(
          fdeploy({
            placement: {
              clusterSelector: {
                matchLabels: { 'example.com/region': 'eu-1' },
                matchExpressions: [
                  { key: 'zone', operator: 'In', values: ['a', 'b'] },
                  { key: 'gpu', operator: 'DoesNotExist' },
                ],
              },
            },
          }),
        ).errors,
        [],
      );
      assert.equal(
        messages(fdeploy({ placement: { clusterSelector: { matchLabels: { 'bad key': 'bad value!' } } } })),
        `[spec.placement.clusterSelector.matchLabels: Invalid value: "bad key": ${QUALIFIED_NAME_MSG}, spec.placement.clusterSelector.matchLabels: Invalid value: "bad value!": ${LABEL_VALUE_MSG}]`,
      );
    });

    test('the selector: match expressions', () => {
      const sel = (matchExpressions: unknown[]) =>
        fdeploy({ placement: { clusterSelector: { matchExpressions } } });
      assert.equal(
        messages(sel([{ key: 'zone', operator: 'In' }])),
        "spec.placement.clusterSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      );
      assert.equal(
        messages(sel([{ key: 'zone', operator: 'Exists', values: ['a'] }])),
        "spec.placement.clusterSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      );
      assert.equal(
        messages(sel([{ key: 'zone', operator: 'Equals', values: ['a'] }])),
        'spec.placement.clusterSelector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
      );
      assert.equal(
        messages(sel([{ key: 'zone', operator: 'NotIn', values: ['a', '-b'] }])),
        `spec.placement.clusterSelector.matchExpressions[0].values[1]: Invalid value: "-b": ${LABEL_VALUE_MSG}`,
      );
    });

    test('the selector is not looked at when clusters are listed, as placement ignores it then', () => {
      const bad = { matchExpressions: [{ key: 'zone', operator: 'Bogus' }] };
      assert.deepEqual(
        validateFederatedObject(fdeploy({ placement: { clusters: [{ name: 'a' }], clusterSelector: bad } }))
          .errors,
        [],
      );
      assert.notDeepEqual(
        validateFederatedObject(fdeploy({ placement: { clusterSelector: bad } })).errors,
        [],
      );
    });

    test('the webhook and placement agree on which selectors are invalid', () => {
      const selectors: unknown[] = [
        {},
        { matchLabels: { a: 'b' } },
        { matchLabels: { 'a/b/c': 'x' } },
        { matchLabels: { a: '' } },
        { matchLabels: { a: 3 } },
        { matchLabels: [] },
        { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
        { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] },
        { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
        { matchExpressions: [{ key: '', operator: 'Exists' }] },
        { matchExpressions: [{ operator: 'Exists' }] },
        { matchExpressions: [{ key: 'a', operator: 'exists' }] },
        { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] },
        { matchExpressions: {} },
      ];
      for (const sel of selectors) {
        let placementAccepts = true;
        try {
          compileLabelSelector(sel as never);
        } catch {
          placementAccepts = false;
        }
        const webhookAccepts =
          validateFederatedObject({ spec: { placement: { clusterSelector: sel } } }).errors.length === 0;
        assert.equal(webhookAccepts, placementAccepts, JSON.stringify(sel));
      }
    });
  });

  describe('overrides', () => {
    test('each clusterName given once', () => {
      assert.equal(
        messages(
          fdeploy({
            overrides: [
              { clusterName: 'cluster1', clusterOverrides: [] },
              { clusterName: 'cluster1' },
              { clusterOverrides: [] },
            ],
          }),
        ),
        '[spec.overrides[1].clusterName: Duplicate value: "cluster1", spec.overrides[2].clusterName: Required value]',
      );
    });

    test('identity paths are forbidden, also in the dotted shorthand; paths below them and /apiVersion are not', () => {
      assert.equal(
        messages(fdeploy(overrides([{ path: '/metadata/name', value: 'x' }]))),
        `spec.overrides[0].clusterOverrides[0].path: Forbidden: /metadata/name ${IDENTITY}`,
      );
      assert.equal(
        messages(
          fdeploy(
            overrides([
              { path: 'metadata.namespace', value: 'x' },
              { path: '/metadata/generateName', value: 'x' },
              { path: '/kind', op: 'replace', value: 'Pod' },
            ]),
          ),
        ),
        `[spec.overrides[0].clusterOverrides[0].path: Forbidden: /metadata/namespace ${IDENTITY}, spec.overrides[0].clusterOverrides[1].path: Forbidden: /metadata/generateName ${IDENTITY}, spec.overrides[0].clusterOverrides[2].path: Forbidden: /kind ${IDENTITY}]`,
      );
      assert.deepEqual(
        validateFederatedObject(
          fdeploy(
            overrides([
              { path: '/apiVersion', value: 'apps/v1' },
              { path: '/metadata/name/x', value: 'y' },
            ]),
          ),
        ).errors,
        [],
      );
    });

    test('paths: required, parsable, once per cluster (after normalisation)', () => {
      assert.equal(
        messages(fdeploy(overrides([{ value: 1 }]))),
        'spec.overrides[0].clusterOverrides[0].path: Required value',
      );
      // "" is the whole object: evanphx/json-patch replaces it with an object value (identity kept or refused).
      assert.deepEqual(
        validateFederatedObject(fdeploy(overrides([{ path: '', value: { spec: {} } }]))).errors,
        [],
      );
      assert.equal(
        messages(fdeploy(overrides([{ path: 'spec..replicas', value: 1 }]))),
        'spec.overrides[0].clusterOverrides[0].path: Invalid value: "spec..replicas": invalid override path "spec..replicas": empty segment at offset 5',
      );
      assert.equal(
        messages(
          fdeploy(
            overrides([
              { path: '/spec/replicas', value: 1 },
              { path: 'spec.replicas', value: 2 },
            ]),
          ),
        ),
        'spec.overrides[0].clusterOverrides[1].path: Duplicate value: "spec.replicas"',
      );
      // The same path for two clusters is fine.
      assert.deepEqual(
        validateFederatedObject(
          fdeploy({
            overrides: [
              { clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] },
              { clusterName: 'b', clusterOverrides: [{ path: '/spec/replicas', value: 2 }] },
            ],
          }),
        ).errors,
        [],
      );
    });

    test('op: add, remove, replace or empty; no value is null, as in KubeFed', () => {
      assert.deepEqual(
        validateFederatedObject(
          fdeploy(
            overrides([
              { path: '/a', op: '', value: 1 },
              { path: '/b', op: 'add', value: 0 },
              { path: '/c', op: 'replace', value: false },
              { path: '/d', op: 'remove' },
              { path: '/e', value: '' },
              { path: '/f' },
              { path: '/g', op: 'add', value: null },
            ]),
          ),
        ).errors,
        [],
      );
      assert.equal(
        messages(fdeploy(overrides([{ path: '/a', op: 'move', value: 1 }]))),
        'spec.overrides[0].clusterOverrides[0].op: Unsupported value: "move": supported values: "add", "remove", "replace"',
      );
    });

    test('wrong JSON types', () => {
      assert.equal(messages(fdeploy({ overrides: {} })), 'spec.overrides: Invalid value: {}: must be a list');
      assert.equal(
        messages(fdeploy({ overrides: [{ clusterName: 1, clusterOverrides: 'x' }] })),
        '[spec.overrides[0].clusterName: Invalid value: 1: must be a string, spec.overrides[0].clusterOverrides: Invalid value: "x": must be a list]',
      );
      assert.equal(
        messages(fdeploy(overrides([3, { path: 5, value: 1 }]))),
        '[spec.overrides[0].clusterOverrides[0]: Invalid value: 3: must be an object, spec.overrides[0].clusterOverrides[1].path: Invalid value: 5: must be a string]',
      );
    });

    test('the webhook and the sync controller agree on what they refuse', () => {
      // Every case: accepted by the webhook exactly when parseOverrides (the controller) accepts it. Ops other
      // than add, remove and replace are left out: the CRD's pattern refuses them before either sees them.
      const cases: unknown[] = [
        [{ clusterName: 'a', clusterOverrides: [{ path: '/spec/replicas', value: 1 }] }],
        [
          {
            clusterName: 'a',
            clusterOverrides: [{ path: 'spec.template.spec.containers[0].image', value: 'x' }],
          },
        ],
        [{ clusterName: 'a', clusterOverrides: [{ path: '/metadata/name', value: 'x' }] }],
        [{ clusterName: 'a', clusterOverrides: [{ path: 'kind', value: 'x' }] }],
        [{ clusterName: 'a', clusterOverrides: [{ path: '/x', op: 'remove' }] }],
        [{ clusterName: 'a', clusterOverrides: [{ path: '/x' }] }],
        [{ clusterName: 'a', clusterOverrides: [{ path: 'a[', value: 1 }] }],
        [
          {
            clusterName: 'a',
            clusterOverrides: [
              { path: '/x', value: 1 },
              { path: 'x', value: 2 },
            ],
          },
        ],
        [{ clusterName: 'a' }, { clusterName: 'a' }],
        [{ clusterName: 'a', clusterOverrides: null }],
        [{ clusterName: 'a', clusterOverrides: [null] }],
        [{ clusterName: 'a', clusterOverrides: [{ path: '/x', op: 7, value: 1 }] }],
        'not a list',
        [],
      ];
      for (const o of cases) {
        let controllerAccepts = true;
        try {
          parseOverrides(o);
        } catch {
          controllerAccepts = false;
        }
        const webhookAccepts = validateFederatedObject({ spec: { overrides: o } }).errors.length === 0;
        assert.equal(webhookAccepts, controllerAccepts, JSON.stringify(o));
      }
    });
  });

  describe('template', () => {
    test('what the controller cannot turn into an object is refused', () => {
      assert.equal(
        messages(fdeploy({ template: 'x' })),
        'spec.template: Invalid value: "x": must be an object',
      );
      assert.equal(
        messages(fdeploy({ template: { metadata: [] } })),
        'spec.template.metadata: Invalid value: []: must be an object',
      );
      assert.equal(
        messages(fdeploy({ template: { metadata: { labels: { app: 1 } } } })),
        'spec.template.metadata.labels: Invalid value: {"app":1}: must be a map of strings',
      );
      assert.equal(
        messages(fdeploy({ template: { apiVersion: 2 } })),
        'spec.template.apiVersion: Invalid value: 2: must be a string',
      );
    });

    test('annotations and finalizers are accepted with a warning: the controller drops them', () => {
      const r = validateFederatedObject(
        fdeploy({ template: { metadata: { annotations: { a: 'b' }, finalizers: ['x'] } } }),
      );
      assert.deepEqual(r.errors, []);
      assert.deepEqual(r.warnings, [
        'spec.template.metadata.annotations cannot be set via template to avoid conflicting with controllers in member clusters. Consider using an override to add or remove elements from this collection.',
        'spec.template.metadata.finalizers cannot be set via template to avoid conflicting with controllers in member clusters. Consider using an override to add or remove elements from this collection.',
      ]);
    });
  });

  test('a FederatedNamespace must be named like its namespace', () => {
    const fns = (name: string, namespace?: string) => ({
      metadata: { name, ...(namespace ? { namespace } : {}) },
      spec: { placement: { clusters: [] } },
    });
    assert.deepEqual(validateFederatedObject(fns('apps', 'apps'), { federatedNamespace: true }).errors, []);
    assert.deepEqual(
      validateFederatedObject(fns('apps'), { federatedNamespace: true, namespace: 'apps' }).errors,
      [],
    );
    assert.equal(
      messages(fns('other', 'apps'), { federatedNamespace: true }),
      'metadata.name: Invalid value: "other": the name of a federated namespace must match the name of its containing namespace',
    );
    // Other federated kinds may be named freely.
    assert.deepEqual(validateFederatedObject(fns('other', 'apps')).errors, []);
  });
});
