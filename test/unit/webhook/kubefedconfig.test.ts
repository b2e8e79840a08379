import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatFieldErrors } from '../../../src/api/field-errors.ts';
import { defaultKubeFedConfigSpec } from '../../../src/config/index.ts';
import {
  kubeFedConfigDefaultingPatch,
  validateKubeFedConfigObject,
} from '../../../src/webhook/kubefedconfig.ts';

const config = (spec: unknown) => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'KubeFedConfig',
  metadata: { name: 'kubefed', namespace: 'kube-federation-system' },
  spec,
});

describe('KubeFedConfig defaulting patch', () => {
  test('a partial spec gets one `replace /spec` with every default, gates sorted', () => {
    const patch = kubeFedConfigDefaultingPatch(config({ scope: 'Cluster' }));
    assert.deepEqual(patch, [
      { op: 'replace', path: '/spec', value: defaultKubeFedConfigSpec({ scope: 'Cluster' }) },
    ]);
    const gates = (patch[0]!.value as { featureGates: Array<{ name: string }> }).featureGates.map(
      (g) => g.name,
    );
    assert.deepEqual(gates, [...gates].sort());
  });

  test('values the user set are kept', () => {
    const [op] = kubeFedConfigDefaultingPatch(
      config({
        scope: 'Namespaced',
        leaderElect: { leaseDuration: '30s' },
        featureGates: [{ name: 'PushReconciler', configuration: 'Disabled' }],
      }),
    );
    const spec = op!.value as ReturnType<typeof defaultKubeFedConfigSpec>;
    assert.equal(spec.scope, 'Namespaced');
    assert.equal(spec.leaderElect.leaseDuration, '30s');
    assert.equal(spec.leaderElect.renewDeadline, '10s');
    assert.deepEqual(
      spec.featureGates.find((g) => g.name === 'PushReconciler'),
      { name: 'PushReconciler', configuration: 'Disabled' },
    );
  });

  test('no patch when defaulting changes nothing', () => {
    const full = defaultKubeFedConfigSpec({ scope: 'Cluster' });
    assert.deepEqual(kubeFedConfigDefaultingPatch(config(full)), []);
    // Key order does not matter, list order does (gates are sorted).
    const reordered = Object.fromEntries(Object.entries(full).reverse());
    assert.deepEqual(kubeFedConfigDefaultingPatch(config(reordered)), []);
    const unsorted = { ...full, featureGates: [...full.featureGates].reverse() };
    assert.equal(kubeFedConfigDefaultingPatch(config(unsorted)).length, 1);
  });

  test('no scope is invented: validation reports it', () => {
    const [op] = kubeFedConfigDefaultingPatch(config({}));
    assert.equal((op!.value as { scope?: string }).scope, undefined);
  });

  test('a missing spec is added, shapes defaulting cannot read are left to validation', () => {
    const [op] = kubeFedConfigDefaultingPatch({ metadata: { name: 'kubefed' } });
    assert.equal(op!.op, 'add');
    assert.equal(op!.path, '/spec');
    assert.deepEqual(kubeFedConfigDefaultingPatch(config('x')), []);
    assert.deepEqual(kubeFedConfigDefaultingPatch(config({ scope: 'Cluster', leaderElect: 'x' })), []);
    assert.deepEqual(kubeFedConfigDefaultingPatch(config({ scope: 'Cluster', featureGates: ['x'] })), []);
    assert.deepEqual(kubeFedConfigDefaultingPatch(null), []);
  });
});

describe('KubeFedConfig validation', () => {
  const full = defaultKubeFedConfigSpec({ scope: 'Cluster' });

  test('a defaulted config is valid; a partial one is not', () => {
    assert.deepEqual(validateKubeFedConfigObject(config(full)), []);
    assert.match(
      formatFieldErrors(validateKubeFedConfigObject(config({ scope: 'Cluster' }))),
      /^\[spec\.controllerDuration: Required value, /,
    );
  });

  test('enum values', () => {
    assert.equal(
      formatFieldErrors(
        validateKubeFedConfigObject(
          config({ ...full, syncController: { ...full.syncController, adoptResources: 'Unknown' } }),
        ),
      ),
      'spec.syncController.adoptResources: Unsupported value: "Unknown": supported values: "Enabled", "Disabled"',
    );
  });

  test('the scope is immutable on update', () => {
    const old = config(full);
    assert.deepEqual(
      validateKubeFedConfigObject(
        config({ ...full, clusterHealthCheck: { ...full.clusterHealthCheck, period: '5s' } }),
        old,
      ),
      [],
    );
    assert.equal(
      formatFieldErrors(validateKubeFedConfigObject(config({ ...full, scope: 'Namespaced' }), old)),
      'spec.scope: Invalid value: "Namespaced": field is immutable',
    );
  });
});
