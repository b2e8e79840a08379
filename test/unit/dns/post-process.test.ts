import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  dnsEndpointName,
  type Endpoint,
  endpointsEqual,
  hostnamesToResolve,
  postProcess,
} from '../../../src/dns/index.ts';

describe('postProcess (KubeFed DedupeAndMergeEndpoints)', () => {
  test('sorts by name, drops empty targets and endpoints left without any', () => {
    const input: Endpoint[] = [
      { dnsName: 'b.example.com', targets: ['', '198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: 'c.example.com', targets: [''], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: 'a.example.com', targets: [], recordType: 'A', recordTTL: 180 },
      { dnsName: 'a.example.org', targets: ['x.example.com'], recordType: 'CNAME', recordTTL: 180 },
    ];
    assert.deepEqual(postProcess(input), [
      { dnsName: 'a.example.org', targets: ['x.example.com'], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: 'b.example.com', targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('equal names of differing types keep the A record, whichever came first', () => {
    const a: Endpoint = {
      dnsName: 'n.example.com',
      targets: ['198.51.100.1'],
      recordType: 'A',
      recordTTL: 180,
    };
    const cname: Endpoint = {
      dnsName: 'n.example.com',
      targets: ['up.example.com'],
      recordType: 'CNAME',
      recordTTL: 180,
    };
    assert.deepEqual(postProcess([cname, a]), [a]);
    assert.deepEqual(postProcess([a, cname]), [a]);
    assert.deepEqual(postProcess([cname, a, cname]), [a]);
  });

  test('equal names of equal type take the sorted, de-duplicated union', () => {
    assert.deepEqual(
      postProcess([
        {
          dnsName: 'n.example.com',
          targets: ['198.51.100.3', '198.51.100.1'],
          recordType: 'A',
          recordTTL: 180,
        },
        {
          dnsName: 'n.example.com',
          targets: ['198.51.100.1', '198.51.100.2'],
          recordType: 'A',
          recordTTL: 180,
        },
        { dnsName: 'm.example.com', targets: ['up.example.com'], recordType: 'CNAME', recordTTL: 180 },
        { dnsName: 'm.example.com', targets: ['up.example.com'], recordType: 'CNAME', recordTTL: 180 },
      ]),
      [
        { dnsName: 'm.example.com', targets: ['up.example.com'], recordType: 'CNAME', recordTTL: 180 },
        {
          dnsName: 'n.example.com',
          targets: ['198.51.100.1', '198.51.100.2', '198.51.100.3'],
          recordType: 'A',
          recordTTL: 180,
        },
      ],
    );
  });

  test('does not modify its input', () => {
    const input: Endpoint[] = [
      { dnsName: 'n.example.com', targets: ['198.51.100.2', ''], recordType: 'A', labels: { k: 'v' } },
      { dnsName: 'n.example.com', targets: ['198.51.100.1'], recordType: 'A', labels: { k: 'v' } },
    ];
    const copy = structuredClone(input);
    const out = postProcess(input);
    out[0]!.labels!['k'] = 'changed';
    assert.deepEqual(input, copy);
  });
});

describe('endpointsEqual', () => {
  const e: Endpoint = {
    dnsName: 'n.example.com',
    targets: ['198.51.100.1'],
    recordType: 'A',
    recordTTL: 180,
    labels: { a: '1', b: '2' },
  };

  test('deep equality on the wire fields', () => {
    assert.equal(endpointsEqual([], []), true);
    assert.equal(endpointsEqual([e], [structuredClone(e)]), true);
    assert.equal(
      endpointsEqual([e], [{ ...e, labels: { b: '2', a: '1' } }]),
      true,
      'label order is irrelevant',
    );
    assert.equal(endpointsEqual([e], [{ ...e, targets: ['198.51.100.2'] }]), false);
    assert.equal(endpointsEqual([e], [{ ...e, recordType: 'CNAME' }]), false);
    assert.equal(endpointsEqual([e], [{ ...e, recordTTL: 60 }]), false);
    assert.equal(endpointsEqual([e], [{ ...e, labels: { a: '1' } }]), false);
    assert.equal(endpointsEqual([e], [e, e]), false);
  });

  test('omitempty equivalents: TTL 0 and unset, labels empty and unset', () => {
    const bare: Endpoint = { dnsName: 'n.example.com', targets: ['198.51.100.1'], recordType: 'A' };
    assert.equal(endpointsEqual([bare], [{ ...bare, recordTTL: 0, labels: {} }]), true);
  });

  test('order-sensitive for endpoints and targets', () => {
    const f: Endpoint = { ...e, dnsName: 'o.example.com' };
    assert.equal(endpointsEqual([e, f], [f, e]), false);
    assert.equal(
      endpointsEqual(
        [{ ...e, targets: ['1.1.1.1', '2.2.2.2'] }],
        [{ ...e, targets: ['2.2.2.2', '1.1.1.1'] }],
      ),
      false,
    );
  });

  test('fields outside Endpoint are ignored', () => {
    const server = { ...e, providerSpecific: [], setIdentifier: '' } as Endpoint;
    assert.equal(endpointsEqual([e], [server]), true);
  });
});

describe('names and helpers', () => {
  test('dnsEndpointName', () => {
    assert.equal(dnsEndpointName('service', 'nginx'), 'service-nginx');
    assert.equal(dnsEndpointName('ingress', 'web'), 'ingress-web');
  });

  test('hostnamesToResolve lists every load-balancer hostname once, sorted', () => {
    assert.deepEqual(
      hostnamesToResolve([
        { loadBalancer: { ingress: [{ hostname: 'b.example.net' }, { ip: '198.51.100.1' }] } },
        { loadBalancer: { ingress: [{ hostname: 'a.example.net' }, { hostname: 'b.example.net' }] } },
        { loadBalancer: {} },
      ]),
      ['a.example.net', 'b.example.net'],
    );
  });
});
