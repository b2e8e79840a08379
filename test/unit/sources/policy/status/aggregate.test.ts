import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../../src/kube/client/index.ts';
import {
  aggregateStatus,
  type MemberStatusItem,
} from '../../../../../src/sources/policy/status/aggregate.ts';
import { reflectStatus } from '../../../../../src/sources/policy/status/reflect.ts';

const NOW = new Date('2026-12-01T10:00:00.123Z');

function template(
  kind: string,
  generation: number,
  status?: Record<string, unknown>,
  spec: Record<string, unknown> = {},
): KubeObject {
  return {
    kind,
    metadata: { name: 't', namespace: 'ns', generation },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

const item = (clusterName: string, status?: Record<string, unknown>, applied = true): MemberStatusItem => ({
  clusterName,
  applied,
  ...(status === undefined ? {} : { status }),
});

/** A member's reflected Deployment status at template generation `tg`, its own generation `g` observed as `og`. */
const deploy = (tg: number, g: number, og: number, n: number) => ({
  generation: g,
  resourceTemplateGeneration: tg,
  observedGeneration: og,
  replicas: n,
  updatedReplicas: n,
  readyReplicas: n,
  availableReplicas: n,
});

describe('aggregateStatus: Deployment', () => {
  test('sums the counts; observedGeneration follows once every member observed the template generation', () => {
    const got = aggregateStatus(template('Deployment', 4, { observedGeneration: 3 }), [
      item('a', deploy(4, 7, 7, 2)),
      item('b', { ...deploy(5, 2, 2, 1), unavailableReplicas: 1 }),
    ]);
    assert.deepEqual(got, {
      observedGeneration: 4,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      unavailableReplicas: 1,
    });
  });

  test('one member behind on its own observedGeneration keeps the old value', () => {
    const got = aggregateStatus(template('Deployment', 4, { observedGeneration: 3 }), [
      item('a', deploy(4, 7, 7, 2)),
      item('b', deploy(4, 3, 2, 1)),
    ]);
    assert.equal(got?.observedGeneration, 3);
    assert.equal(got?.replicas, 3);
  });

  test('a member copy rendered from an older template generation keeps the old value', () => {
    const got = aggregateStatus(template('Deployment', 4, { observedGeneration: 3 }), [
      item('a', deploy(4, 7, 7, 2)),
      item('b', deploy(3, 2, 2, 1)),
    ]);
    assert.equal(got?.observedGeneration, 3);
  });

  test('a member copy without the generation annotation has not observed anything', () => {
    const { resourceTemplateGeneration: _, ...noAnnotation } = deploy(4, 1, 1, 1);
    const got = aggregateStatus(template('Deployment', 1, {}), [item('a', noAnnotation)]);
    assert.equal(got?.observedGeneration, undefined, 'never observed: left out');
  });

  test('a missing member (not applied, no status) counts as not observed and adds nothing', () => {
    const got = aggregateStatus(template('Deployment', 4, { observedGeneration: 3 }), [
      item('a', deploy(4, 7, 7, 2)),
      item('b', undefined, false),
    ]);
    assert.deepEqual(got, {
      observedGeneration: 3,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
  });

  test('an applied member whose status is not collected yet counts as not observed', () => {
    const got = aggregateStatus(template('Deployment', 2, { observedGeneration: 1 }), [
      item('a', deploy(2, 1, 1, 1)),
      item('b'),
    ]);
    assert.equal(got?.observedGeneration, 1);
  });

  test('a member that failed to apply keeps its old status in the sums but has not observed the template', () => {
    const got = aggregateStatus(template('Deployment', 2, { observedGeneration: 1 }), [
      item('a', deploy(2, 1, 1, 1)),
      item('b', deploy(2, 1, 1, 1), false),
    ]);
    assert.equal(got?.observedGeneration, 1);
    assert.equal(got?.replicas, 2);
  });

  test('no members: nothing to wait for, observedGeneration is the generation and the counts are gone', () => {
    const got = aggregateStatus(template('Deployment', 5, { observedGeneration: 4, replicas: 3 }), []);
    assert.deepEqual(got, { observedGeneration: 5 });
  });

  test('only the aggregated fields change: conditions and the rest stay, zeros are removed', () => {
    const old = {
      observedGeneration: 1,
      replicas: 4,
      unavailableReplicas: 2,
      collisionCount: 1,
      conditions: [{ type: 'Progressing', status: 'True' }],
    };
    const t = template('Deployment', 1, old);
    const got = aggregateStatus(t, [item('a', deploy(1, 1, 1, 2))]);
    assert.deepEqual(got, {
      collisionCount: 1,
      conditions: [{ type: 'Progressing', status: 'True' }],
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
    assert.equal((t.status as Record<string, unknown>).replicas, 4, 'the template is not modified');
  });

  test('kubectl rollout status completes on the aggregated status, and waits while a member is behind', () => {
    // kubectl's DeploymentStatusViewer.Status, on the fields it reads.
    const rolledOut = (t: KubeObject, s: Record<string, unknown> | undefined): boolean => {
      const n = (k: string) => (typeof s?.[k] === 'number' ? (s[k] as number) : 0);
      const replicas = (t.spec as { replicas: number }).replicas;
      return (
        (t.metadata.generation ?? 0) <= n('observedGeneration') &&
        n('updatedReplicas') >= replicas &&
        n('replicas') <= n('updatedReplicas') &&
        n('availableReplicas') >= n('updatedReplicas')
      );
    };
    const member = (g: number, tg: number, og: number, ready: number): KubeObject => ({
      metadata: {
        name: 'd',
        generation: g,
        annotations: { 'resourcetemplate.karmada.io/generation': `${tg}` },
      },
      status: {
        observedGeneration: og,
        replicas: 2,
        updatedReplicas: ready,
        readyReplicas: ready,
        availableReplicas: ready,
      },
    });
    const t = template('Deployment', 2, { observedGeneration: 1 }, { replicas: 4 });
    const items = (members: KubeObject[]) =>
      members.map((m, i) => item(`c${i}`, reflectStatus('Deployment', m)));
    const waiting = aggregateStatus(t, items([member(3, 2, 3, 2), member(3, 1, 3, 2)]));
    assert.equal(rolledOut(t, waiting), false, 'one member still runs the previous template');
    const done = aggregateStatus(t, items([member(3, 2, 3, 2), member(5, 2, 5, 2)]));
    assert.equal(rolledOut(t, done), true);
  });
});

describe('aggregateStatus: StatefulSet, DaemonSet, ReplicaSet', () => {
  test('StatefulSet: counts summed, replicas and availableReplicas always written, the same generation rule', () => {
    const s = (tg: number, og: number) => ({
      generation: 2,
      resourceTemplateGeneration: tg,
      observedGeneration: og,
      replicas: 1,
      readyReplicas: 1,
      currentReplicas: 1,
      availableReplicas: 1,
    });
    const old = { observedGeneration: 1, currentRevision: 'r1' };
    assert.deepEqual(
      aggregateStatus(template('StatefulSet', 3, old), [item('a', s(3, 2)), item('b', s(3, 2))]),
      {
        currentRevision: 'r1',
        observedGeneration: 3,
        replicas: 2,
        readyReplicas: 2,
        currentReplicas: 2,
        availableReplicas: 2,
      },
    );
    assert.equal(
      aggregateStatus(template('StatefulSet', 3, old), [item('a', s(3, 2)), item('b', s(3, 1))])
        ?.observedGeneration,
      1,
    );
    assert.deepEqual(aggregateStatus(template('StatefulSet', 1), [item('a')]), {
      replicas: 0,
      availableReplicas: 0,
    });
  });

  test('DaemonSet: the seven counts summed', () => {
    const d = {
      generation: 1,
      resourceTemplateGeneration: 1,
      observedGeneration: 1,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      desiredNumberScheduled: 2,
      numberReady: 1,
      updatedNumberScheduled: 2,
      numberAvailable: 1,
      numberUnavailable: 1,
    };
    assert.deepEqual(aggregateStatus(template('DaemonSet', 1), [item('a', d), item('b', d)]), {
      currentNumberScheduled: 4,
      numberMisscheduled: 0,
      desiredNumberScheduled: 4,
      numberReady: 2,
      observedGeneration: 1,
      updatedNumberScheduled: 4,
      numberAvailable: 2,
      numberUnavailable: 2,
    });
    const behind = { ...d, observedGeneration: 0 };
    assert.equal(
      aggregateStatus(template('DaemonSet', 1), [item('a', d), item('b', behind)])?.observedGeneration,
      undefined,
    );
  });

  test('ReplicaSet: counts summed (a kubefed-ts addition)', () => {
    const r = {
      generation: 1,
      resourceTemplateGeneration: 2,
      observedGeneration: 1,
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 1,
    };
    assert.deepEqual(aggregateStatus(template('ReplicaSet', 2), [item('a', r), item('b', r)]), {
      replicas: 4,
      fullyLabeledReplicas: 4,
      readyReplicas: 4,
      availableReplicas: 2,
      observedGeneration: 2,
    });
  });
});

describe('aggregateStatus: Service and Ingress', () => {
  test('a LoadBalancer Service lists the ingress of every cluster, named after the cluster when unnamed', () => {
    const t = template('Service', 1, { conditions: [{ type: 'x' }] }, { type: 'LoadBalancer' });
    const got = aggregateStatus(t, [
      item('east', {
        loadBalancer: { ingress: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', hostname: 'lb.east' }] },
      }),
      item('west', {
        loadBalancer: { ingress: [{ ip: '10.1.0.1', ports: [{ port: 80, protocol: 'TCP' }] }] },
      }),
      item('south'),
    ]);
    assert.deepEqual(got, {
      loadBalancer: {
        ingress: [
          { ip: '10.0.0.1', hostname: 'east' },
          { ip: '10.0.0.2', hostname: 'lb.east' },
          { ip: '10.1.0.1', hostname: 'west', ports: [{ port: 80, protocol: 'TCP' }] },
        ],
      },
    });
  });

  test('a LoadBalancer without addresses yet gets an empty loadBalancer', () => {
    const t = template('Service', 1, undefined, { type: 'LoadBalancer' });
    assert.deepEqual(aggregateStatus(t, [item('a', { loadBalancer: {} })]), { loadBalancer: {} });
  });

  test('any other Service keeps its status', () => {
    const status = { loadBalancer: {}, conditions: [{ type: 'x' }] };
    assert.deepEqual(aggregateStatus(template('Service', 1, status, { type: 'ClusterIP' }), []), status);
    assert.deepEqual(aggregateStatus(template('Service', 1, undefined, {}), []), {});
  });

  test('Ingress: every cluster’s load-balancer ingress', () => {
    const got = aggregateStatus(template('Ingress', 1), [
      item('a', { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } }),
      item('b', { loadBalancer: { ingress: [{ hostname: 'b.example' }] } }),
    ]);
    assert.deepEqual(got, {
      loadBalancer: { ingress: [{ ip: '1.1.1.1', hostname: 'a' }, { hostname: 'b.example' }] },
    });
  });
});

describe('aggregateStatus: Job', () => {
  const complete = [{ type: 'Complete', status: 'True' }];
  const failed = [{ type: 'Failed', status: 'True' }];

  test('running: counts summed, the earliest start', () => {
    const got = aggregateStatus(
      template('Job', 1),
      [
        item('a', { active: 1, succeeded: 1, startTime: '2026-12-01T09:00:05Z' }),
        item('b', { active: 2, startTime: '2026-12-01T09:00:01Z' }),
        item('c', { active: 1 }),
      ],
      NOW,
    );
    assert.deepEqual(got, { startTime: '2026-12-01T09:00:01Z', active: 4, succeeded: 1 });
  });

  test('complete everywhere: SuccessCriteriaMet then Complete (the order the API server requires), the latest completion time', () => {
    const done = (start: string, end: string) => ({
      succeeded: 1,
      startTime: start,
      completionTime: end,
      conditions: complete,
    });
    const got = aggregateStatus(
      template('Job', 1),
      [
        item('a', done('2026-12-01T09:00:00Z', '2026-12-01T09:05:00Z')),
        item('b', done('2026-12-01T08:59:00Z', '2026-12-01T09:07:00Z')),
      ],
      NOW,
    );
    assert.deepEqual(got, {
      conditions: [
        {
          type: 'SuccessCriteriaMet',
          status: 'True',
          lastProbeTime: '2026-12-01T10:00:00Z',
          lastTransitionTime: '2026-12-01T10:00:00Z',
          reason: 'Completed',
          message: 'Job completed',
        },
        {
          type: 'Complete',
          status: 'True',
          lastProbeTime: '2026-12-01T10:00:00Z',
          lastTransitionTime: '2026-12-01T10:00:00Z',
          reason: 'Completed',
          message: 'Job completed',
        },
      ],
      startTime: '2026-12-01T08:59:00Z',
      completionTime: '2026-12-01T09:07:00Z',
      succeeded: 2,
    });
  });

  test('a member without status holds Complete and completionTime back', () => {
    const got = aggregateStatus(
      template('Job', 1),
      [item('a', { succeeded: 1, completionTime: '2026-12-01T09:05:00Z', conditions: complete }), item('b')],
      NOW,
    );
    assert.deepEqual(got, { succeeded: 1 });
  });

  test('failed in one member: FailureTarget then Failed, naming the clusters', () => {
    const got = aggregateStatus(
      template('Job', 1),
      [
        item('a', { succeeded: 1, conditions: complete }),
        item('b', { failed: 2, conditions: [{ type: 'Suspended', status: 'False' }, ...failed] }),
        item('c', { failed: 1, conditions: failed }),
      ],
      NOW,
    );
    assert.deepEqual(got?.conditions, [
      {
        type: 'FailureTarget',
        status: 'True',
        lastProbeTime: '2026-12-01T10:00:00Z',
        lastTransitionTime: '2026-12-01T10:00:00Z',
        reason: 'JobFailed',
        message: 'Job executed failed in member clusters b,c',
      },
      {
        type: 'Failed',
        status: 'True',
        lastProbeTime: '2026-12-01T10:00:00Z',
        lastTransitionTime: '2026-12-01T10:00:00Z',
        reason: 'JobFailed',
        message: 'Job executed failed in member clusters b,c',
      },
    ]);
    assert.equal(got?.succeeded, 1);
    assert.equal(got?.failed, 3);
  });

  test('a finished template Job never changes again', () => {
    const status = { succeeded: 2, conditions: [{ type: 'Complete', status: 'True', reason: 'Completed' }] };
    assert.deepEqual(
      aggregateStatus(template('Job', 1, status), [item('a', { failed: 1, conditions: failed })]),
      status,
    );
    const failedStatus = { failed: 1, conditions: failed };
    assert.deepEqual(
      aggregateStatus(template('Job', 1, failedStatus), [item('a', { succeeded: 1 })]),
      failedStatus,
    );
  });

  test('no members yet: nothing', () => {
    assert.deepEqual(aggregateStatus(template('Job', 1), [], NOW), {});
  });
});

describe('aggregateStatus: CronJob, PodDisruptionBudget, PersistentVolumeClaim', () => {
  test('CronJob: active from every member, the latest schedule and success times; the rest kept', () => {
    const got = aggregateStatus(template('CronJob', 1, { active: [{ name: 'old' }], other: 1 }), [
      item('a', {
        active: [{ kind: 'Job', name: 'j1' }],
        lastScheduleTime: '2026-12-01T09:00:00Z',
        lastSuccessfulTime: '2026-12-01T08:00:00Z',
      }),
      item('b', { active: [{ kind: 'Job', name: 'j2' }], lastScheduleTime: '2026-12-01T09:30:00Z' }),
    ]);
    assert.deepEqual(got, {
      other: 1,
      active: [
        { kind: 'Job', name: 'j1' },
        { kind: 'Job', name: 'j2' },
      ],
      lastScheduleTime: '2026-12-01T09:30:00Z',
      lastSuccessfulTime: '2026-12-01T08:00:00Z',
    });
    assert.deepEqual(
      aggregateStatus(template('CronJob', 1, { active: [{ name: 'old' }] }), [item('a', {})]),
      {},
    );
  });

  test('PodDisruptionBudget: counts summed, disrupted pods keyed by cluster', () => {
    const got = aggregateStatus(template('PodDisruptionBudget', 1, { observedGeneration: 1 }), [
      item('a', { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 }),
      item('b', {
        disruptionsAllowed: 0,
        currentHealthy: 1,
        desiredHealthy: 2,
        expectedPods: 2,
        disruptedPods: { p1: '2026-12-01T09:00:00Z' },
      }),
    ]);
    assert.deepEqual(got, {
      disruptedPods: { 'b/p1': '2026-12-01T09:00:00Z' },
      disruptionsAllowed: 1,
      currentHealthy: 4,
      desiredHealthy: 4,
      expectedPods: 5,
    });
  });

  test('PersistentVolumeClaim: Bound unless a member is Lost or elsewhere', () => {
    const pvc = (...phases: string[]) =>
      aggregateStatus(
        template('PersistentVolumeClaim', 1),
        phases.map((p, i) => item(`c${i}`, { phase: p })),
      );
    assert.deepEqual(pvc('Bound', 'Bound'), { phase: 'Bound' });
    assert.deepEqual(pvc('Bound', 'Pending'), { phase: 'Pending' });
    assert.deepEqual(pvc('Pending', 'Lost', 'Bound'), { phase: 'Lost' });
    assert.deepEqual(pvc(), { phase: 'Bound' });
  });
});

describe('aggregateStatus: kinds without an aggregator and unreadable input', () => {
  test('no aggregator: undefined, the template status is left alone', () => {
    assert.equal(aggregateStatus(template('ConfigMap', 1), [item('a', { x: 1 })]), undefined);
    assert.equal(aggregateStatus(template('Widget', 1), []), undefined);
    assert.equal(aggregateStatus({ metadata: { name: 'kindless' } }, []), undefined);
  });

  test('a CRD reusing a built-in kind name in its own group has no aggregator', () => {
    const t = { ...template('Deployment', 1), apiVersion: 'example.com/v1' };
    assert.equal(aggregateStatus(t, [item('a', deploy(1, 1, 1, 1))]), undefined);
    assert.notEqual(
      aggregateStatus({ ...t, apiVersion: 'apps/v1' }, [item('a', deploy(1, 1, 1, 1))]),
      undefined,
    );
  });

  test('a field of the wrong type: undefined, as Karmada fails the aggregation', () => {
    assert.equal(aggregateStatus(template('Deployment', 1), [item('a', { replicas: 'two' })]), undefined);
    assert.equal(
      aggregateStatus(template('Service', 1, undefined, { type: 'LoadBalancer' }), [
        item('a', { loadBalancer: { ingress: 'x' } }),
      ]),
      undefined,
    );
  });
});
