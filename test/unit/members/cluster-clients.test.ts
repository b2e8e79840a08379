import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeFedCluster } from '../../../src/api/core/v1beta1/index.ts';
import { ClusterClients } from '../../../src/members/cluster-clients.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const cluster = (apiEndpoint: string): KubeFedCluster => ({
  metadata: { name: 'c1', namespace: 'kube-federation-system' },
  spec: { apiEndpoint, secretRef: { name: 's' } },
});
const secret = (resourceVersion: string) => ({
  metadata: { name: 's', resourceVersion },
  data: { token: b64('abc') },
});

test('one client per cluster until its spec or its Secret changes', async () => {
  const clients = new ClusterClients();
  try {
    const c = cluster('https://10.0.0.1:6443');
    const first = clients.clientFor(c, secret('1'));
    assert.equal(clients.clientFor(c, secret('1')), first, 'the same spec object and Secret version');
    assert.equal(
      clients.clientFor(cluster('https://10.0.0.1:6443'), secret('1')),
      first,
      'an equal spec in another object (a re-listed cluster)',
    );
    const rotated = clients.clientFor(c, secret('2'));
    assert.notEqual(rotated, first, 'a new Secret version: a rotated token');
    const moved = clients.clientFor(cluster('https://10.0.0.2:6443'), secret('2'));
    assert.notEqual(moved, rotated, 'a changed endpoint');
    assert.equal(clients.get('c1'), moved);
  } finally {
    await clients.closeAll();
  }
});
