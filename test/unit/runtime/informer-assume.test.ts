import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CoreTypes, type KubeObject } from '../../../src/kube/client/index.ts';
import { Informer } from '../../../src/runtime/informer/index.ts';
import { waitFor } from '../../../src/testing/ports.ts';
import { loopbackClient } from './loopback-client.ts';

/**
 * A loopback server whose watch sends events only when the test says so, to pin down Informer.assume
 * against the order of events (a real apiserver delivers the watch event at a time the test cannot choose).
 */
let server: Server;
let base = '';
let watch: ServerResponse | undefined;

const cm = (name: string, rv: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: rv },
  data: { value },
});

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.searchParams.get('watch') !== 'true') {
      res.end(
        JSON.stringify({
          kind: 'ConfigMapList',
          metadata: { resourceVersion: '5' },
          items: [cm('a', '5', '1')],
        }),
      );
      return;
    }
    res.writeHead(200);
    res.write('');
    watch = res;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** A started informer over the loopback server (list: `a` at resourceVersion 5), what its handlers heard, and a way to send watch events. */
async function startInformer(beforeStart?: (inf: Informer) => void) {
  watch = undefined;
  const client = loopbackClient(base);
  const inf = new Informer({ client, type: CoreTypes.configMaps, namespace: 'default' });
  const events: string[] = [];
  inf.addHandlers({
    onAdd: (o) => events.push(`add ${o.metadata.name} ${o.metadata.resourceVersion}`),
    onUpdate: (_o, n) => events.push(`update ${n.metadata.name} ${n.metadata.resourceVersion}`),
    onDelete: (o) => events.push(`delete ${o.metadata.name}`),
  });
  beforeStart?.(inf);
  inf.start();
  await inf.waitForSync();
  await waitFor('the watch to open', async () => watch !== undefined, { timeoutMs: 5000 });
  events.length = 0;
  // Set by the server once the watch opens (TypeScript still sees the `undefined` assigned above).
  const stream = watch as ServerResponse | undefined;
  const send = (type: string, obj: KubeObject) => stream?.write(`${JSON.stringify({ type, object: obj })}\n`);
  /** Sends a marker event of another object and waits for it: every event sent before has been handled. */
  let marks = 0;
  const flush = async () => {
    const name = `mark${marks++}`;
    send('ADDED', cm(name, '1', ''));
    await waitFor(`the ${name} event`, async () => events.includes(`add ${name} 1`), { timeoutMs: 5000 });
    events.splice(events.indexOf(`add ${name} 1`), 1);
  };
  const stop = async () => {
    await inf.stop();
    await client.close();
  };
  return { inf, events, send, flush, stop };
}

/** A write the test answers when it chooses. */
function pendingWrite<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const rvOf = (inf: Informer, key: string) => inf.store.get(key)?.metadata.resourceVersion;

test("assume shows the process's own writes at once, only over what they replaced, and their watch events report nothing", async () => {
  const { inf, events, send, flush, stop } = await startInformer((i) =>
    assert.equal(i.assume(cm('a', '6', '2'), '5'), false, 'nothing is assumed before the first list'),
  );
  try {
    // An update of what the cache holds, and a create of what it does not: both visible at once.
    assert.equal(inf.assume(cm('a', '6', '2'), '5'), true);
    assert.equal(inf.assume(cm('b', '7', '1'), undefined), true);
    assert.equal(rvOf(inf, 'default/a'), '6');
    assert.equal(rvOf(inf, 'default/b'), '7');
    // A write based on a version the cache no longer holds is not assumed.
    assert.equal(inf.assume(cm('a', '8', 'stale'), '5'), false);
    assert.equal(inf.assume(cm('b', '9', 'again'), undefined), false);
    assert.equal(rvOf(inf, 'default/a'), '6');

    // The watch events of the assumed writes change nothing cached, so no handler hears of them …
    send('MODIFIED', cm('a', '6', '2'));
    send('ADDED', cm('b', '7', '1'));
    // … while someone else's later change is reported as usual.
    send('MODIFIED', cm('a', '10', '3'));
    await flush();
    assert.deepEqual(events, ['update a 10']);
    assert.equal((inf.store.get('default/a')?.data as Record<string, string> | undefined)?.value, '3');
  } finally {
    await stop();
  }
});

test("ownWrite: a watch event that beats the response is the write's own, and no handler hears of it", async () => {
  const { inf, events, send, flush, stop } = await startInformer();
  try {
    const w = pendingWrite<KubeObject>();
    const echoes: string[] = [];
    const done = inf.ownWrite(
      'default/a',
      () => w.promise,
      (object) => ({ object, replaced: '5' }),
      (o) => echoes.push(`${o.metadata.name} ${o.metadata.resourceVersion}`),
    );
    send('MODIFIED', cm('a', '6', '2'));
    await flush();
    // The store shows it at once; the handlers wait for the answer.
    assert.equal(rvOf(inf, 'default/a'), '6');
    assert.deepEqual(events, []);
    w.resolve(cm('a', '6', '2'));
    await done;
    assert.deepEqual(events, [], "the event was the write's own");
    assert.deepEqual(echoes, ['a 6'], 'onEcho hears of it instead (for the readers that did not write)');
    // The next change is someone else's, and reported.
    send('MODIFIED', cm('a', '7', '3'));
    await flush();
    assert.deepEqual(events, ['update a 7']);
  } finally {
    await stop();
  }
});

test('ownWrite: a change by someone else while the write is in flight is reported once it is answered', async () => {
  const { inf, events, send, flush, stop } = await startInformer();
  try {
    // Our write loses (409): the other writer's event is reported after the failure, not lost.
    const w = pendingWrite<KubeObject>();
    const done = inf.ownWrite(
      'default/a',
      () => w.promise,
      (object) => ({ object, replaced: '5' }),
    );
    send('MODIFIED', cm('a', '7', 'theirs'));
    await flush();
    assert.deepEqual(events, []);
    w.reject(new Error('409'));
    await assert.rejects(done);
    assert.deepEqual(events, ['update a 7']);
    // A write that writes nothing (`written` says undefined) releases what it held the same way.
    events.length = 0;
    const unchanged = pendingWrite<string>();
    const nothing = inf.ownWrite(
      'default/a',
      () => unchanged.promise,
      () => undefined,
    );
    send('DELETED', cm('a', '8', 'theirs'));
    await flush();
    assert.deepEqual(events, [], 'held while the write is in flight');
    unchanged.resolve('unchanged');
    await nothing;
    assert.deepEqual(events, ['delete a']);
  } finally {
    await stop();
  }
});

test('ownWrite: writes in a row answered before their events: the late events neither report nor revert', async () => {
  const { inf, events, send, flush, stop } = await startInformer();
  try {
    // A finalizer, then the status: each answered before its watch event arrives.
    const echoes: string[] = [];
    const onEcho = (o: KubeObject) => echoes.push(o.metadata.resourceVersion ?? '');
    await inf.ownWrite(
      'default/a',
      async () => cm('a', '6', 'finalizer'),
      (object) => ({ object, replaced: '5' }),
      onEcho,
    );
    await inf.ownWrite(
      'default/a',
      async () => cm('a', '7', 'status'),
      (object) => ({ object, replaced: '6' }),
      onEcho,
    );
    assert.equal(rvOf(inf, 'default/a'), '7');
    send('MODIFIED', cm('a', '6', 'finalizer'));
    await flush();
    assert.equal(rvOf(inf, 'default/a'), '7', "the earlier write's event does not put the older object back");
    send('MODIFIED', cm('a', '7', 'status'));
    await flush();
    assert.deepEqual(events, []);
    assert.deepEqual(echoes, ['6', '7'], 'onEcho hears of each instead');
    send('MODIFIED', cm('a', '9', 'theirs'));
    await flush();
    assert.deepEqual(events, ['update a 9']);
    assert.equal((inf.store.get('default/a')?.data as Record<string, string> | undefined)?.value, 'theirs');
  } finally {
    await stop();
  }
});
