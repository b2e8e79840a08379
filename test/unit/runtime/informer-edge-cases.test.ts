import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CoreTypes } from '../../../src/kube/client/index.ts';
import { Informer } from '../../../src/runtime/informer/index.ts';
import { loopbackClient } from './loopback-client.ts';

/**
 * A narrow fake API server for what a real one will not do on demand: answer a watch with 410 Gone, and
 * hold a watch open while sending nothing. Both behaviours are also exercised against real apiservers in
 * the integration suite (restart, relist); this pins the exact reflector reactions.
 */
const requests: string[] = [];
let lists = 0;
let watches = 0;
const openWatches: ServerResponse[] = [];
let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const isWatch = url.searchParams.get('watch') === 'true';
    requests.push(`${isWatch ? 'watch' : 'list'} rv=${url.searchParams.get('resourceVersion') ?? ''}`);
    res.setHeader('content-type', 'application/json');
    if (!isWatch) {
      lists++;
      const items =
        lists === 1
          ? [{ metadata: { name: 'a', namespace: 'default', resourceVersion: '5' } }]
          : [{ metadata: { name: 'b', namespace: 'default', resourceVersion: '15' } }];
      res.end(
        JSON.stringify({
          kind: 'ConfigMapList',
          metadata: { resourceVersion: lists === 1 ? '10' : '20' },
          items,
        }),
      );
      return;
    }
    watches++;
    res.writeHead(200);
    if (watches === 1) {
      // The resourceVersion we hold was compacted away.
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`,
      );
      return;
    }
    openWatches.push(res);
    if (watches === 3) {
      res.write(
        `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'c', namespace: 'default', resourceVersion: '21' } } })}\n`,
      );
    }
    // watch 2 stays silent: the watchdog must notice.
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const r of openWatches) r.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('410 Gone relists (deleting what vanished); a silent watch is re-opened from the same resourceVersion', async () => {
  const client = loopbackClient(base);
  const events: string[] = [];
  const inf = new Informer({ client, type: CoreTypes.configMaps, namespace: 'default', inactivityMs: 300 });
  inf.addHandlers({
    onAdd: (o) => events.push(`add ${o.metadata.name}`),
    onDelete: (o) => events.push(`delete ${o.metadata.name}`),
  });
  inf.start();
  const deadline = Date.now() + 10_000;
  while (!events.includes('add c') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await inf.stop();
  await client.close();
  assert.deepEqual(events, ['add a', 'add b', 'delete a', 'add c']);
  assert.deepEqual(requests.slice(0, 5), [
    'list rv=',
    'watch rv=10',
    'list rv=',
    'watch rv=20',
    'watch rv=20',
  ]);
});
