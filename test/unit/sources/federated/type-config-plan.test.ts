import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FederatedTypeConfig } from '../../../../src/api/core/v1beta1/index.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { applyFtcDefaults, ftcControlPlan } from '../../../../src/sources/federated/type-config-plan.ts';

type Ftc = FederatedTypeConfig & KubeObject;

function ftc(
  over: {
    name?: string;
    scope?: 'Namespaced' | 'Cluster';
    propagation?: 'Enabled' | 'Disabled';
    generation?: number;
    deleting?: boolean;
  } = {},
): Ftc {
  return {
    metadata: {
      name: over.name ?? 'deployments.apps',
      generation: over.generation ?? 1,
      ...(over.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      targetType: {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        pluralName: 'deployments',
        scope: over.scope ?? 'Namespaced',
      },
      propagation: over.propagation ?? 'Enabled',
      federatedType: {
        group: 'types.kubefed.io',
        version: 'v1beta1',
        kind: 'FederatedDeployment',
        pluralName: 'federateddeployments',
        scope: 'Namespaced',
      },
    },
  };
}

const plan = (
  f: Ftc,
  o: Partial<{ scope: 'Cluster' | 'Namespaced'; ns: boolean; running: boolean; gen: number }> = {},
) =>
  ftcControlPlan({
    ftc: f,
    controlPlaneScope: o.scope ?? 'Cluster',
    namespacesFtcPresent: o.ns ?? true,
    running: o.running ?? false,
    runningGeneration: o.gen,
  }).action;

describe('ftcControlPlan (KubeFed federatedtypeconfig/controller.go, (*Controller).reconcile)', () => {
  test('an enabled FTC starts its sync controller once', () => {
    assert.equal(plan(ftc()), 'start');
    assert.equal(plan(ftc(), { running: true, gen: 1 }), 'none');
  });
  test('a disabled FTC stops a running controller', () => {
    assert.equal(plan(ftc({ propagation: 'Disabled' }), { running: true, gen: 1 }), 'stop');
    assert.equal(plan(ftc({ propagation: 'Disabled' })), 'none');
  });
  test('a spec change (new generation) restarts the controller', () => {
    assert.equal(plan(ftc({ generation: 2 }), { running: true, gen: 1 }), 'restart');
  });
  test('a namespaced type waits for the namespaces FTC in a cluster-scoped control plane', () => {
    assert.equal(plan(ftc(), { ns: false }), 'waitForNamespaces');
    assert.equal(
      plan(ftc({ scope: 'Cluster', name: 'clusterroles.rbac.authorization.k8s.io' }), { ns: false }),
      'start',
    );
  });
  test('a namespaced control plane never runs cluster-scoped types', () => {
    assert.equal(plan(ftc({ scope: 'Cluster' }), { scope: 'Namespaced' }), 'none');
    assert.equal(plan(ftc({ scope: 'Cluster' }), { scope: 'Namespaced', running: true, gen: 1 }), 'stop');
    assert.equal(plan(ftc(), { scope: 'Namespaced', ns: false }), 'start');
  });
  test('a namespaced type restarts when the FederatedNamespace type changes; a cluster-scoped one does not', () => {
    const changed = (f: Ftc) =>
      ftcControlPlan({
        ftc: f,
        controlPlaneScope: 'Cluster',
        namespacesFtcPresent: true,
        running: true,
        runningGeneration: 1,
        namespaceTypeChanged: true,
      }).action;
    assert.equal(changed(ftc()), 'restart');
    assert.equal(changed(ftc({ scope: 'Cluster', name: 'clusterroles.rbac.authorization.k8s.io' })), 'none');
  });
  test('a deleted FTC is finalized', () => {
    assert.equal(plan(ftc({ deleting: true }), { running: true, gen: 1 }), 'finalize');
  });
});

describe('applyFtcDefaults', () => {
  test('pluralName and group come from the FTC name', () => {
    const f = ftc({ name: 'deployments.apps' });
    f.spec.targetType.pluralName = '';
    f.spec.targetType.group = '';
    const before = structuredClone(f);
    const defaulted = applyFtcDefaults(f);
    assert.equal(defaulted.spec.targetType.pluralName, 'deployments');
    assert.equal(defaulted.spec.targetType.group, 'apps');
    // The input (an informer's cached object) is left as it was.
    assert.deepEqual(f, before);
    const core = ftc({ name: 'configmaps' });
    core.spec.targetType.pluralName = '';
    core.spec.targetType.group = undefined;
    const coreDefaulted = applyFtcDefaults(core);
    assert.equal(coreDefaulted.spec.targetType.pluralName, 'configmaps');
    assert.equal(coreDefaulted.spec.targetType.group, '');
  });
});
