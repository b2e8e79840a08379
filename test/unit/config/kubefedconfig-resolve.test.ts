import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeFedConfigSpec } from '../../../src/api/core/v1beta1/index.ts';
import { defaultKubeFedConfigSpec } from '../../../src/config/kubefedconfig-defaults.ts';
import {
  InvalidKubeFedConfigError,
  resolveKubeFedConfig,
} from '../../../src/config/kubefedconfig-resolve.ts';

describe('resolveKubeFedConfig', () => {
  test('converts a defaulted spec to milliseconds and booleans', () => {
    assert.deepEqual(resolveKubeFedConfig(defaultKubeFedConfigSpec({ scope: 'Cluster' })), {
      scope: 'Cluster',
      controllerDuration: {
        availableDelayMs: 20_000,
        unavailableDelayMs: 60_000,
        cacheSyncTimeoutMs: 300_000,
      },
      leaderElect: {
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 5_000,
        resourceLock: 'configmaps',
      },
      featureGates: { PushReconciler: true, SchedulerPreferences: true, RawResourceStatusCollection: true },
      clusterHealthCheck: { periodMs: 10_000, failureThreshold: 3, successThreshold: 1, timeoutMs: 3_000 },
      syncController: { maxConcurrentReconciles: 64, adoptResources: true },
      statusController: { maxConcurrentReconciles: 1 },
    });
  });

  test('reads user values; unlisted gates keep their defaults', () => {
    const spec: KubeFedConfigSpec = {
      ...defaultKubeFedConfigSpec({ scope: 'Namespaced' }),
      controllerDuration: { availableDelay: '1500ms', unavailableDelay: '1m30s', cacheSyncTimeout: '0.5h' },
      featureGates: [{ name: 'RawResourceStatusCollection', configuration: 'Enabled' }],
      syncController: { maxConcurrentReconciles: 8, adoptResources: 'Disabled' },
    };
    const resolved = resolveKubeFedConfig(spec);
    assert.equal(resolved.scope, 'Namespaced');
    assert.deepEqual(resolved.controllerDuration, {
      availableDelayMs: 1500,
      unavailableDelayMs: 90_000,
      cacheSyncTimeoutMs: 1_800_000,
    });
    assert.deepEqual(resolved.featureGates, {
      PushReconciler: true,
      SchedulerPreferences: true,
      RawResourceStatusCollection: true,
    });
    assert.deepEqual(resolved.syncController, { maxConcurrentReconciles: 8, adoptResources: false });
  });

  test('does not default: an incomplete spec is rejected with every problem listed', () => {
    assert.throws(
      () => resolveKubeFedConfig({ scope: 'Cluster' }),
      (err: unknown) =>
        err instanceof InvalidKubeFedConfigError &&
        err.errors.length === 6 &&
        err.message.startsWith('invalid KubeFedConfig: [spec.controllerDuration: Required value, '),
    );
  });

  test('rejects invalid values', () => {
    const spec = defaultKubeFedConfigSpec({ scope: 'Cluster' });
    spec.clusterHealthCheck.period = '0s';
    assert.throws(
      () => resolveKubeFedConfig(spec),
      /^InvalidKubeFedConfigError: invalid KubeFedConfig: spec\.clusterHealthCheck\.period: Invalid value: "0s": should be greater than 0$/,
    );
  });
});
