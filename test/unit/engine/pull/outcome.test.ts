import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ManifestCondition, ManifestWork } from '../../../../src/api/ocm/work/v1/index.ts';
import { manifestWorkFor } from '../../../../src/engine/pull/manifest-work.ts';
import {
  manifestVersion,
  memberObject,
  outcomeFromManifestWork,
  WAITING_FOR_AGENT,
} from '../../../../src/engine/pull/outcome.ts';
import type { ObjectRef, WorkOwner } from '../../../../src/engine/work.ts';
import { CoreTypes } from '../../../../src/kube/client/index.ts';

const owner: WorkOwner = {
  source: 'policy',
  kind: 'ResourceBinding',
  namespace: 'apps',
  name: 'web',
  uid: 'u',
};
const DEPLOY = { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, kind: 'Deployment' };
const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };
const deploy: ObjectRef = { type: DEPLOY, namespace: 'apps', name: 'web' };
const cm: ObjectRef = { type: CM, namespace: 'apps', name: 'web-config' };
const ready = { name: 'cluster1', ready: true };
const T = '2026-01-01T00:00:00Z';

const cond = (type: string, status: string, reason = 'R', message = '', observedGeneration?: number) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
  ...(observedGeneration === undefined ? {} : { observedGeneration }),
});

function work(
  manifests: ManifestCondition[] = [],
  workConditions = [cond('Applied', 'True', 'AppliedManifestWorkComplete', '', 1)],
): ManifestWork {
  const mw = manifestWorkFor(owner, 'cluster1', [
    { ref: deploy, object: { metadata: { name: 'web', namespace: 'apps' }, spec: { replicas: 2 } } },
    { ref: cm, object: { metadata: { name: 'web-config', namespace: 'apps' }, data: { a: 'b' } } },
  ]);
  mw.metadata.generation = 1;
  mw.status = { conditions: workConditions, resourceStatus: { manifests } };
  return mw;
}

const meta = (ordinal: number) =>
  ordinal === 0
    ? {
        ordinal,
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        resource: 'deployments',
        name: 'web',
        namespace: 'apps',
      }
    : {
        ordinal,
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
        resource: 'configmaps',
        name: 'web-config',
        namespace: 'apps',
      };

const STATUS = { replicas: 2, readyReplicas: 2, observedGeneration: 3 };
const appliedDeploy: ManifestCondition = {
  resourceMeta: meta(0),
  conditions: [cond('Applied', 'True', 'AppliedManifestComplete'), cond('Available', 'True')],
  statusFeedback: {
    values: [
      { name: 'status', fieldValue: { type: 'JsonRaw', jsonRaw: JSON.stringify(STATUS) } },
      { name: 'generation', fieldValue: { type: 'Integer', integer: 3 } },
    ],
  },
};

describe('outcomeFromManifestWork', () => {
  test('cluster not ready (the agent lease expired): ClusterNotReady for the cluster as a whole', () => {
    assert.deepEqual(outcomeFromManifestWork(work([appliedDeploy]), [deploy], { name: 'c', ready: false }), {
      selected: true,
      status: 'ClusterNotReady',
      objects: [],
    });
  });

  test('Applied True: OK, the manifest with the fed-back status and generation, a version of the manifest', () => {
    const mw = work([appliedDeploy]);
    const out = outcomeFromManifestWork(mw, [deploy], ready);
    const manifest = mw.spec.workload?.manifests?.[0];
    assert.ok(manifest);
    assert.deepEqual(out.objects, [
      {
        ref: deploy,
        status: '',
        object: { ...manifest, metadata: { ...manifest.metadata, generation: 3 }, status: STATUS },
        version: manifestVersion(manifest),
      },
    ]);
    assert.match(out.objects[0]?.version ?? '', /^pull:[0-9a-f]{16}$/);
  });

  test("Applied False for an object that does not exist: CreationFailed with the agent's message", () => {
    const mc: ManifestCondition = {
      resourceMeta: meta(1),
      conditions: [
        cond('Applied', 'False', 'AppliedManifestFailed', 'namespaces "apps" not found'),
        cond('Available', 'False'),
      ],
    };
    const out = outcomeFromManifestWork(work([mc]), [cm], ready);
    assert.deepEqual(out.objects, [
      { ref: cm, status: 'CreationFailed', message: 'namespaces "apps" not found' },
    ]);
  });

  test('Applied False for an object that exists: UpdateFailed', () => {
    const mc: ManifestCondition = {
      resourceMeta: meta(1),
      conditions: [cond('Applied', 'False', 'AppliedManifestFailed', 'conflict'), cond('Available', 'True')],
    };
    assert.equal(outcomeFromManifestWork(work([mc]), [cm], ready).objects[0]?.status, 'UpdateFailed');
  });

  test('Applied False saying AlreadyOwned: AlreadyOwned', () => {
    for (const [reason, message] of [
      ['AlreadyOwned', 'x'],
      ['AppliedManifestFailed', 'AlreadyOwned: the object is managed by policy ResourceBinding "apps/other"'],
      ['AppliedManifestFailed', 'the object is managed by work ManifestWork "w"'],
    ] as const) {
      const mc: ManifestCondition = {
        resourceMeta: meta(1),
        conditions: [cond('Applied', 'False', reason, message)],
      };
      assert.deepEqual(outcomeFromManifestWork(work([mc]), [cm], ready).objects, [
        { ref: cm, status: 'AlreadyOwned', message },
      ]);
    }
  });

  test('no condition for a manifest yet, or Unknown: waiting for the agent', () => {
    const unknown: ManifestCondition = { resourceMeta: meta(1), conditions: [cond('Applied', 'Unknown')] };
    const out = outcomeFromManifestWork(work([appliedDeploy, unknown]), [deploy, cm], ready);
    assert.equal(out.objects[0]?.status, '');
    assert.equal(out.objects[1]?.status, WAITING_FOR_AGENT);
    assert.equal(outcomeFromManifestWork(work([]), [cm], ready).objects[0]?.status, WAITING_FOR_AGENT);
  });

  test('no work yet: every object waits for the agent', () => {
    const out = outcomeFromManifestWork(undefined, [deploy, cm], ready);
    assert.deepEqual(
      out.objects.map((o) => o.status),
      [WAITING_FOR_AGENT, WAITING_FOR_AGENT],
    );
    assert.match(out.objects[0]?.message ?? '', /cluster1/);
  });

  test('no status at all yet: waiting', () => {
    const mw = work([]);
    mw.status = undefined;
    const out = outcomeFromManifestWork(mw, [deploy], ready);
    assert.equal(out.objects[0]?.status, WAITING_FOR_AGENT);
    assert.match(
      out.objects[0]?.message ?? '',
      /has not reported ManifestWork "cluster1\/kubefed-policy-resourcebinding-apps.web"/,
    );
  });

  test('the agent reported an older generation: waiting, not the old answer', () => {
    const mw = work([appliedDeploy]);
    mw.metadata.generation = 2;
    const out = outcomeFromManifestWork(mw, [deploy], ready);
    assert.equal(out.objects[0]?.status, WAITING_FOR_AGENT);
    assert.match(out.objects[0]?.message ?? '', /generation 2/);
  });

  test("a work being deleted (an earlier owner's): waiting until it is gone", () => {
    const mw = work([appliedDeploy]);
    mw.metadata.deletionTimestamp = T;
    assert.equal(outcomeFromManifestWork(mw, [deploy], ready).objects[0]?.status, WAITING_FOR_AGENT);
  });

  test('an object the work does not hold says nothing (its render failure is reported by the dispatcher)', () => {
    const other: ObjectRef = { type: CM, namespace: 'apps', name: 'missing' };
    assert.deepEqual(outcomeFromManifestWork(work([appliedDeploy]), [other], ready).objects, []);
  });
});

describe('memberObject', () => {
  const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
  test('no feedback: the manifest as it is', () => {
    assert.deepEqual(memberObject(manifest, []), manifest);
  });
  test('a malformed or non-object status is ignored', () => {
    assert.deepEqual(
      memberObject(manifest, [{ name: 'status', fieldValue: { type: 'JsonRaw', jsonRaw: '{"a":' } }]),
      manifest,
    );
    assert.deepEqual(
      memberObject(manifest, [{ name: 'status', fieldValue: { type: 'JsonRaw', jsonRaw: '3' } }]),
      manifest,
    );
    assert.deepEqual(
      memberObject(manifest, [{ name: 'status', fieldValue: { type: 'String', string: 'x' } }]),
      manifest,
    );
  });
});
