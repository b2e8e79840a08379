import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClusterOutcome, ObjectOutcome, ObjectRef, WorkOutcome } from '../../../../src/engine/work.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { ClusterStatus } from '../../../../src/propagation/constants.ts';
import {
  emptyFederatedOutcome,
  type FederatedOutcome,
  federatedOutcome,
} from '../../../../src/sources/federated/outcome.ts';

const ref: ObjectRef = {
  type: { group: '', version: 'v1', plural: 'configmaps', namespaced: true, kind: 'ConfigMap' },
  namespace: 'ns',
  name: 'a',
};
const withStatus: KubeObject = { metadata: { name: 'a', resourceVersion: '7' }, status: { phase: 'Ready' } };
const withoutStatus: KubeObject = { metadata: { name: 'a', resourceVersion: '7' } };

function work(clusters: Array<[string, ClusterOutcome]>, o: Partial<WorkOutcome> = {}): WorkOutcome {
  return { clusters: new Map(clusters), pending: false, written: false, ...o };
}
const object = (o: Omit<ObjectOutcome, 'ref'>): ObjectOutcome => ({ ref, ...o });
function expected(o: Partial<FederatedOutcome>): FederatedOutcome {
  return { ...emptyFederatedOutcome(), ...o };
}

describe('federatedOutcome: the Work outcome in the shape of a federated status', () => {
  const rows: Array<{ name: string; work: WorkOutcome; want: FederatedOutcome }> = [
    { name: 'nothing to say: empty', work: work([]), want: expected({}) },
    {
      name: 'cluster-level status, selected: the status and no member object',
      work: work([['c1', { status: ClusterStatus.ClusterNotReady, selected: true, objects: [] }]]),
      want: expected({
        statuses: new Map([['c1', ClusterStatus.ClusterNotReady]]),
        memberObjects: new Map([['c1', undefined]]),
      }),
    },
    {
      name: 'cluster-level status with a message, not selected: status and message, no member object entry',
      work: work([
        [
          'c1',
          {
            status: ClusterStatus.CachedRetrievalFailed,
            message: 'list failed',
            selected: false,
            objects: [],
          },
        ],
      ]),
      want: expected({
        statuses: new Map([['c1', ClusterStatus.CachedRetrievalFailed]]),
        messages: new Map([['c1', 'list failed']]),
      }),
    },
    {
      name: 'cluster-level status wins over object outcomes',
      work: work([
        [
          'c1',
          {
            status: ClusterStatus.ClusterNotReady,
            selected: true,
            objects: [object({ status: '', object: withStatus, version: 'rv:7' })],
          },
        ],
      ]),
      want: expected({
        statuses: new Map([['c1', ClusterStatus.ClusterNotReady]]),
        memberObjects: new Map([['c1', undefined]]),
      }),
    },
    {
      name: "object OK, selected: '' without message, its object, its status and version",
      work: work([
        [
          'c1',
          {
            selected: true,
            objects: [object({ status: '', message: 'ignored', object: withStatus, version: 'rv:7' })],
          },
        ],
      ]),
      want: expected({
        statuses: new Map([['c1', '']]),
        memberObjects: new Map([['c1', withStatus]]),
        remoteStatuses: new Map([['c1', { phase: 'Ready' }]]),
        versions: new Map([['c1', 'rv:7']]),
      }),
    },
    {
      name: 'object OK, selected, no .status: member object but no remote status',
      work: work([['c1', { selected: true, objects: [object({ status: '', object: withoutStatus })] }]]),
      want: expected({
        statuses: new Map([['c1', '']]),
        memberObjects: new Map([['c1', withoutStatus]]),
      }),
    },
    {
      name: 'object failed, selected, no object: status, message and an empty member object entry',
      work: work([
        [
          'c1',
          { selected: true, objects: [object({ status: ClusterStatus.CreationFailed, message: 'denied' })] },
        ],
      ]),
      want: expected({
        statuses: new Map([['c1', ClusterStatus.CreationFailed]]),
        messages: new Map([['c1', 'denied']]),
        memberObjects: new Map([['c1', undefined]]),
      }),
    },
    {
      name: 'object failed without a message: status only',
      work: work([
        ['c1', { selected: false, objects: [object({ status: ClusterStatus.DeletionTimedOut })] }],
      ]),
      want: expected({ statuses: new Map([['c1', ClusterStatus.DeletionTimedOut]]) }),
    },
    {
      name: 'object released (status undefined), not selected: no entry at all',
      work: work([['c1', { selected: false, objects: [object({ status: undefined })] }]]),
      want: expected({}),
    },
    {
      name: 'not selected, removal in progress: status only, never a member object or remote status',
      work: work([
        [
          'c1',
          {
            selected: false,
            objects: [object({ status: ClusterStatus.WaitingForRemoval, object: withStatus })],
          },
        ],
      ]),
      want: expected({ statuses: new Map([['c1', ClusterStatus.WaitingForRemoval]]) }),
    },
    {
      name: 'an empty version is not recorded',
      work: work([
        ['c1', { selected: true, objects: [object({ status: '', object: withoutStatus, version: '' })] }],
      ]),
      want: expected({
        statuses: new Map([['c1', '']]),
        memberObjects: new Map([['c1', withoutStatus]]),
      }),
    },
    {
      name: 'written: resources updated',
      work: work(
        [
          [
            'c1',
            {
              selected: true,
              objects: [object({ status: '', object: withoutStatus, version: 'rv:7', written: true })],
            },
          ],
        ],
        { written: true },
      ),
      want: expected({
        statuses: new Map([['c1', '']]),
        memberObjects: new Map([['c1', withoutStatus]]),
        versions: new Map([['c1', 'rv:7']]),
        resourcesUpdated: true,
      }),
    },
    {
      name: 'pending: the answer is incomplete',
      work: work([], { pending: true }),
      want: expected({ pending: true }),
    },
    {
      name: 'several clusters: each its own entries',
      work: work([
        ['c1', { selected: true, objects: [object({ status: '', object: withStatus, version: 'gen:1' })] }],
        ['c2', { status: ClusterStatus.ClusterNotReady, selected: true, objects: [] }],
        ['c3', { selected: false, objects: [object({ status: ClusterStatus.WaitingForRemoval })] }],
      ]),
      want: expected({
        statuses: new Map([
          ['c1', ''],
          ['c2', ClusterStatus.ClusterNotReady],
          ['c3', ClusterStatus.WaitingForRemoval],
        ]),
        memberObjects: new Map([
          ['c1', withStatus],
          ['c2', undefined],
        ]),
        remoteStatuses: new Map([['c1', { phase: 'Ready' }]]),
        versions: new Map([['c1', 'gen:1']]),
      }),
    },
  ];
  for (const row of rows) test(row.name, () => assert.deepEqual(federatedOutcome(row.work), row.want));
});
