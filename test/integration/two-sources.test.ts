// Two sources on one type and one member: the Federated<Kind> source (the sync controller, in the controller
// manager process) and a small test source driving the same engine in this process. Neither may unlabel,
// rewrite or delete the other's member objects; the loser reports who owns the object.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Dispatcher } from '../../src/engine/dispatcher.ts';
import { OWNER_ANNOTATION, ownerId } from '../../src/engine/ownership.ts';
import type { DesiredObject, Work, WorkOutcome, WorkOwner } from '../../src/engine/work.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import type { MemberCache } from '../../src/members/member-caches.ts';
import { Members } from '../../src/members/members.ts';
import { MANAGED_LABEL } from '../../src/propagation/constants.ts';
import type { ControllerManagerProcess } from '../../src/testing/controller-manager-process.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import {
  createFederatedNamespace,
  eventReasons,
  eventually,
  type FedObject,
  federatedConfigMap,
  getOrUndefined,
  startPropagation,
  T,
} from './federation-helpers.ts';
import { NS } from './helpers.ts';

const NSX = 'two-sources';
const CM = { ...CoreTypes.configMaps, kind: 'ConfigMap' };

/** The smallest possible source: one owner whose Work holds the ConfigMaps named, in cluster1. */
class TestSource {
  readonly owner: WorkOwner = {
    source: 'test',
    kind: 'TestBundle',
    namespace: NSX,
    name: 'bundle',
    uid: 'u1',
  };
  readonly #dispatcher: Dispatcher;
  readonly events: string[] = [];

  constructor(cache: MemberCache, members: Members) {
    this.#dispatcher = new Dispatcher({
      registry: members.registry,
      cacheFor: (t) => (t.plural === 'configmaps' ? cache : undefined),
    });
  }

  /** Applies a Work that holds `names` (with `data`) in cluster1 and nothing anywhere else. */
  apply(names: string[], data: Record<string, string>, inventory = names): Promise<WorkOutcome> {
    const desired: DesiredObject[] = names.map((name) => ({
      type: CM,
      namespace: NSX,
      name,
      render: () => ({
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NSX }, data },
        warnings: [],
      }),
    }));
    const work: Work = {
      owner: this.owner,
      objects: inventory.map((name) => ({ type: CM, namespace: NSX, name })),
      clusters: new Map(names.length > 0 ? [['cluster1', desired]] : []),
      adopt: false,
      event: (_type, reason, message) => this.events.push(`${reason}: ${message}`),
    };
    return this.#dispatcher.apply(work);
  }
}

function clusterStatus(o: FedObject | undefined, cluster: string) {
  return o?.status?.clusters?.find((c) => c.name === cluster);
}

describe('two sources on one type and one member', () => {
  let fed: Federation;
  let host: KubeClient;
  let cm: ControllerManagerProcess;
  let c1: KubeClient;
  let members: Members;
  let cache: MemberCache;
  let source: TestSource;

  before(async () => {
    fed = await startFederation({ members: ['cluster1'] });
    ({ host, cm } = await startPropagation(fed));
    c1 = fed.cluster('cluster1').client();
    await createFederatedNamespace(host, NSX, ['cluster1']);
    await eventually(
      'the federated namespace in cluster1',
      () => getOrUndefined(c1, T.namespaces, NSX),
      (n) => n !== undefined,
    );
    members = new Members({ host, namespace: NS });
    members.start();
    await members.waitForSync();
    cache = members.caches.open({ type: CM, labelSelector: `${MANAGED_LABEL}=true` });
    await eventually(
      "the test source's member cache",
      async () => members.registry.isReady('cluster1') && cache.state('cluster1').kind,
      (k) => k === 'synced',
    );
    source = new TestSource(cache, members);
  });
  after(async () => {
    await cache?.close();
    await members?.stop();
    await cm?.process.stop();
    await fed?.stop();
  });

  test("the sync controller neither unlabels nor rewrites another source's object, and reports who owns it", async () => {
    const first = await source.apply(['ours'], { from: 'test' });
    assert.equal(first.clusters.get('cluster1')?.objects[0]?.status, '');
    const created = await c1.get(CM, 'ours', NSX);
    assert.equal(created.metadata.labels?.[MANAGED_LABEL], 'true');
    assert.equal(created.metadata.annotations?.[OWNER_ANNOTATION], ownerId(source.owner));

    // A managed copy without an owner and without a federated object is an orphan to the sync controller:
    // once it has unlabelled that one, it has also looked at ours (both changed before it).
    await c1.create(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'orphan', namespace: NSX, labels: { [MANAGED_LABEL]: 'true' } },
    });
    await eventually(
      'the orphan unlabelled by the sync controller',
      () => c1.get(CM, 'orphan', NSX),
      (o) => o.metadata.labels?.[MANAGED_LABEL] === undefined,
    );

    await host.create(T.fcm, federatedConfigMap('ours', NSX, { from: 'federated' }, ['cluster1']));
    const reported = await eventually(
      'the federated object reports the owner',
      () => getOrUndefined<FedObject>(host, T.fcm, 'ours', NSX),
      (o) => clusterStatus(o, 'cluster1')?.status === 'AlreadyOwned',
    );
    assert.match(clusterStatus(reported, 'cluster1')?.message ?? '', /test TestBundle "two-sources\/bundle"/);
    await eventually(
      'an AlreadyOwned event on the federated object',
      () => eventReasons(host, NSX, 'ours'),
      (reasons) => reasons.includes('AlreadyOwned'),
    );

    // Deleting the federated object leaves the other source's copy alone too.
    await host.delete(T.fcm, 'ours', { namespace: NSX });
    await eventually(
      'the federated object gone',
      () => getOrUndefined(host, T.fcm, 'ours', NSX),
      (o) => o === undefined,
    );
    const after = await c1.get<KubeObject & { data?: Record<string, string> }>(CM, 'ours', NSX);
    assert.equal(
      after.metadata.resourceVersion,
      created.metadata.resourceVersion,
      'never written by another source',
    );
    assert.deepEqual(after.data, { from: 'test' });
  });

  test("a source neither rewrites nor deletes the federated source's object, and reports who owns it", async () => {
    await host.create(T.fcm, federatedConfigMap('theirs', NSX, { from: 'federated' }, ['cluster1']));
    const propagated = await eventually(
      'the federated copy in cluster1',
      () => getOrUndefined<KubeObject & { data?: Record<string, string> }>(c1, CM, 'theirs', NSX),
      (o) => o?.data?.from === 'federated',
    );
    await eventually(
      "the federated copy in the test source's cache",
      async () => cache.get('cluster1', `${NSX}/theirs`),
      (o) => o !== undefined,
    );

    const outcome = await source.apply(['theirs'], { from: 'test' });
    const result = outcome.clusters.get('cluster1')?.objects[0];
    assert.equal(result?.status, 'AlreadyOwned');
    assert.match(result?.message ?? '', /federated object of the same name/);
    assert.ok(
      source.events.some((e) => e.startsWith('AlreadyOwned: Not managing ConfigMap "two-sources/theirs"')),
      source.events.join('\n'),
    );

    // A Work that holds nothing of it in cluster1 (the object is in its inventory) deletes nothing.
    const emptied = await source.apply([], {}, ['theirs']);
    assert.equal(emptied.clusters.size, 0);

    await sleep(500);
    const now = await c1.get(CM, 'theirs', NSX);
    assert.equal(
      now.metadata.resourceVersion,
      propagated?.metadata.resourceVersion,
      'never written by the test source',
    );
    assert.equal(now.metadata.labels?.[MANAGED_LABEL], 'true');
    assert.equal(now.metadata.annotations?.[OWNER_ANNOTATION], undefined);
  });

  test('a source removes only its own copies when its Work no longer holds them', async () => {
    await source.apply(['mine-to-drop'], { from: 'test' });
    await eventually(
      "the test source's copy in its cache",
      async () => cache.get('cluster1', `${NSX}/mine-to-drop`),
      (o) => o !== undefined,
    );
    const dropped = await source.apply([], {}, ['mine-to-drop']);
    assert.equal(dropped.clusters.get('cluster1')?.objects[0]?.status, 'WaitingForRemoval');
    await eventually(
      'the dropped copy deleted',
      () => getOrUndefined(c1, CM, 'mine-to-drop', NSX),
      (o) => o === undefined,
    );
  });
});
