import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ServiceObject } from '../../../src/mcs/model.ts';
import { exportValidity } from '../../../src/mcs/validity.ts';

const service = (spec: ServiceObject['spec']): ServiceObject => ({ metadata: { name: 'hello' }, spec });

describe('exportValidity (KEP-1645 Service Types)', () => {
  test('no Service of the export name: Valid=False NoService, naming it', () => {
    const v = exportValidity(undefined, 'hello');
    assert.equal(v.valid, false);
    assert.equal(v.reason, 'NoService');
    assert.match(v.message, /"hello"/);
  });

  test('ExternalName: Valid=False InvalidServiceType (conformance testExternalNameService)', () => {
    const v = exportValidity(service({ type: 'ExternalName', externalName: 'example.com' }), 'hello');
    assert.equal(v.valid, false);
    assert.equal(v.reason, 'InvalidServiceType');
    assert.match(v.message, /ExternalName/);
  });

  for (const spec of [
    { type: 'ClusterIP' },
    { type: 'ClusterIP', clusterIP: 'None' },
    { type: 'NodePort' },
    { type: 'LoadBalancer' },
    {},
    undefined,
  ]) {
    test(`valid: ${JSON.stringify(spec)}`, () => {
      const v = exportValidity(service(spec), 'hello');
      assert.deepEqual({ valid: v.valid, reason: v.reason }, { valid: true, reason: 'Valid' });
    });
  }
});
