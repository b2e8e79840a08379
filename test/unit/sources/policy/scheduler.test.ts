import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApiError,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../../../src/kube/client/index.ts';
import type { Members } from '../../../../src/members/members.ts';
import type { EventRecorder } from '../../../../src/runtime/events.ts';
import type { BindingObject } from '../../../../src/sources/policy/binding-spec.ts';
import type { Bindings } from '../../../../src/sources/policy/bindings.ts';
import { Scheduler } from '../../../../src/sources/policy/scheduler.ts';
import { APPLIED_PLACEMENT_ANNOTATION, placementString } from '../../../../src/sources/policy/scheduling.ts';

const placement = { clusterAffinity: { clusterNames: ['c1'] } };

/** A binding the detector created with its schedule (first-schedule.ts): only its status is left to write. */
function created(): BindingObject {
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: 'web-deployment',
      namespace: 'apps',
      uid: 'u1',
      generation: 1,
      resourceVersion: '1',
      annotations: { [APPLIED_PLACEMENT_ANNOTATION]: placementString(placement) },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'web' },
      placement,
      clusters: [{ name: 'c1' }],
    },
  } as BindingObject;
}

function conflict(): ApiError {
  return new ApiError({
    statusCode: 409,
    reason: 'Conflict',
    message: 'conflict',
    method: 'PUT',
    path: '/x',
  });
}

/** An API server holding one binding: writes with an older resourceVersion conflict. */
function fakeHost(start: BindingObject) {
  let stored = structuredClone(start);
  let failNextStatusWrites = 0;
  const host = {
    get: async <T extends KubeObject>(_t: ResourceType) => structuredClone(stored) as unknown as T,
    update: async <T extends KubeObject>(_t: ResourceType, o: T, opts: { subresource?: string } = {}) => {
      if (o.metadata.resourceVersion !== stored.metadata.resourceVersion) throw conflict();
      if (opts.subresource === 'status' && failNextStatusWrites > 0) {
        failNextStatusWrites--;
        throw conflict();
      }
      const next = structuredClone(o) as unknown as BindingObject;
      const rv = String(Number(stored.metadata.resourceVersion) + 1);
      stored =
        opts.subresource === 'status'
          ? { ...stored, status: next.status, metadata: { ...stored.metadata, resourceVersion: rv } }
          : { ...next, status: stored.status, metadata: { ...next.metadata, resourceVersion: rv } };
      return structuredClone(stored) as unknown as T;
    },
  };
  return {
    host: host as unknown as KubeClient,
    stored: () => stored,
    /** Another writer's status update lands first this many times. */
    conflictStatusWrites: (n: number) => {
      failNextStatusWrites = n;
    },
  };
}

/** A scheduler whose binding cache stays at `cached` (an informer that has not seen the writes yet). */
function scheduler(host: KubeClient, cached: () => BindingObject, firstStatusGraceMs?: number) {
  const reasons: string[] = [];
  const bindings = { get: () => cached(), keys: () => [], changes: () => () => {} };
  const cluster = {
    metadata: { name: 'c1' },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const members = {
    hasSynced: () => true,
    asCache: () => ({ start() {}, waitForSync: async () => {}, hasSynced: () => true, stop: async () => {} }),
    registry: { list: () => [cluster], addListener: () => () => {} },
  };
  const events = {
    record: async (_o: KubeObject, _type: string, reason: string) => {
      reasons.push(reason);
    },
  };
  const s = new Scheduler({
    host,
    bindings: bindings as unknown as Bindings,
    members: members as unknown as Members,
    events: events as unknown as EventRecorder,
    ...(firstStatusGraceMs !== undefined ? { firstStatusGraceMs } : {}),
  });
  return { s, reasons };
}

const KEY = 'apps/web-deployment';

test('the first success is recorded once, though a reconcile again reads a cache without Scheduled', async () => {
  const api = fakeHost(created());
  const stale = created();
  const { s, reasons } = scheduler(api.host, () => stale);
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.equal(api.stored().status?.conditions?.[0]?.status, 'True');
  // The cache still shows no Scheduled condition: the status write reads the object and finds it set.
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.deepEqual(reasons, ['ScheduleBindingSucceed']);
});

test('a status write that keeps conflicting records nothing; the retry that writes Scheduled does', async () => {
  const api = fakeHost(created());
  const stale = created();
  const { s, reasons } = scheduler(api.host, () => stale);
  api.conflictStatusWrites(5);
  assert.equal((await s.reconcile(KEY)).kind, 'error');
  assert.equal(api.stored().status, undefined);
  assert.deepEqual(reasons, []);
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.deepEqual(reasons, ['ScheduleBindingSucceed']);
});

test('a binding scheduled by the scheduler itself records its success once', async () => {
  const unscheduled = created();
  delete unscheduled.spec.clusters;
  delete unscheduled.metadata.annotations;
  const api = fakeHost(unscheduled);
  const { s, reasons } = scheduler(api.host, () => api.stored());
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.deepEqual(
    api.stored().spec.clusters?.map((c) => c.name),
    ['c1'],
  );
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.deepEqual(reasons, ['ScheduleBindingSucceed']);
});

/** created(), just created. */
function justCreated(): BindingObject {
  const b = created();
  b.metadata.creationTimestamp = new Date().toISOString();
  return b;
}

test('a binding just created with its schedule is left to the binding controller’s first report', async () => {
  const api = fakeHost(justCreated());
  const { s, reasons } = scheduler(api.host, () => api.stored(), 60_000);
  const r = await s.reconcile(KEY);
  assert.ok(r.kind === 'requeueAfter' && r.ms > 50_000 && r.ms <= 60_000, JSON.stringify(r));
  assert.equal(api.stored().status, undefined);
  assert.deepEqual(reasons, []);
});

test('once its grace has passed, the scheduler writes the Scheduled status itself', async () => {
  const api = fakeHost(justCreated());
  const { s, reasons } = scheduler(api.host, () => api.stored(), 0);
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.equal(api.stored().status?.conditions?.[0]?.type, 'Scheduled');
  assert.equal(api.stored().status?.schedulerObservedGeneration, 1);
  assert.deepEqual(reasons, ['ScheduleBindingSucceed']);
});

test('a binding whose first report carried the Scheduled status is not written again', async () => {
  const reported = justCreated();
  reported.status = {
    schedulerObservedGeneration: 1,
    lastScheduledTime: '2026-01-01T00:00:00Z',
    conditions: [
      {
        type: 'Scheduled',
        status: 'True',
        reason: 'Success',
        message: 'Binding has been scheduled successfully.',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  };
  const api = fakeHost(reported);
  const { s, reasons } = scheduler(api.host, () => api.stored(), 0);
  assert.equal((await s.reconcile(KEY)).kind, 'ok');
  assert.equal(api.stored().metadata.resourceVersion, '1');
  assert.deepEqual(reasons, []);
});
