import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CoreTypes, KubeClient, type KubeObject } from '../../../src/kube/client/index.ts';
import { Informer } from '../../../src/runtime/informer/index.ts';
import { waitFor } from '../../../src/testing/ports.ts';

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

test("assume shows the process's own writes at once, only over what they replaced, and their watch events report nothing", async () => {
  const client = new KubeClient(
    {
      contextName: 'fake',
      clusterName: 'fake',
      userName: 'fake',
      server: base,
      insecureSkipTLSVerify: false,
    },
    { name: 'fake' },
  );
  const inf = new Informer({ client, type: CoreTypes.configMaps, namespace: 'default' });
  const events: string[] = [];
  inf.addHandlers({
    onAdd: (o) => events.push(`add ${o.metadata.name} ${o.metadata.resourceVersion}`),
    onUpdate: (_o, n) => events.push(`update ${n.metadata.name} ${n.metadata.resourceVersion}`),
  });
  assert.equal(inf.assume(cm('a', '6', '2'), '5'), false, 'nothing is assumed before the first list');
  inf.start();
  try {
    await inf.waitForSync();
    await waitFor('the watch to open', async () => watch !== undefined, { timeoutMs: 5000 });
    events.length = 0;

    // An update of what the cache holds, and a create of what it does not: both visible at once.
    assert.equal(inf.assume(cm('a', '6', '2'), '5'), true);
    assert.equal(inf.assume(cm('b', '7', '1'), undefined), true);
    assert.equal(inf.store.get('default/a')?.metadata.resourceVersion, '6');
    assert.equal(inf.store.get('default/b')?.metadata.resourceVersion, '7');
    // A write based on a version the cache no longer holds is not assumed.
    assert.equal(inf.assume(cm('a', '8', 'stale'), '5'), false);
    assert.equal(inf.assume(cm('b', '9', 'again'), undefined), false);
    assert.equal(inf.store.get('default/a')?.metadata.resourceVersion, '6');

    const send = (type: string, obj: KubeObject) =>
      watch?.write(`${JSON.stringify({ type, object: obj })}\n`);
    // The watch events of the assumed writes change nothing cached, so no handler hears of them …
    send('MODIFIED', cm('a', '6', '2'));
    send('ADDED', cm('b', '7', '1'));
    // … while someone else's later change is reported as usual.
    send('MODIFIED', cm('a', '10', '3'));
    await waitFor('the foreign update', async () => events.includes('update a 10'), { timeoutMs: 5000 });
    assert.deepEqual(events, ['update a 10']);
    assert.equal((inf.store.get('default/a')?.data as Record<string, string> | undefined)?.value, '3');
  } finally {
    await inf.stop();
    await client.close();
  }
});
