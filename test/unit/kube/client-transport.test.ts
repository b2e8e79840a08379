import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { KubeClient, type KubeClientOptions } from '../../../src/kube/client/index.ts';

/**
 * A loopback HTTP server for what a real apiserver will not do on demand: answer 429 with Retry-After,
 * and count requests as they arrive so client-side throttling is visible.
 */
let server: Server;
let base = '';
let seen = 0;
let throttleNext = 0;

before(async () => {
  server = createServer((_req, res) => {
    seen++;
    res.setHeader('content-type', 'application/json');
    if (throttleNext > 0) {
      throttleNext--;
      res.writeHead(429, { 'retry-after': '1' });
      res.end(JSON.stringify({ kind: 'Status', reason: 'TooManyRequests', message: 'slow down', code: 429 }));
      return;
    }
    res.end(JSON.stringify({ kind: 'Namespace', metadata: { name: 'default' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = (opts: KubeClientOptions) =>
  new KubeClient(
    {
      contextName: 'fake',
      clusterName: 'fake',
      userName: 'fake',
      server: base,
      insecureSkipTLSVerify: false,
    },
    opts,
  );

test('client-side QPS/burst: requests beyond the burst wait for tokens', async () => {
  seen = 0;
  const c = client({ qps: 1, burst: 2 });
  const all = Promise.all([1, 2, 3].map(() => c.request('GET', '/api/v1/namespaces/default')));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(seen, 2, 'the burst goes out at once; the third waits for the next token (1 per second)');
  await all;
  assert.equal(seen, 3);
  await c.close();
});

test('429 is retried after Retry-After, and given up after maxThrottleRetries', async () => {
  seen = 0;
  throttleNext = 1;
  const c = client({ qps: 0 });
  const ns = await c.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default');
  assert.equal(ns.metadata.name, 'default');
  assert.equal(seen, 2, 'one throttled attempt, one retry');

  seen = 0;
  throttleNext = 5;
  const impatient = client({ qps: 0, maxThrottleRetries: 0 });
  await assert.rejects(impatient.request('GET', '/api/v1/namespaces/default'), {
    statusCode: 429,
    reason: 'TooManyRequests',
  });
  assert.equal(seen, 1);
  throttleNext = 0;
  await Promise.all([c.close(), impatient.close()]);
});
