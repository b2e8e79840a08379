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
const urls: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen++;
    urls.push(req.url ?? '');
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

const client = (opts: KubeClientOptions, server = base) =>
  new KubeClient(
    {
      contextName: 'fake',
      clusterName: 'fake',
      userName: 'fake',
      server,
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

test('a server URL with a path prefixes every request, queries kept; errors name the client', async () => {
  urls.length = 0;
  const c = client({ qps: 0, name: 'rancher-c1', maxThrottleRetries: 0 }, `${base}/k8s/clusters/c-1`);
  await c.request('GET', '/api/v1/namespaces/default');
  await c.requestRaw('GET', '/healthz');
  await c.list(
    { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true },
    {
      namespace: 'ns',
      labelSelector: 'a=b',
    },
  );
  assert.deepEqual(urls, [
    '/k8s/clusters/c-1/api/v1/namespaces/default',
    '/k8s/clusters/c-1/healthz',
    '/k8s/clusters/c-1/apis/apps/v1/namespaces/ns/deployments?labelSelector=a%3Db',
  ]);
  throttleNext = 1;
  await assert.rejects(c.request('GET', '/api/v1/namespaces/default'), {
    statusCode: 429,
    cluster: 'rancher-c1',
  });
  throttleNext = 0;
  // Nothing listens on port 1: no answer at all.
  const down = client({ qps: 0, name: 'down' }, 'http://127.0.0.1:1/k8s/clusters/c-2');
  await assert.rejects(down.request('GET', '/version'), {
    name: 'TransportError',
    cluster: 'down',
    url: 'http://127.0.0.1:1/k8s/clusters/c-2/version',
  });
  await Promise.all([c.close(), down.close()]);
});
