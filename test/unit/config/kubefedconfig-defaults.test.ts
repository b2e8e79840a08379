import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeFedConfigSpec } from '../../../src/api/core/v1beta1/index.ts';
import {
  DEFAULT_KUBEFED_NAMESPACE,
  defaultFeatureGates,
  defaultKubeFedConfigSpec,
  KUBEFED_CONFIG_NAME,
} from '../../../src/config/kubefedconfig-defaults.ts';
import { validateKubeFedConfig } from '../../../src/config/kubefedconfig-validation.ts';

const FULL_DEFAULTS = {
  scope: 'Cluster',
  controllerDuration: { availableDelay: '20s', unavailableDelay: '1m0s', cacheSyncTimeout: '5m0s' },
  leaderElect: { leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '5s', resourceLock: 'configmaps' },
  featureGates: [
    { name: 'PushReconciler', configuration: 'Enabled' },
    { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
    { name: 'SchedulerPreferences', configuration: 'Enabled' },
  ],
  clusterHealthCheck: { period: '10s', failureThreshold: 3, successThreshold: 1, timeout: '3s' },
  syncController: { maxConcurrentReconciles: 64, adoptResources: 'Enabled' },
  statusController: { maxConcurrentReconciles: 1 },
};

describe('defaultKubeFedConfigSpec', () => {
  test('constants', () => {
    assert.equal(KUBEFED_CONFIG_NAME, 'kubefed');
    assert.equal(DEFAULT_KUBEFED_NAMESPACE, 'kube-federation-system');
  });

  test('fills every field of an empty spec with KubeFed defaults', () => {
    assert.deepEqual(defaultKubeFedConfigSpec({ scope: 'Cluster' }), FULL_DEFAULTS);
  });

  test('the defaulted spec passes validation', () => {
    assert.deepEqual(validateKubeFedConfig({ spec: defaultKubeFedConfigSpec({ scope: 'Namespaced' }) }), []);
  });

  test('scopeDefault applies only when scope is empty', () => {
    assert.equal(defaultKubeFedConfigSpec({}, 'Namespaced').scope, 'Namespaced');
    assert.equal(defaultKubeFedConfigSpec({ scope: 'Cluster' }, 'Namespaced').scope, 'Cluster');
    const noScope = defaultKubeFedConfigSpec({});
    assert.equal('scope' in noScope, false);
  });

  test('does not override values the user set, including zero and invalid ones', () => {
    const out = defaultKubeFedConfigSpec({
      scope: 'Namespaced',
      controllerDuration: { availableDelay: '1m', unavailableDelay: '0s' },
      leaderElect: { resourceLock: 'leases', leaseDuration: '30s' },
      clusterHealthCheck: { failureThreshold: 0, timeout: '5s' },
      syncController: { adoptResources: 'Disabled' },
      statusController: { maxConcurrentReconciles: 4 },
    });
    assert.deepEqual(out.controllerDuration, {
      availableDelay: '1m',
      unavailableDelay: '0s',
      cacheSyncTimeout: '5m0s',
    });
    assert.deepEqual(out.leaderElect, {
      leaseDuration: '30s',
      renewDeadline: '10s',
      retryPeriod: '5s',
      resourceLock: 'leases',
    });
    assert.deepEqual(out.clusterHealthCheck, {
      period: '10s',
      failureThreshold: 0,
      successThreshold: 1,
      timeout: '5s',
    });
    assert.deepEqual(out.syncController, { maxConcurrentReconciles: 64, adoptResources: 'Disabled' });
    assert.deepEqual(out.statusController, { maxConcurrentReconciles: 4 });
  });

  test('null fields count as missing', () => {
    const spec = JSON.parse(
      '{"scope":"Cluster","leaderElect":null,"featureGates":null,"clusterHealthCheck":{"period":null}}',
    );
    const out = defaultKubeFedConfigSpec(spec);
    assert.deepEqual(out, FULL_DEFAULTS);
  });

  test('does not mutate its input', () => {
    const input: Partial<KubeFedConfigSpec> = {
      scope: 'Cluster',
      controllerDuration: { availableDelay: '1m' },
      featureGates: [{ name: 'SchedulerPreferences', configuration: 'Disabled' }],
    };
    const snapshot = structuredClone(input);
    const out = defaultKubeFedConfigSpec(input);
    assert.deepEqual(input, snapshot);
    out.controllerDuration.availableDelay = '2m';
    out.featureGates[0]!.configuration = 'Enabled';
    assert.deepEqual(input, snapshot);
  });

  test('keeps unknown fields', () => {
    const spec = { scope: 'Cluster', extra: { a: 1 } } as unknown as KubeFedConfigSpec;
    assert.deepEqual((defaultKubeFedConfigSpec(spec) as unknown as { extra: unknown }).extra, { a: 1 });
  });
});

describe('defaultFeatureGates', () => {
  test('appends missing known gates with their defaults and sorts by name', () => {
    assert.deepEqual(defaultFeatureGates([{ name: 'SchedulerPreferences', configuration: 'Disabled' }]), [
      { name: 'PushReconciler', configuration: 'Enabled' },
      { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
      { name: 'SchedulerPreferences', configuration: 'Disabled' },
    ]);
  });

  test('keeps user settings and unknown gates, sorting everything', () => {
    assert.deepEqual(
      defaultFeatureGates([
        { name: 'Zeta', configuration: 'Enabled' },
        { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
        { name: 'Alpha', configuration: 'Disabled' },
      ]),
      [
        { name: 'Alpha', configuration: 'Disabled' },
        { name: 'PushReconciler', configuration: 'Enabled' },
        { name: 'RawResourceStatusCollection', configuration: 'Enabled' },
        { name: 'SchedulerPreferences', configuration: 'Enabled' },
        { name: 'Zeta', configuration: 'Enabled' },
      ],
    );
  });

  test('does not add a gate that is already listed, even twice', () => {
    const out = defaultFeatureGates([
      { name: 'PushReconciler', configuration: 'Disabled' },
      { name: 'PushReconciler', configuration: 'Enabled' },
    ]);
    assert.deepEqual(
      out.map((g) => `${g.name}=${g.configuration}`),
      [
        'PushReconciler=Disabled',
        'PushReconciler=Enabled',
        'RawResourceStatusCollection=Enabled',
        'SchedulerPreferences=Enabled',
      ],
    );
  });

  test('sorts by code unit like Go (upper case before lower case)', () => {
    const names = defaultFeatureGates([{ name: 'aGate', configuration: 'Enabled' }]).map((g) => g.name);
    assert.deepEqual(names, [
      'PushReconciler',
      'RawResourceStatusCollection',
      'SchedulerPreferences',
      'aGate',
    ]);
  });
});
