import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { batchMemberEvents, type MemberEvent } from '../../../src/engine/event-batch.ts';
import type { ObjectRef } from '../../../src/engine/work.ts';
import { CoreTypes } from '../../../src/kube/client/index.ts';

const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };
const NS = { ...CoreTypes.namespaces, kind: 'Namespace' };
const cm: ObjectRef = { type: CM, namespace: 'ns', name: 'n' };
const other: ObjectRef = { type: CM, namespace: 'ns', name: 'm' };
const namespace: ObjectRef = { type: NS, name: 'ns' };

const ev = (reason: MemberEvent['reason'], object: ObjectRef, cluster: string): MemberEvent => ({
  reason,
  object,
  cluster,
});
const normal = (reason: string, message: string) => ({ type: 'Normal', reason, message });

describe('batchMemberEvents: one event per (reason, object) and pass', () => {
  test('nothing noted: no event', () => assert.deepEqual(batchMemberEvents([]), []));

  test("one cluster: KubeFed's own message, for each reason", () => {
    assert.deepEqual(
      batchMemberEvents([
        ev('CreateInCluster', cm, 'c1'),
        ev('UpdateInCluster', other, 'c1'),
        ev('DeleteInCluster', namespace, 'c1'),
        ev('RemoveManagedLabelFromInCluster', cm, 'c2'),
      ]),
      [
        normal('CreateInCluster', 'Creating ConfigMap "ns/n" in cluster "c1"'),
        normal('UpdateInCluster', 'Updating ConfigMap "ns/m" in cluster "c1"'),
        normal('DeleteInCluster', 'Deleting Namespace "ns" in cluster "c1"'),
        normal(
          'RemoveManagedLabelFromInCluster',
          'Removing managed label from ConfigMap "ns/n" in cluster "c2"',
        ),
      ],
    );
  });

  test('several clusters: one event naming them all, sorted, each once', () => {
    assert.deepEqual(
      batchMemberEvents([
        ev('CreateInCluster', cm, 'c3'),
        ev('CreateInCluster', cm, 'c1'),
        ev('CreateInCluster', cm, 'c2'),
        ev('CreateInCluster', cm, 'c1'),
      ]),
      [normal('CreateInCluster', 'Creating ConfigMap "ns/n" in clusters "c1", "c2", "c3"')],
    );
  });

  test('different reasons or objects stay apart, in the order first noted', () => {
    assert.deepEqual(
      batchMemberEvents([
        ev('UpdateInCluster', cm, 'c2'),
        ev('CreateInCluster', cm, 'c1'),
        ev('UpdateInCluster', other, 'c1'),
        ev('UpdateInCluster', cm, 'c1'),
        ev('CreateInCluster', cm, 'c3'),
      ]),
      [
        normal('UpdateInCluster', 'Updating ConfigMap "ns/n" in clusters "c1", "c2"'),
        normal('CreateInCluster', 'Creating ConfigMap "ns/n" in clusters "c1", "c3"'),
        normal('UpdateInCluster', 'Updating ConfigMap "ns/m" in cluster "c1"'),
      ],
    );
  });

  test('the same name in another group is another object', () => {
    const custom: ObjectRef = {
      type: { group: 'example.io', version: 'v1', plural: 'configmaps', namespaced: true, kind: 'ConfigMap' },
      namespace: 'ns',
      name: 'n',
    };
    assert.equal(
      batchMemberEvents([ev('CreateInCluster', cm, 'c1'), ev('CreateInCluster', custom, 'c2')]).length,
      2,
    );
  });

  test('clusters sort by code point, as names are compared elsewhere', () => {
    assert.deepEqual(
      batchMemberEvents([
        ev('DeleteInCluster', cm, 'b'),
        ev('DeleteInCluster', cm, 'B'),
        ev('DeleteInCluster', cm, 'a'),
      ]),
      [normal('DeleteInCluster', 'Deleting ConfigMap "ns/n" in clusters "B", "a", "b"')],
    );
  });
});
