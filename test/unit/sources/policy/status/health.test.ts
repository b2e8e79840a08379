import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../../src/kube/client/index.ts';
import { memberHealth } from '../../../../../src/sources/policy/status/health.ts';

function obj(
  generation: number | undefined,
  spec: Record<string, unknown> | undefined,
  status: Record<string, unknown> | undefined,
): KubeObject {
  return {
    metadata: generation === undefined ? { name: 'x' } : { name: 'x', generation },
    ...(spec === undefined ? {} : { spec }),
    ...(status === undefined ? {} : { status }),
  };
}

describe('memberHealth: Deployment', () => {
  const rows: Array<[string, KubeObject, string]> = [
    [
      'rolled out',
      obj(2, { replicas: 3 }, { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 }),
      'Healthy',
    ],
    [
      'controller behind',
      obj(3, { replicas: 3 }, { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 }),
      'Unhealthy',
    ],
    [
      'not all updated',
      obj(2, { replicas: 3 }, { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 3 }),
      'Unhealthy',
    ],
    [
      'updated not yet available',
      obj(2, { replicas: 3 }, { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 2 }),
      'Unhealthy',
    ],
    ['no spec.replicas: only the available check', obj(1, {}, { observedGeneration: 1 }), 'Healthy'],
    ['no status and no generation: zero values agree', obj(undefined, {}, undefined), 'Healthy'],
    ['a malformed field', obj(1, { replicas: 'three' }, { observedGeneration: 1 }), 'Unknown'],
  ];
  for (const [name, o, want] of rows) test(name, () => assert.equal(memberHealth('Deployment', o), want));
});

describe('memberHealth: StatefulSet', () => {
  const rows: Array<[string, KubeObject, string]> = [
    [
      'rolled out',
      obj(1, { replicas: 3 }, { observedGeneration: 1, updatedReplicas: 3, availableReplicas: 3 }),
      'Healthy',
    ],
    [
      'partitioned update done: only ordinals ≥ partition updated',
      obj(
        1,
        { replicas: 3, updateStrategy: { rollingUpdate: { partition: 2 } } },
        { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 3 },
      ),
      'Healthy',
    ],
    [
      'partitioned update not done',
      obj(
        1,
        { replicas: 3, updateStrategy: { rollingUpdate: { partition: 1 } } },
        { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 3 },
      ),
      'Unhealthy',
    ],
    [
      'every pod must be available, not only the updated ones',
      obj(1, { replicas: 3 }, { observedGeneration: 1, updatedReplicas: 3, availableReplicas: 2 }),
      'Unhealthy',
    ],
    ['controller behind', obj(2, { replicas: 0 }, { observedGeneration: 1 }), 'Unhealthy'],
  ];
  for (const [name, o, want] of rows) test(name, () => assert.equal(memberHealth('StatefulSet', o), want));
});

describe('memberHealth: ReplicaSet and DaemonSet', () => {
  test('ReplicaSet: available ≥ desired once observed', () => {
    assert.equal(
      memberHealth('ReplicaSet', obj(1, { replicas: 2 }, { observedGeneration: 1, availableReplicas: 2 })),
      'Healthy',
    );
    assert.equal(
      memberHealth('ReplicaSet', obj(1, { replicas: 2 }, { observedGeneration: 1, availableReplicas: 1 })),
      'Unhealthy',
    );
    assert.equal(
      memberHealth('ReplicaSet', obj(2, { replicas: 2 }, { observedGeneration: 1, availableReplicas: 2 })),
      'Unhealthy',
    );
  });

  test('DaemonSet: every desired pod updated and available', () => {
    const ok = {
      observedGeneration: 1,
      desiredNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
    };
    assert.equal(memberHealth('DaemonSet', obj(1, {}, ok)), 'Healthy');
    assert.equal(memberHealth('DaemonSet', obj(1, {}, { ...ok, updatedNumberScheduled: 1 })), 'Unhealthy');
    assert.equal(memberHealth('DaemonSet', obj(1, {}, { ...ok, numberAvailable: 1 })), 'Unhealthy');
    assert.equal(memberHealth('DaemonSet', obj(2, {}, ok)), 'Unhealthy');
  });
});

describe('memberHealth: Service, Ingress, PVC, Pod, PDB', () => {
  test('Service: not a LoadBalancer is healthy; a LoadBalancer needs an address', () => {
    assert.equal(memberHealth('Service', obj(1, { type: 'ClusterIP' }, {})), 'Healthy');
    assert.equal(memberHealth('Service', obj(1, {}, {})), 'Healthy');
    assert.equal(memberHealth('Service', obj(1, { type: 'LoadBalancer' }, {})), 'Unhealthy');
    assert.equal(
      memberHealth('Service', obj(1, { type: 'LoadBalancer' }, { loadBalancer: { ingress: [{}] } })),
      'Unhealthy',
    );
    assert.equal(
      memberHealth(
        'Service',
        obj(1, { type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }),
      ),
      'Healthy',
    );
  });

  test('Ingress needs an address', () => {
    assert.equal(memberHealth('Ingress', obj(1, {}, {})), 'Unhealthy');
    assert.equal(
      memberHealth('Ingress', obj(1, {}, { loadBalancer: { ingress: [{ hostname: 'a.example' }] } })),
      'Healthy',
    );
  });

  test('PVC: Bound', () => {
    assert.equal(memberHealth('PersistentVolumeClaim', obj(undefined, {}, { phase: 'Bound' })), 'Healthy');
    assert.equal(
      memberHealth('PersistentVolumeClaim', obj(undefined, {}, { phase: 'Pending' })),
      'Unhealthy',
    );
  });

  test('Pod: Succeeded, or Running and Ready', () => {
    const ready = [{ type: 'Ready', status: 'True' }];
    assert.equal(memberHealth('Pod', obj(undefined, {}, { phase: 'Succeeded' })), 'Healthy');
    assert.equal(memberHealth('Pod', obj(undefined, {}, { phase: 'Running', conditions: ready })), 'Healthy');
    assert.equal(memberHealth('Pod', obj(undefined, {}, { phase: 'Running' })), 'Unhealthy');
    assert.equal(
      memberHealth('Pod', obj(undefined, {}, { phase: 'Pending', conditions: ready })),
      'Unhealthy',
    );
  });

  test('PDB: current ≥ desired healthy', () => {
    assert.equal(
      memberHealth('PodDisruptionBudget', obj(1, {}, { currentHealthy: 2, desiredHealthy: 2 })),
      'Healthy',
    );
    assert.equal(
      memberHealth('PodDisruptionBudget', obj(1, {}, { currentHealthy: 1, desiredHealthy: 2 })),
      'Unhealthy',
    );
  });
});

describe('memberHealth: kinds without a rule', () => {
  test('are Healthy, as Karmada treats an applied object it cannot judge (Job included)', () => {
    assert.equal(memberHealth('ConfigMap', obj(undefined, undefined, undefined)), 'Healthy');
    assert.equal(memberHealth('Job', obj(1, {}, { failed: 3 })), 'Healthy');
    assert.equal(memberHealth('Widget', obj(1, {}, { replicas: 'x' })), 'Healthy');
  });

  test('a CRD reusing a built-in kind name in its own group has no rule', () => {
    const o: KubeObject = { ...obj(2, {}, { observedGeneration: 1 }), apiVersion: 'example.com/v1' };
    assert.equal(memberHealth('Deployment', o), 'Healthy');
    assert.equal(memberHealth('Deployment', { ...o, apiVersion: 'apps/v1' }), 'Unhealthy');
  });
});
