import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { viewOf } from '../../../src/engine/dispatcher.ts';
import { ALREADY_OWNED, type Ownership } from '../../../src/engine/ownership.ts';
import {
  type ClusterPlan,
  type ExistingPlan,
  type MemberView,
  type ObjectPlan,
  type ObjectPlanInput,
  ownedByMessage,
  planCluster,
  planExisting,
  planObject,
  planWrite,
  type RenderResult,
  tryRender,
  type WritePlan,
} from '../../../src/engine/plan.ts';
import { RenderError } from '../../../src/engine/work.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import type { MemberCacheState } from '../../../src/members/member-caches.ts';
import { ClusterStatus, MANAGED_LABEL, RENDERING_ANNOTATION } from '../../../src/propagation/constants.ts';
import { MapStore } from '../../../src/runtime/informer/store.ts';

const managed = { [MANAGED_LABEL]: 'true' };

function member(meta: Partial<KubeObject['metadata']> = {}, rest: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5', labels: managed, ...meta },
    ...rest,
  };
}

const ours: Ownership = { kind: 'ours' };
const federatedOther: Ownership = { kind: 'other', owner: undefined };
const policyOther: Ownership = { kind: 'other', owner: 'policy:ResourceBinding:ns/b' };

describe('planCluster: what to do about a member as a whole', () => {
  const unavailable = (failed: boolean): MemberView => ({
    kind: 'unavailable',
    status: ClusterStatus.TypeNotServed,
    message: 'the server could not find the requested resource',
    failed,
  });
  const notReadyReport: ClusterPlan = {
    kind: 'report',
    status: ClusterStatus.ClusterNotReady,
    event: { type: 'Warning', reason: 'ClusterNotReady', message: 'Cluster "c1" is not ready' },
  };
  const unavailableReport: ClusterPlan = {
    kind: 'report',
    status: ClusterStatus.TypeNotServed,
    message: 'the server could not find the requested resource',
  };
  const rows: Array<{ name: string; view: MemberView; selected: boolean; want: ClusterPlan }> = [
    {
      name: 'not ready, selected: reported, with an event',
      view: { kind: 'notReady' },
      selected: true,
      want: notReadyReport,
    },
    {
      name: 'not ready, not selected: nothing to say',
      view: { kind: 'notReady' },
      selected: false,
      want: { kind: 'skip' },
    },
    {
      name: 'loading, selected: pending',
      view: { kind: 'loading' },
      selected: true,
      want: { kind: 'pending' },
    },
    {
      name: 'loading, not selected: pending all the same',
      view: { kind: 'loading' },
      selected: false,
      want: { kind: 'pending' },
    },
    {
      name: 'unavailable, selected: reported without an event',
      view: unavailable(false),
      selected: true,
      want: unavailableReport,
    },
    {
      name: 'unavailable, not selected: nothing to say',
      view: unavailable(false),
      selected: false,
      want: { kind: 'skip' },
    },
    {
      name: 'cache failed, selected: reported',
      view: unavailable(true),
      selected: true,
      want: unavailableReport,
    },
    {
      name: 'cache failed, not selected: reported even so',
      view: unavailable(true),
      selected: false,
      want: unavailableReport,
    },
    {
      name: 'synced, selected: plan the objects',
      view: { kind: 'synced' },
      selected: true,
      want: { kind: 'objects' },
    },
    {
      name: 'synced, not selected: plan the objects (to remove them)',
      view: { kind: 'synced' },
      selected: false,
      want: { kind: 'objects' },
    },
  ];
  for (const row of rows)
    test(row.name, () => assert.deepEqual(planCluster('c1', row.view, row.selected), row.want));
});

describe('planObject: what to do about one object in a synced member', () => {
  const live = member();
  const deleting = member({ deletionTimestamp: '2026-01-01T00:00:00Z' });
  const optedOut = member({ labels: { [MANAGED_LABEL]: 'false' } });
  const invalid = { status: ClusterStatus.ApplyOverridesFailed, message: 'spec.overrides must be a list' };
  const rows: Array<{ name: string; input: ObjectPlanInput; want: ObjectPlan }> = [
    // Not desired in this cluster.
    {
      name: 'not desired, no live copy: nothing',
      input: { live: undefined, desired: undefined, keep: false },
      want: { op: 'none' },
    },
    {
      name: "not desired, another owner's copy: left alone, nothing said",
      input: { live, ownership: policyOther, desired: undefined, keep: false },
      want: { op: 'none' },
    },
    {
      name: "not desired, the federated source's copy seen by another source: left alone",
      input: { live, ownership: federatedOther, desired: undefined, keep: false },
      want: { op: 'none' },
    },
    {
      name: 'not desired, already deleting: WaitingForRemoval',
      input: { live: deleting, ownership: ours, desired: undefined, keep: false },
      want: { op: 'none', status: ClusterStatus.WaitingForRemoval },
    },
    {
      name: 'not desired, deleting and kept: still WaitingForRemoval (checked first, as KubeFed)',
      input: { live: deleting, ownership: ours, desired: undefined, keep: true },
      want: { op: 'none', status: ClusterStatus.WaitingForRemoval },
    },
    {
      name: 'not desired, kept (host namespace): release it',
      input: { live, ownership: ours, desired: undefined, keep: true },
      want: { op: 'unlabel', live, timedOut: ClusterStatus.LabelRemovalTimedOut },
    },
    {
      name: 'not desired, ours: delete it',
      input: { live, ownership: ours, desired: undefined, keep: false },
      want: { op: 'delete', live, timedOut: ClusterStatus.DeletionTimedOut },
    },
    {
      name: 'not desired, no ownership given: delete it',
      input: { live, desired: undefined, keep: false },
      want: { op: 'delete', live, timedOut: ClusterStatus.DeletionTimedOut },
    },
    // Desired in this cluster.
    {
      name: "desired, another source's copy: AlreadyOwned naming the owner",
      input: { live, ownership: policyOther, desired: {}, keep: false },
      want: {
        op: 'none',
        status: ALREADY_OWNED,
        message: 'the object is managed by policy ResourceBinding "ns/b"',
      },
    },
    {
      name: "desired, the federated source's copy: AlreadyOwned naming it",
      input: { live, ownership: federatedOther, desired: {}, keep: false },
      want: {
        op: 'none',
        status: ALREADY_OWNED,
        message: 'the object is managed by a federated object of the same name',
      },
    },
    {
      name: "desired but invalid, another owner's copy: AlreadyOwned wins",
      input: { live, ownership: policyOther, desired: { invalid }, keep: false },
      want: {
        op: 'none',
        status: ALREADY_OWNED,
        message: 'the object is managed by policy ResourceBinding "ns/b"',
      },
    },
    {
      name: 'desired but invalid, with a live copy: its status, the copy reported and left as it is',
      input: { live, ownership: ours, desired: { invalid }, keep: false },
      want: { op: 'none', ...invalid, object: live },
    },
    {
      name: 'desired but invalid, no live copy: its status, nothing created',
      input: { live: undefined, desired: { invalid }, keep: false },
      want: { op: 'none', ...invalid, object: undefined },
    },
    {
      name: 'desired, no live copy: create',
      input: { live: undefined, desired: {}, keep: false },
      want: { op: 'create', timedOut: ClusterStatus.CreationTimedOut },
    },
    {
      name: 'desired, managed label "false": ManagedLabelFalse with the copy',
      input: { live: optedOut, ownership: { kind: 'unmanaged' }, desired: {}, keep: false },
      want: { op: 'none', status: ClusterStatus.ManagedLabelFalse, object: optedOut },
    },
    {
      name: 'desired, ours: update',
      input: { live, ownership: ours, desired: {}, keep: false },
      want: { op: 'update', live, timedOut: ClusterStatus.UpdateTimedOut },
    },
    {
      name: 'desired, kept and ours: update (keep only matters for removal)',
      input: { live, ownership: ours, desired: {}, keep: true },
      want: { op: 'update', live, timedOut: ClusterStatus.UpdateTimedOut },
    },
  ];
  for (const row of rows) test(row.name, () => assert.deepEqual(planObject(row.input), row.want));
});

describe('tryRender', () => {
  test('returns what the render made', () => {
    const rendered = { object: member(), warnings: [] };
    assert.deepEqual(
      tryRender(() => rendered),
      { ok: true, rendered },
    );
  });
  test('catches what it throws', () => {
    const error = new Error('boom');
    assert.deepEqual(
      tryRender(() => {
        throw error;
      }),
      { ok: false, error },
    );
  });
});

describe('planWrite: after rendering', () => {
  const rendered = (object: KubeObject): RenderResult => ({ ok: true, rendered: { object, warnings: [] } });
  const failed = (error: unknown): RenderResult => ({ ok: false, error });
  const rvLive = member({ resourceVersion: '5' });
  const genLive = member({ resourceVersion: '5', generation: 2, labels: { ...managed, app: 'a' } });
  const genDesired = member({ resourceVersion: '5', labels: { ...managed, app: 'a' } });
  const genRelabelled = member({ resourceVersion: '5', labels: { ...managed, app: 'b' } });
  const genReannotated = member({
    resourceVersion: '5',
    labels: { ...managed, app: 'a' },
    annotations: { note: 'x' },
  });
  const fail = (status: string, message: string): WritePlan => ({
    op: 'fail',
    status,
    message,
    event: { type: 'Warning', reason: status, message: `Cluster "c1": ${message}` },
  });
  const rows: Array<{
    name: string;
    render: RenderResult;
    live: KubeObject | undefined;
    recorded: string | undefined;
    want: WritePlan;
  }> = [
    {
      name: 'a RenderError: its status, and an event naming the cluster',
      render: failed(new RenderError(ClusterStatus.FieldRetentionFailed, '.spec is of type string')),
      live: rvLive,
      recorded: 'rv:5',
      want: fail(ClusterStatus.FieldRetentionFailed, '.spec is of type string'),
    },
    {
      name: 'any other error: ComputeResourceFailed',
      render: failed(new Error('spec.template must be an object, not a string')),
      live: undefined,
      recorded: undefined,
      want: fail(ClusterStatus.ComputeResourceFailed, 'spec.template must be an object, not a string'),
    },
    {
      name: 'a thrown non-error: ComputeResourceFailed with its text',
      render: failed('bad'),
      live: rvLive,
      recorded: undefined,
      want: fail(ClusterStatus.ComputeResourceFailed, 'bad'),
    },
    {
      name: 'no live copy (create): write',
      render: rendered(genDesired),
      live: undefined,
      recorded: 'rv:5',
      want: { op: 'write', object: genDesired },
    },
    {
      name: 'no recorded version: write',
      render: rendered(rvLive),
      live: rvLive,
      recorded: undefined,
      want: { op: 'write', object: rvLive },
    },
    {
      name: 'an empty recorded version: write',
      render: rendered(rvLive),
      live: rvLive,
      recorded: '',
      want: { op: 'write', object: rvLive },
    },
    {
      name: 'recorded resourceVersion still the live one: up to date',
      render: rendered(genRelabelled),
      live: rvLive,
      recorded: 'rv:5',
      want: { op: 'none', status: '', object: rvLive, version: 'rv:5' },
    },
    {
      name: 'recorded resourceVersion no longer the live one: write',
      render: rendered(rvLive),
      live: rvLive,
      recorded: 'rv:4',
      want: { op: 'write', object: rvLive },
    },
    {
      name: 'recorded generation still the live one, metadata equal: up to date',
      render: rendered(genDesired),
      live: genLive,
      recorded: 'gen:2',
      want: { op: 'none', status: '', object: genLive, version: 'gen:2' },
    },
    {
      name: 'recorded generation still the live one, labels drifted: write',
      render: rendered(genRelabelled),
      live: genLive,
      recorded: 'gen:2',
      want: { op: 'write', object: genRelabelled },
    },
    {
      name: 'recorded generation still the live one, annotations drifted: write',
      render: rendered(genReannotated),
      live: genLive,
      recorded: 'gen:2',
      want: { op: 'write', object: genReannotated },
    },
    {
      name: 'recorded generation no longer the live one: write',
      render: rendered(genDesired),
      live: genLive,
      recorded: 'gen:1',
      want: { op: 'write', object: genDesired },
    },
  ];
  for (const row of rows)
    test(row.name, () => assert.deepEqual(planWrite('c1', row.render, row.live, row.recorded), row.want));
});

describe('planWrite: the rendering hash stands in for a lost record (after a restart)', () => {
  const rendered = (object: KubeObject): RenderResult => ({ ok: true, rendered: { object, warnings: [] } });
  const stamped = (hash: string) => ({ [RENDERING_ANNOTATION]: hash });
  const rvLive = member({ resourceVersion: '5', annotations: stamped('h1') });
  const rvDesired = member({ resourceVersion: '5', annotations: stamped('h1') });
  const rvUnstamped = member({ resourceVersion: '5' });
  const rvReleased = member({ resourceVersion: '5', labels: {}, annotations: stamped('h1') });
  const genLive = member({ resourceVersion: '5', generation: 3, annotations: stamped('h1') });
  const genDesired = member({ annotations: stamped('h1') });
  const genRelabelled = member({ labels: { ...managed, app: 'b' }, annotations: stamped('h1') });
  const rows: Array<{
    name: string;
    live: KubeObject;
    desired: KubeObject;
    recorded: string | undefined;
    hash: string | undefined;
    want: WritePlan;
  }> = [
    {
      name: 'nothing recorded, live stamped with the hash: up to date at its version (rv)',
      live: rvLive,
      desired: rvDesired,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'none', status: '', object: rvLive, version: 'rv:5' },
    },
    {
      name: 'an empty record counts as nothing recorded',
      live: rvLive,
      desired: rvDesired,
      recorded: '',
      hash: 'h1',
      want: { op: 'none', status: '', object: rvLive, version: 'rv:5' },
    },
    {
      name: 'nothing recorded, live stamped with the hash: up to date at its generation',
      live: genLive,
      desired: genDesired,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'none', status: '', object: genLive, version: 'gen:3' },
    },
    {
      name: 'nothing recorded, hash matches but labels drifted (generation-tracked): write',
      live: genLive,
      desired: genRelabelled,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'write', object: genRelabelled },
    },
    {
      name: 'nothing recorded, hash matches but the data was edited in the member (rv-tracked): write',
      live: { ...rvLive, data: { key: 'edited' } } as KubeObject,
      desired: { ...rvDesired, data: { key: 'value' } } as KubeObject,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'write', object: { ...rvDesired, data: { key: 'value' } } as KubeObject },
    },
    {
      name: 'nothing recorded, hash matches but the copy was released (no managed label): write, to re-mark it',
      live: { ...rvLive, metadata: { ...rvLive.metadata, labels: {} } },
      desired: rvDesired,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'write', object: rvDesired },
    },
    {
      name: 'nothing recorded, live stamped with another hash: write',
      live: rvLive,
      desired: member({ annotations: stamped('h2') }),
      recorded: undefined,
      hash: 'h2',
      want: { op: 'write', object: member({ annotations: stamped('h2') }) },
    },
    {
      name: 'nothing recorded, live not stamped: write',
      live: rvUnstamped,
      desired: rvDesired,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'write', object: rvDesired },
    },
    {
      // The release (unlabel) leaves the stamp: adopted again after a 409, the copy must get its label back.
      name: 'nothing recorded, stamped but released (no managed label): write',
      live: rvReleased,
      desired: rvDesired,
      recorded: undefined,
      hash: 'h1',
      want: { op: 'write', object: rvDesired },
    },
    {
      name: 'no hash given: a stamped live copy does not count (Federated<Kind>)',
      live: rvLive,
      desired: rvLive,
      recorded: undefined,
      hash: undefined,
      want: { op: 'write', object: rvLive },
    },
    {
      name: 'a record wins over the stamp: an older recorded version means the copy drifted',
      live: rvLive,
      desired: rvDesired,
      recorded: 'rv:4',
      hash: 'h1',
      want: { op: 'write', object: rvDesired },
    },
    {
      name: 'a record wins over the stamp: the recorded version still holds',
      live: rvLive,
      desired: rvDesired,
      recorded: 'rv:5',
      hash: 'h1',
      want: { op: 'none', status: '', object: rvLive, version: 'rv:5' },
    },
  ];
  for (const row of rows)
    test(row.name, () =>
      assert.deepEqual(planWrite('c1', rendered(row.desired), row.live, row.recorded, row.hash), row.want),
    );

  test('no live copy: a create, whatever the hash', () =>
    assert.deepEqual(planWrite('c1', rendered(rvDesired), undefined, undefined, 'h1'), {
      op: 'write',
      object: rvDesired,
    }));
});

describe('planExisting: a create found the object already there', () => {
  const existing = member({ labels: {} });
  const rows: Array<{
    name: string;
    ownership: Ownership;
    adopt: boolean;
    keep: boolean;
    want: ExistingPlan;
  }> = [
    {
      name: "another owner's: AlreadyOwned naming it, even when adopting",
      ownership: policyOther,
      adopt: true,
      keep: true,
      want: { op: 'none', status: ALREADY_OWNED, message: ownedByMessage('policy:ResourceBinding:ns/b') },
    },
    {
      name: "the federated source's, seen by another source: AlreadyOwned",
      ownership: federatedOther,
      adopt: false,
      keep: false,
      want: { op: 'none', status: ALREADY_OWNED, message: ownedByMessage(undefined) },
    },
    {
      name: 'unmanaged, neither adopting nor kept: AlreadyExists with the object',
      ownership: { kind: 'unmanaged' },
      adopt: false,
      keep: false,
      want: { op: 'none', status: ClusterStatus.AlreadyExists, object: existing },
    },
    {
      name: 'ours but unseen by the cache, neither adopting nor kept: AlreadyExists',
      ownership: ours,
      adopt: false,
      keep: false,
      want: { op: 'none', status: ClusterStatus.AlreadyExists, object: existing },
    },
    {
      name: 'adopting: take it over',
      ownership: { kind: 'unmanaged' },
      adopt: true,
      keep: false,
      want: { op: 'adopt', live: existing },
    },
    {
      name: 'kept (host namespace), not adopting: take it over',
      ownership: { kind: 'unmanaged' },
      adopt: false,
      keep: true,
      want: { op: 'adopt', live: existing },
    },
  ];
  for (const row of rows)
    test(row.name, () =>
      assert.deepEqual(
        planExisting({ existing, ownership: row.ownership, adopt: row.adopt, keep: row.keep }),
        row.want,
      ),
    );

  test('ownedByMessage words the owner', () => {
    assert.equal(
      ownedByMessage('policy:ResourceBinding:ns/b'),
      'the object is managed by policy ResourceBinding "ns/b"',
    );
    assert.equal(ownedByMessage(undefined), 'the object is managed by a federated object of the same name');
  });
});

describe('viewOf: a member cache state in the plan terms', () => {
  const rows: Array<{ name: string; state: MemberCacheState | undefined; want: MemberView }> = [
    { name: 'no cache opened: loading', state: undefined, want: { kind: 'loading' } },
    {
      name: 'no informer (not ready or not registered): loading',
      state: { kind: 'none' },
      want: { kind: 'loading' },
    },
    { name: 'listing: loading', state: { kind: 'syncing' }, want: { kind: 'loading' } },
    {
      name: 'loaded: synced',
      state: { kind: 'synced', store: new MapStore<KubeObject>() },
      want: { kind: 'synced' },
    },
    {
      name: 'type not served: TypeNotServed, not a failure',
      state: { kind: 'typeNotServed', message: 'not served' },
      want: {
        kind: 'unavailable',
        status: ClusterStatus.TypeNotServed,
        message: 'not served',
        failed: false,
      },
    },
    {
      name: 'no client: ClientRetrievalFailed, not a failure',
      state: { kind: 'clientError', message: 'bad config' },
      want: {
        kind: 'unavailable',
        status: ClusterStatus.ClientRetrievalFailed,
        message: 'bad config',
        failed: false,
      },
    },
    {
      name: 'cache broke: CachedRetrievalFailed, a failure',
      state: { kind: 'failed', message: 'list timed out' },
      want: {
        kind: 'unavailable',
        status: ClusterStatus.CachedRetrievalFailed,
        message: 'list timed out',
        failed: true,
      },
    },
  ];
  for (const row of rows) test(row.name, () => assert.deepEqual(viewOf(row.state), row.want));
});
