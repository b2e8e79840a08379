import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../../src/kube/client/index.ts';
import { reflectStatus } from '../../../../../src/sources/policy/status/reflect.ts';

const GEN = 'resourcetemplate.karmada.io/generation';

function member(o: {
  apiVersion?: string;
  generation?: number;
  templateGeneration?: string;
  spec?: Record<string, unknown>;
  status?: unknown;
}): KubeObject {
  return {
    ...(o.apiVersion === undefined ? {} : { apiVersion: o.apiVersion }),
    metadata: {
      name: 'x',
      ...(o.generation === undefined ? {} : { generation: o.generation }),
      ...(o.templateGeneration === undefined ? {} : { annotations: { [GEN]: o.templateGeneration } }),
    },
    ...(o.spec === undefined ? {} : { spec: o.spec }),
    ...(o.status === undefined ? {} : { status: o.status }),
  };
}

describe('reflectStatus: workloads keep their counts and both generations', () => {
  test('Deployment: the six fields, the member generation and the template generation annotation', () => {
    const m = member({
      generation: 3,
      templateGeneration: '5',
      status: {
        observedGeneration: 3,
        replicas: 2,
        updatedReplicas: 2,
        readyReplicas: 1,
        availableReplicas: 1,
        unavailableReplicas: 1,
        conditions: [{ type: 'Available', status: 'True' }],
        collisionCount: 1,
      },
    });
    assert.deepEqual(reflectStatus('Deployment', m), {
      generation: 3,
      resourceTemplateGeneration: 5,
      observedGeneration: 3,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
      unavailableReplicas: 1,
    });
  });

  test('Deployment: zeros are left out (omitempty); an all-zero status is not collected yet', () => {
    assert.deepEqual(reflectStatus('Deployment', member({ generation: 1, status: { replicas: 0 } })), {
      generation: 1,
    });
    assert.equal(reflectStatus('Deployment', member({ status: {} })), undefined);
    assert.equal(reflectStatus('Deployment', member({ generation: 1 })), undefined, 'no status');
  });

  test('an unparsable generation annotation records no status (Karmada fails the reflection)', () => {
    const m = member({ generation: 1, templateGeneration: 'x1', status: { replicas: 1 } });
    assert.equal(reflectStatus('Deployment', m), undefined);
    assert.equal(reflectStatus('StatefulSet', m), undefined);
  });

  test('StatefulSet: replicas and availableReplicas always, observedGeneration kept', () => {
    const m = member({
      generation: 2,
      templateGeneration: '2',
      status: { observedGeneration: 2, readyReplicas: 1, currentRevision: 'r1' },
    });
    assert.deepEqual(reflectStatus('StatefulSet', m), {
      generation: 2,
      resourceTemplateGeneration: 2,
      observedGeneration: 2,
      replicas: 0,
      readyReplicas: 1,
      availableReplicas: 0,
    });
  });

  test('DaemonSet: the seven counts, four of them always', () => {
    const m = member({
      generation: 1,
      status: { observedGeneration: 1, numberReady: 2, numberAvailable: 2 },
    });
    assert.deepEqual(reflectStatus('DaemonSet', m), {
      generation: 1,
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 2,
      observedGeneration: 1,
      numberAvailable: 2,
    });
  });

  test('ReplicaSet: its counts (a kubefed-ts addition)', () => {
    const m = member({
      generation: 4,
      templateGeneration: '4',
      status: {
        replicas: 3,
        fullyLabeledReplicas: 3,
        readyReplicas: 2,
        observedGeneration: 4,
        conditions: [],
      },
    });
    assert.deepEqual(reflectStatus('ReplicaSet', m), {
      generation: 4,
      resourceTemplateGeneration: 4,
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 2,
      observedGeneration: 4,
    });
  });

  test('a field of the wrong type records no status', () => {
    assert.equal(
      reflectStatus('Deployment', member({ generation: 1, status: { replicas: '2' } })),
      undefined,
    );
    assert.equal(
      reflectStatus('Deployment', member({ generation: 1, status: { replicas: 1.5 } })),
      undefined,
    );
    assert.equal(reflectStatus('ConfigMap', member({ status: 'odd' })), undefined, 'status not an object');
  });
});

describe('reflectStatus: Service, Ingress, Job, PDB, HPA and the rest', () => {
  test('Service: only a LoadBalancer reflects, and only its loadBalancer', () => {
    const lb = { ingress: [{ ip: '10.0.0.1' }] };
    const status = { loadBalancer: lb, conditions: [{ type: 'x' }] };
    assert.deepEqual(reflectStatus('Service', member({ spec: { type: 'LoadBalancer' }, status })), {
      loadBalancer: lb,
    });
    assert.deepEqual(reflectStatus('Service', member({ spec: { type: 'LoadBalancer' }, status: {} })), {
      loadBalancer: {},
    });
    assert.equal(reflectStatus('Service', member({ spec: { type: 'ClusterIP' }, status })), undefined);
    assert.equal(reflectStatus('Service', member({ spec: {}, status })), undefined);
  });

  test('Ingress keeps the whole status', () => {
    const status = { loadBalancer: { ingress: [{ hostname: 'a.example' }] } };
    assert.deepEqual(reflectStatus('Ingress', member({ status })), status);
  });

  test('Job: counts, conditions and times', () => {
    const status = {
      active: 0,
      succeeded: 2,
      failed: 1,
      ready: 0,
      startTime: '2026-01-01T00:00:00Z',
      completionTime: '2026-01-01T00:01:00Z',
      conditions: [{ type: 'Complete', status: 'True' }],
      uncountedTerminatedPods: {},
    };
    assert.deepEqual(reflectStatus('Job', member({ status })), {
      conditions: [{ type: 'Complete', status: 'True' }],
      startTime: '2026-01-01T00:00:00Z',
      completionTime: '2026-01-01T00:01:00Z',
      succeeded: 2,
      failed: 1,
    });
  });

  test('PodDisruptionBudget: the four counts always, disrupted pods when any', () => {
    const status = { currentHealthy: 2, desiredHealthy: 1, observedGeneration: 3 };
    assert.deepEqual(reflectStatus('PodDisruptionBudget', member({ status })), {
      disruptionsAllowed: 0,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 0,
    });
    const disrupted = { disruptedPods: { p: '2026-01-01T00:00:00Z' }, expectedPods: 3 };
    assert.deepEqual(reflectStatus('PodDisruptionBudget', member({ status: disrupted })), {
      disruptedPods: { p: '2026-01-01T00:00:00Z' },
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 3,
    });
  });

  test('HorizontalPodAutoscaler: current and desired replicas', () => {
    const status = { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [] };
    assert.deepEqual(reflectStatus('HorizontalPodAutoscaler', member({ status })), {
      currentReplicas: 2,
      desiredReplicas: 3,
    });
  });

  test('other kinds keep the whole status, as a copy', () => {
    const status = { phase: 'Ready', nested: { a: [1] } };
    const got = reflectStatus('Widget', member({ status }));
    assert.deepEqual(got, status);
    assert.notEqual(got, status);
    assert.equal(reflectStatus('ConfigMap', member({})), undefined);
  });

  test('a CRD reusing a built-in kind name in its own group is reflected whole', () => {
    const status = { replicas: 1, phase: 'Up' };
    const m = member({ apiVersion: 'example.com/v1', generation: 1, status });
    assert.deepEqual(reflectStatus('Deployment', m), status);
    const builtin = member({ apiVersion: 'apps/v1', generation: 1, status });
    assert.deepEqual(reflectStatus('Deployment', builtin), { generation: 1, replicas: 1 });
  });
});
