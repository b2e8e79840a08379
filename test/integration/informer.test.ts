import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CoreTypes, type KubeClient, type KubeObject } from '../../src/kube/client/index.ts';
import { Informer } from '../../src/runtime/informer/index.ts';
import { type Federation, startFederation } from '../../src/testing/federation.ts';
import { waitFor } from '../../src/testing/ports.ts';

const cm = (name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { value },
});

/**
 * Client-side TCP sockets to the port in any state (from /proc/net/tcp): closed connections linger in
 * TIME_WAIT, so a client that opened a connection per request would show one socket per request.
 */
function socketsTo(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => {
      const cols = l.trim().split(/\s+/);
      return cols[2]?.endsWith(`:${hex}`);
    }).length;
}

/** A started informer on the default namespace's ConfigMaps that retries quickly after a failure. */
function configMapInformer(client: KubeClient): Informer<KubeObject> {
  const inf = new Informer<KubeObject>({
    client,
    type: CoreTypes.configMaps,
    namespace: 'default',
    backoffInitialMs: 200,
    backoffMaxMs: 1000,
  });
  inf.start();
  return inf;
}

/** Creates a ConfigMap through `client` and waits until the informer has it. */
async function createAndSee(client: KubeClient, inf: Informer<KubeObject>, name: string): Promise<void> {
  await client.create(CoreTypes.configMaps, cm(name, 'x'));
  await waitFor('the informer to see the new object', async () => Boolean(inf.store.get(`default/${name}`)), {
    timeoutMs: 20_000,
  });
}

describe('client and informer against a real apiserver', () => {
  let fed: Federation;
  let client: KubeClient;

  before(async () => {
    fed = await startFederation({ members: [] });
    client = fed.host.client();
  });
  after(async () => {
    await fed?.stop();
  });

  test('sequential requests reuse one keep-alive connection', async () => {
    const port = Number(new URL(fed.host.server).port);
    const before = socketsTo(port);
    const c = fed.host.client();
    for (let i = 0; i < 20; i++) await c.get(CoreTypes.namespaces, 'default');
    const opened = socketsTo(port) - before;
    assert.ok(opened <= 1, `20 requests opened ${opened} connections`);
    await c.close();
  });

  test('open watches do not take the connections ordinary requests need', async () => {
    // A member client serves one informer per watched kind and every write to that member. Over HTTP/1.1 a
    // watch holds a pooled connection for its life, so with more kinds than connections writes and relists
    // would wait behind watches that never end; over HTTP/2 (undici's default on TLS, as client-go's) each
    // watch is one stream of a shared connection.
    const c = fed.host.client().fork({ connections: 2 });
    const stop = new AbortController();
    const answered: string[] = [];
    const watches = ['a', 'b', 'c'].map((name) =>
      c.watch('/api/v1/namespaces/default/configmaps', { fieldSelector: `metadata.name=${name}` }, () => {}, {
        signal: stop.signal,
      }),
    );
    try {
      // Each watch holds its stream open; the server answers a watch's headers at once.
      await new Promise((r) => setTimeout(r, 500));
      for (let i = 0; i < 5; i++) {
        const ns = await c.request<KubeObject>('GET', '/api/v1/namespaces/default', { timeoutMs: 5_000 });
        answered.push(ns.metadata.name ?? '');
      }
      assert.deepEqual(answered, ['default', 'default', 'default', 'default', 'default']);
    } finally {
      stop.abort();
      assert.deepEqual(await Promise.all(watches), ['aborted', 'aborted', 'aborted']);
      await c.close();
    }
  });

  test('the informer lists, then follows adds, updates and deletes through its watch', async () => {
    await client.create(CoreTypes.configMaps, cm('before', '1'));
    const events: string[] = [];
    const inf = new Informer({ client, type: CoreTypes.configMaps, namespace: 'default' });
    inf.addHandlers({
      onAdd: (o) => events.push(`add ${o.metadata.name}`),
      onUpdate: (_o, n) =>
        events.push(`update ${n.metadata.name} ${(n.data as Record<string, string>).value}`),
      onDelete: (o) => events.push(`delete ${o.metadata.name}`),
    });
    inf.start();
    try {
      await inf.waitForSync();
      assert.ok(inf.hasSynced());
      assert.ok(inf.store.get('default/before'), 'listed object cached');
      assert.equal(inf.store.get('default/before')?.kind, 'ConfigMap', 'list items get their kind');
      await client.create(CoreTypes.configMaps, cm('after', '1'));
      await client.patch(CoreTypes.configMaps, 'after', { data: { value: '2' } }, { namespace: 'default' });
      await client.delete(CoreTypes.configMaps, 'after', { namespace: 'default' });
      await waitFor('the watch events', async () => events.includes('delete after'), { timeoutMs: 10_000 });
      assert.deepEqual(
        events.filter((e) => e.includes('after')),
        ['add after', 'update after 2', 'delete after'],
      );
      assert.equal(inf.store.get('default/after'), undefined);
    } finally {
      await inf.stop();
    }
  });

  test('a watch on an apiserver that hangs is given up by its HTTP/2 PING, and the informer catches up after', async () => {
    // No byte arrives on a quiet watch for minutes (the server sends no bookmark when nothing changed), so
    // the informer waits past the watch's own timeout before calling it stalled; a hung server is found
    // sooner by the connection's unanswered PING. Here every 300 ms instead of every 30 s.
    const c = fed.host.client().fork({ pingIntervalMs: 300 });
    const inf = configMapInformer(c);
    try {
      await inf.waitForSync();
      assert.equal(inf.lastError, undefined);
      fed.host.api.freeze(true);
      try {
        await waitFor('the informer to give its watch up', async () => inf.lastError !== undefined, {
          timeoutMs: 10_000,
        });
      } finally {
        fed.host.api.freeze(false);
      }
      await createAndSee(client, inf, 'after-hang');
    } finally {
      await inf.stop();
      await c.close();
    }
  });

  test('the informer survives an apiserver restart and catches up on what changed meanwhile', async () => {
    const inf = configMapInformer(client);
    try {
      await inf.waitForSync();
      await fed.host.stopApiServer();
      await new Promise((r) => setTimeout(r, 1500)); // several failed reconnects
      await fed.host.startApiServer();
      await createAndSee(client, inf, 'while-away');
    } finally {
      await inf.stop();
    }
  });
});
