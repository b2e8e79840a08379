import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultKubeFedConfigSpec, resolveKubeFedConfig } from '../../../src/config/index.ts';
import { controllerSet } from '../../../src/controller-manager/controller-set.ts';

const gates = (
  PushReconciler: boolean,
  SchedulerPreferences: boolean,
  RawResourceStatusCollection = true,
) => ({
  PushReconciler,
  SchedulerPreferences,
  RawResourceStatusCollection,
});

test('all gates on (the defaults): every controller', () => {
  assert.deepEqual(controllerSet(gates(true, true)), {
    clusterHealth: true,
    manifestWorkHub: true,
    federatedTypeConfig: true,
    scheduling: true,
    dns: true,
    manifestWorkPush: true,
    mcs: true,
    notStarted: [],
  });
});

test('SchedulerPreferences off: propagation without the RSP controller (KubeFed: no scheduling manager)', () => {
  const s = controllerSet(gates(true, false));
  assert.equal(s.federatedTypeConfig, true);
  assert.equal(s.scheduling, false);
  assert.equal(s.dns, true);
  assert.deepEqual(s.notStarted, []);
});

test('PushReconciler off: only cluster health, whatever the other gates say, and the log says why', () => {
  for (const rsp of [true, false]) {
    for (const raw of [true, false]) {
      const s = controllerSet(gates(false, rsp, raw));
      assert.equal(s.clusterHealth, true);
      assert.equal(s.manifestWorkHub, true);
      assert.equal(s.federatedTypeConfig, false);
      assert.equal(s.scheduling, false);
      assert.equal(s.dns, false);
      // ManifestWork push agents are no propagation of KubeFed's: no KubeFed gate stops them.
      assert.equal(s.manifestWorkPush, true);
      // Nor MCS: it is no KubeFed controller either.
      assert.equal(s.mcs, true);
      assert.match(s.notStarted[0] ?? '', /^PushReconciler is Disabled: .*nothing is propagated/);
      // The RSP line only when the user asked for scheduling.
      assert.equal(s.notStarted.length, rsp ? 2 : 1);
    }
  }
});

test('from a KubeFedConfig spec: PushReconciler Disabled in the featureGates list is honoured', () => {
  const config = resolveKubeFedConfig(
    defaultKubeFedConfigSpec({
      scope: 'Cluster',
      featureGates: [
        { name: 'PushReconciler', configuration: 'Disabled' },
        { name: 'SchedulerPreferences', configuration: 'Enabled' },
      ],
    }),
  );
  assert.equal(controllerSet(config.featureGates).federatedTypeConfig, false);
  // Not mentioned means KubeFed's default, on.
  const unset = resolveKubeFedConfig(defaultKubeFedConfigSpec({ scope: 'Cluster', featureGates: [] }));
  assert.equal(controllerSet(unset.featureGates).federatedTypeConfig, true);
});
