import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FEDERATION_APISERVER_CONTROLLERS,
  workloadControllersEnabled,
} from '../../../src/install/federation-apiserver.ts';

describe('workloadControllersEnabled (kube-controller-manager --controllers rules)', () => {
  test("the federation API server's list enables no workload controller", () => {
    assert.deepEqual(workloadControllersEnabled(FEDERATION_APISERVER_CONTROLLERS.join(',')), []);
  });

  test("Karmada's list under the old names enables none either", () => {
    const karmada =
      'namespace,garbagecollector,serviceaccount-token,ttl-after-finished,bootstrapsigner,tokencleaner,csrcleaner,csrsigning,clusterrole-aggregation';
    assert.deepEqual(workloadControllersEnabled(karmada), []);
  });

  test('an absent flag and * mean every on-by-default controller, the workload ones included', () => {
    for (const flag of [undefined, '*', '*,namespace-controller']) {
      assert.ok(workloadControllersEnabled(flag).includes('deployment-controller'), String(flag));
      assert.equal(workloadControllersEnabled(flag).length, 9, String(flag));
    }
  });

  test('named controllers count under their canonical name or their alias', () => {
    assert.deepEqual(workloadControllersEnabled('namespace-controller,deployment'), [
      'deployment-controller',
    ]);
    assert.deepEqual(workloadControllersEnabled(' job-controller , statefulset '), [
      'statefulset-controller',
      'job-controller',
    ]);
  });

  test('-name turns a controller off, whatever comes before or after it', () => {
    const off = workloadControllersEnabled('-deployment,*,-replicaset-controller,deployment-controller');
    assert.ok(!off.includes('deployment-controller'));
    assert.ok(!off.includes('replicaset-controller'));
    assert.ok(off.includes('statefulset-controller'));
  });
});
