import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultKubeFedConfigSpec } from '../../../src/config/kubefedconfig-defaults.ts';
import {
  type FieldError,
  formatFieldErrors,
  LEADER_ELECTION_JITTER_FACTOR,
  validateKubeFedConfig,
} from '../../../src/config/kubefedconfig-validation.ts';

type Obj = Record<string, unknown>;

/** A spec as loose JSON, so tests can put any value anywhere. */
interface LooseSpec extends Obj {
  controllerDuration: Obj;
  leaderElect: Obj;
  clusterHealthCheck: Obj;
  syncController: Obj;
  statusController: Obj;
}

/** A valid, fully defaulted spec. */
function validSpec(): LooseSpec {
  return structuredClone(defaultKubeFedConfigSpec({ scope: 'Cluster' })) as unknown as LooseSpec;
}

function withSpec(mutate: (spec: LooseSpec) => void): { spec: Obj } {
  const spec = validSpec();
  mutate(spec);
  return { spec };
}

/** The sub-object `spec[parent]`, for table-driven tests. */
function sub(spec: LooseSpec, parent: string): Obj {
  return spec[parent] as Obj;
}

function messages(errs: FieldError[]): string[] {
  return errs.map((e) => formatFieldErrors([e]));
}

describe('validateKubeFedConfig: valid input', () => {
  test('a defaulted spec is valid', () => {
    assert.deepEqual(validateKubeFedConfig({ spec: validSpec() }), []);
  });

  test('an empty featureGates list is valid (only a missing one is not)', () => {
    assert.deepEqual(validateKubeFedConfig(withSpec((s) => (s['featureGates'] = []))), []);
  });

  test('endpoints and leases locks are accepted', () => {
    for (const lock of ['configmaps', 'endpoints', 'leases']) {
      assert.deepEqual(
        validateKubeFedConfig(withSpec((s) => (s.leaderElect['resourceLock'] = lock))),
        [],
        lock,
      );
    }
  });
});

describe('validateKubeFedConfig: scope', () => {
  test('missing scope is Required', () => {
    assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => delete s['scope']))), [
      'spec.scope: Required value',
    ]);
    assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => (s['scope'] = '')))), [
      'spec.scope: Required value',
    ]);
  });

  test('unknown scope is NotSupported', () => {
    const errs = validateKubeFedConfig(withSpec((s) => (s['scope'] = 'Global')));
    assert.deepEqual(errs, [
      {
        field: 'spec.scope',
        type: 'NotSupported',
        value: 'Global',
        message: 'supported values: "Cluster", "Namespaced"',
      },
    ]);
  });

  test('scope is immutable on update', () => {
    const old = { spec: validSpec() };
    assert.deepEqual(validateKubeFedConfig({ spec: validSpec() }, old), []);
    const changed = withSpec((s) => (s['scope'] = 'Namespaced'));
    assert.deepEqual(messages(validateKubeFedConfig(changed, old)), [
      'spec.scope: Invalid value: "Namespaced": field is immutable',
    ]);
    // Without an old object (create) the same spec is fine.
    assert.deepEqual(validateKubeFedConfig(changed), []);
  });

  test('a missing spec reports every required part', () => {
    assert.deepEqual(messages(validateKubeFedConfig({})), [
      'spec.scope: Required value',
      'spec.controllerDuration: Required value',
      'spec.leaderElect: Required value',
      'spec.featureGates: Required value',
      'spec.clusterHealthCheck: Required value',
      'spec.syncController: Required value',
      'spec.statusController: Required value',
    ]);
  });
});

describe('validateKubeFedConfig: required sub-objects and fields', () => {
  for (const key of [
    'controllerDuration',
    'leaderElect',
    'featureGates',
    'clusterHealthCheck',
    'syncController',
    'statusController',
  ]) {
    test(`spec.${key} is required`, () => {
      assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => delete s[key]))), [
        `spec.${key}: Required value`,
      ]);
    });
  }

  const leaves: [string, string][] = [
    ['controllerDuration', 'availableDelay'],
    ['controllerDuration', 'unavailableDelay'],
    ['controllerDuration', 'cacheSyncTimeout'],
    ['leaderElect', 'retryPeriod'],
    ['leaderElect', 'resourceLock'],
    ['clusterHealthCheck', 'period'],
    ['clusterHealthCheck', 'failureThreshold'],
    ['clusterHealthCheck', 'successThreshold'],
    ['clusterHealthCheck', 'timeout'],
    ['syncController', 'adoptResources'],
    ['syncController', 'maxConcurrentReconciles'],
    ['statusController', 'maxConcurrentReconciles'],
  ];
  for (const [parent, leaf] of leaves) {
    test(`spec.${parent}.${leaf} is required`, () => {
      assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => delete sub(s, parent)[leaf]))), [
        `spec.${parent}.${leaf}: Required value`,
      ]);
    });
  }

  test('missing leaseDuration / renewDeadline skip the ordering checks, as in KubeFed', () => {
    assert.deepEqual(
      messages(validateKubeFedConfig(withSpec((s) => delete s.leaderElect['leaseDuration']))),
      ['spec.leaderElect.leaseDuration: Required value'],
    );
    assert.deepEqual(
      messages(validateKubeFedConfig(withSpec((s) => delete s.leaderElect['renewDeadline']))),
      ['spec.leaderElect.renewDeadline: Required value'],
    );
  });

  test('without adoptResources, maxConcurrentReconciles of the sync controller is not checked', () => {
    const errs = validateKubeFedConfig(
      withSpec((s) => {
        delete s.syncController['adoptResources'];
        s.syncController['maxConcurrentReconciles'] = 0;
      }),
    );
    assert.deepEqual(messages(errs), ['spec.syncController.adoptResources: Required value']);
  });
});

describe('validateKubeFedConfig: values must be greater than 0', () => {
  const durations: [string, string][] = [
    ['controllerDuration', 'availableDelay'],
    ['controllerDuration', 'unavailableDelay'],
    ['controllerDuration', 'cacheSyncTimeout'],
    ['clusterHealthCheck', 'period'],
    ['clusterHealthCheck', 'timeout'],
  ];
  for (const [parent, leaf] of durations) {
    for (const value of ['0s', '0', '-1s']) {
      test(`spec.${parent}.${leaf} = ${value}`, () => {
        assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => (sub(s, parent)[leaf] = value)))), [
          `spec.${parent}.${leaf}: Invalid value: "${value}": should be greater than 0`,
        ]);
      });
    }
  }

  const ints: [string, string][] = [
    ['clusterHealthCheck', 'failureThreshold'],
    ['clusterHealthCheck', 'successThreshold'],
    ['syncController', 'maxConcurrentReconciles'],
    ['statusController', 'maxConcurrentReconciles'],
  ];
  for (const [parent, leaf] of ints) {
    for (const value of [0, -3]) {
      test(`spec.${parent}.${leaf} = ${value}`, () => {
        assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => (sub(s, parent)[leaf] = value)))), [
          `spec.${parent}.${leaf}: Invalid value: ${value}: should be greater than 0`,
        ]);
      });
    }
  }

  test('zero leader-election durations also trip the ordering checks', () => {
    const errs = validateKubeFedConfig(
      withSpec((s) => {
        s.leaderElect['leaseDuration'] = '0s';
        s.leaderElect['renewDeadline'] = '0s';
        s.leaderElect['retryPeriod'] = '0s';
      }),
    );
    assert.deepEqual(messages(errs), [
      'spec.leaderElect.leaseDuration: Invalid value: "0s": should be greater than 0',
      'spec.leaderElect.renewDeadline: Invalid value: "0s": should be greater than 0',
      'spec.leaderElect.retryPeriod: Invalid value: "0s": should be greater than 0',
      'spec.leaderElect.leaseDuration: Invalid value: "0s": leaseDuration must be greater than renewDeadline',
      'spec.leaderElect.renewDeadline: Invalid value: "0s": renewDeadline must be greater than retryPeriod*JitterFactor(1.2)',
    ]);
  });
});

describe('validateKubeFedConfig: leader election ordering', () => {
  test('JitterFactor is client-go 1.2', () => assert.equal(LEADER_ELECTION_JITTER_FACTOR, 1.2));

  test('leaseDuration must exceed renewDeadline', () => {
    for (const lease of ['10s', '9s', '10000ms']) {
      const errs = validateKubeFedConfig(withSpec((s) => (s.leaderElect['leaseDuration'] = lease)));
      assert.deepEqual(messages(errs), [
        `spec.leaderElect.leaseDuration: Invalid value: "${lease}": leaseDuration must be greater than renewDeadline`,
      ]);
    }
    assert.deepEqual(
      validateKubeFedConfig(withSpec((s) => (s.leaderElect['leaseDuration'] = '10001ms'))),
      [],
    );
  });

  test('renewDeadline must exceed retryPeriod * 1.2', () => {
    // retryPeriod 5s → limit 6s: 6s fails, 6.000000001s passes.
    const fail = validateKubeFedConfig(withSpec((s) => (s.leaderElect['renewDeadline'] = '6s')));
    assert.deepEqual(messages(fail), [
      'spec.leaderElect.renewDeadline: Invalid value: "6s": renewDeadline must be greater than retryPeriod*JitterFactor(1.2)',
    ]);
    assert.deepEqual(
      validateKubeFedConfig(withSpec((s) => (s.leaderElect['renewDeadline'] = '6000000001ns'))),
      [],
    );
  });

  test('the 1.2 product is truncated to whole nanoseconds like Go', () => {
    // 1ns * 1.2 = 1.2 → 1ns, so a renewDeadline of 2ns is accepted and 1ns is not.
    const base = (renew: string) =>
      withSpec((s) => {
        s.leaderElect['retryPeriod'] = '1ns';
        s.leaderElect['renewDeadline'] = renew;
        s.leaderElect['leaseDuration'] = '1s';
      });
    assert.deepEqual(validateKubeFedConfig(base('2ns')), []);
    assert.equal(validateKubeFedConfig(base('1ns')).length, 1);
  });
});

describe('validateKubeFedConfig: enums', () => {
  test('resourceLock', () => {
    const errs = validateKubeFedConfig(withSpec((s) => (s.leaderElect['resourceLock'] = 'leasez')));
    assert.deepEqual(messages(errs), [
      'spec.leaderElect.resourceLock: Unsupported value: "leasez": supported values: "configmaps", "endpoints", "leases"',
    ]);
    assert.deepEqual(messages(validateKubeFedConfig(withSpec((s) => (s.leaderElect['resourceLock'] = '')))), [
      'spec.leaderElect.resourceLock: Required value',
    ]);
  });

  test('adoptResources', () => {
    const errs = validateKubeFedConfig(withSpec((s) => (s.syncController['adoptResources'] = 'enabled')));
    assert.deepEqual(messages(errs), [
      'spec.syncController.adoptResources: Unsupported value: "enabled": supported values: "Enabled", "Disabled"',
    ]);
  });

  test('feature gate configuration', () => {
    const errs = validateKubeFedConfig(
      withSpec((s) => (s['featureGates'] = [{ name: 'PushReconciler', configuration: 'On' }])),
    );
    assert.deepEqual(messages(errs), [
      'spec.featureGates.configuration: Unsupported value: "On": supported values: "Enabled", "Disabled"',
    ]);
    const missing = validateKubeFedConfig(
      withSpec((s) => (s['featureGates'] = [{ name: 'PushReconciler' }])),
    );
    assert.deepEqual(messages(missing), ['spec.featureGates.configuration: Required value']);
  });
});

describe('validateKubeFedConfig: feature gate names', () => {
  test('unknown and removed gates are NotSupported', () => {
    for (const name of ['CrossClusterServiceDiscovery', 'FederatedIngress', 'pushreconciler']) {
      const errs = validateKubeFedConfig(
        withSpec((s) => (s['featureGates'] = [{ name, configuration: 'Enabled' }])),
      );
      assert.deepEqual(messages(errs), [
        `spec.featureGates.name: Unsupported value: "${name}": supported values: "PushReconciler", "RawResourceStatusCollection", "SchedulerPreferences"`,
      ]);
    }
  });

  test('an empty name is Required', () => {
    const errs = validateKubeFedConfig(
      withSpec((s) => (s['featureGates'] = [{ name: '', configuration: 'Enabled' }])),
    );
    assert.deepEqual(messages(errs), ['spec.featureGates.name: Required value']);
  });

  test('duplicates are reported once per repeat, and the repeat is not checked further', () => {
    const errs = validateKubeFedConfig(
      withSpec(
        (s) =>
          (s['featureGates'] = [
            { name: 'PushReconciler', configuration: 'Enabled' },
            { name: 'PushReconciler', configuration: 'Bogus' },
            { name: 'PushReconciler', configuration: 'Disabled' },
          ]),
      ),
    );
    assert.deepEqual(errs, [
      { field: 'spec.featureGates.name', type: 'Duplicate', message: '', value: 'PushReconciler' },
      { field: 'spec.featureGates.name', type: 'Duplicate', message: '', value: 'PushReconciler' },
    ]);
    assert.equal(formatFieldErrors(errs), 'spec.featureGates.name: Duplicate value: "PushReconciler"');
  });
});

describe('validateKubeFedConfig: malformed JSON values', () => {
  test('unparsable durations report the Go parse error', () => {
    const errs = validateKubeFedConfig(withSpec((s) => (s.clusterHealthCheck['period'] = '10')));
    assert.deepEqual(messages(errs), [
      'spec.clusterHealthCheck.period: Invalid value: "10": time: missing unit in duration "10"',
    ]);
  });

  test('unparsable leader durations skip the ordering checks', () => {
    const errs = validateKubeFedConfig(withSpec((s) => (s.leaderElect['renewDeadline'] = 'soon')));
    assert.deepEqual(messages(errs), [
      'spec.leaderElect.renewDeadline: Invalid value: "soon": time: invalid duration "soon"',
    ]);
  });

  test('wrong JSON types', () => {
    const errs = validateKubeFedConfig(
      withSpec((s) => {
        s.controllerDuration['availableDelay'] = 20;
        s.clusterHealthCheck['failureThreshold'] = '3';
        s.statusController['maxConcurrentReconciles'] = 1.5;
        (s as Obj)['syncController'] = 'yes';
        s['featureGates'] = { PushReconciler: true };
      }),
    );
    assert.deepEqual(messages(errs), [
      'spec.controllerDuration.availableDelay: Invalid value: 20: must be a duration string such as "10s"',
      'spec.featureGates: Invalid value: {"PushReconciler":true}: must be a list',
      'spec.clusterHealthCheck.failureThreshold: Invalid value: "3": must be an integer',
      'spec.syncController: Invalid value: "yes": must be an object',
      'spec.statusController.maxConcurrentReconciles: Invalid value: 1.5: must be an integer',
    ]);
  });

  test('a non-object spec', () => {
    const errs = validateKubeFedConfig({ spec: 'x' });
    assert.equal(messages(errs)[0], 'spec: Invalid value: "x": must be an object');
  });
});

describe('formatFieldErrors on a validation result', () => {
  test('several errors are bracketed like a Go aggregate', () => {
    const errs = validateKubeFedConfig(
      withSpec((s) => {
        s.clusterHealthCheck['period'] = '0s';
        s.clusterHealthCheck['timeout'] = '0s';
      }),
    );
    assert.equal(
      formatFieldErrors(errs),
      '[spec.clusterHealthCheck.period: Invalid value: "0s": should be greater than 0, ' +
        'spec.clusterHealthCheck.timeout: Invalid value: "0s": should be greater than 0]',
    );
  });
});
