import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type IngressClusterDns, ingressDnsStatus, ingressEndpoints } from '../../../src/dns/index.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';

const ingress = (loadBalancer: unknown): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'web', namespace: 'test' },
  status: { loadBalancer },
});
const noLookups = (hostname: string): string[] => assert.fail(`unexpected lookup of ${hostname}`);

describe('ingressDnsStatus', () => {
  test('ready clusters get their member Ingress load balancer, sorted; no Ingress means none', () => {
    const got = ingressDnsStatus({
      clusters: [
        {
          name: 'c2',
          ready: true,
          ingress: ingress({ ingress: [{ ip: '198.51.100.3' }, { ip: '198.51.100.2' }] }),
        },
        { name: 'c1', ready: true, ingress: ingress({ ingress: [{ hostname: 'lb.example.net' }] }) },
        { name: 'c3', ready: true },
      ],
      previous: undefined,
    });
    assert.deepEqual(got, {
      dns: [
        { cluster: 'c1', loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } },
        { cluster: 'c2', loadBalancer: { ingress: [{ ip: '198.51.100.2' }, { ip: '198.51.100.3' }] } },
        { cluster: 'c3', loadBalancer: {} },
      ],
      problems: [],
    });
  });

  test('an unready cluster that had an entry keeps it without a load balancer', () => {
    const lb = { ingress: [{ ip: '198.51.100.2' }] };
    const got = ingressDnsStatus({
      clusters: [
        { name: 'c1', ready: false, ingress: ingress(lb) },
        { name: 'c2', ready: false, ingress: ingress(lb) },
      ],
      previous: [{ cluster: 'c1', loadBalancer: lb }],
    });
    assert.deepEqual(got.dns, [{ cluster: 'c1', loadBalancer: {} }]);
  });

  test('malformed load-balancer status is reported, not thrown', () => {
    const got = ingressDnsStatus({
      clusters: [
        { name: 'c1', ready: true, ingress: ingress({ ingress: [{ ip: 'nope' }, { ip: '198.51.100.2' }] }) },
      ],
      previous: [],
    });
    assert.deepEqual(got, {
      dns: [{ cluster: 'c1', loadBalancer: { ingress: [{ ip: '198.51.100.2' }] } }],
      problems: ['cluster "c1": load balancer ingress ip "nope" is not an IPv4 or IPv6 address'],
    });
  });
});

describe('ingressEndpoints', () => {
  const dns: IngressClusterDns[] = [
    { cluster: 'c1', loadBalancer: { ingress: [{ ip: '198.51.100.2' }] } },
    { cluster: 'c2', loadBalancer: { ingress: [{ ip: '198.51.100.1' }, { ip: '198.51.100.2' }] } },
    { cluster: 'c3', loadBalancer: {} },
  ];

  test('each host is an A record with every cluster load balancer', () => {
    assert.deepEqual(
      ingressEndpoints({ hosts: ['foo.example.com', 'bar.example.com'], dns, resolve: noLookups }),
      [
        {
          dnsName: 'bar.example.com',
          targets: ['198.51.100.1', '198.51.100.2'],
          recordType: 'A',
          recordTTL: 180,
        },
        {
          dnsName: 'foo.example.com',
          targets: ['198.51.100.1', '198.51.100.2'],
          recordType: 'A',
          recordTTL: 180,
        },
      ],
    );
  });

  test('user TTL; repeated and empty hosts collapse', () => {
    assert.deepEqual(
      ingressEndpoints({
        hosts: ['foo.example.com', '', 'foo.example.com'],
        ttl: 60,
        dns,
        resolve: noLookups,
      }),
      [
        {
          dnsName: 'foo.example.com',
          targets: ['198.51.100.1', '198.51.100.2'],
          recordType: 'A',
          recordTTL: 60,
        },
      ],
    );
  });

  test('no targets: no record (there is no level to fall back to)', () => {
    const empty: IngressClusterDns[] = [{ cluster: 'c1', loadBalancer: {} }];
    assert.deepEqual(ingressEndpoints({ hosts: ['foo.example.com'], dns: empty, resolve: noLookups }), []);
    assert.deepEqual(ingressEndpoints({ hosts: ['foo.example.com'], dns: [], resolve: noLookups }), []);
    const unresolvable: IngressClusterDns[] = [
      { cluster: 'c1', loadBalancer: { ingress: [{ hostname: 'gone.example.net' }] } },
    ];
    assert.deepEqual(
      ingressEndpoints({ hosts: ['foo.example.com'], dns: unresolvable, resolve: () => [] }),
      [],
    );
  });

  test('no hosts: no records', () => {
    assert.deepEqual(ingressEndpoints({ hosts: [], dns, resolve: noLookups }), []);
  });

  test('hostname targets are resolved, or published as a CNAME with hostnamesAsCname', () => {
    const named: IngressClusterDns[] = [
      { cluster: 'c1', loadBalancer: { ingress: [{ hostname: 'b.elb.example.net' }] } },
      { cluster: 'c2', loadBalancer: { ingress: [{ hostname: 'a.elb.example.net' }] } },
    ];
    const lookups: Record<string, string[]> = {
      'a.elb.example.net': ['203.0.113.1'],
      'b.elb.example.net': ['203.0.113.2'],
    };
    const resolve = (h: string) => lookups[h] ?? [];
    assert.deepEqual(ingressEndpoints({ hosts: ['foo.example.com'], dns: named, resolve }), [
      {
        dnsName: 'foo.example.com',
        targets: ['203.0.113.1', '203.0.113.2'],
        recordType: 'A',
        recordTTL: 180,
      },
    ]);
    assert.deepEqual(
      ingressEndpoints({
        hosts: ['foo.example.com'],
        dns: named,
        resolve: noLookups,
        hostnamesAsCname: true,
      }),
      [{ dnsName: 'foo.example.com', targets: ['a.elb.example.net'], recordType: 'CNAME', recordTTL: 180 }],
    );
    // With an IP among the targets the record stays A and hostnames are resolved.
    assert.deepEqual(
      ingressEndpoints({
        hosts: ['foo.example.com'],
        dns: [...named, ...dns],
        resolve,
        hostnamesAsCname: true,
      }),
      [
        {
          dnsName: 'foo.example.com',
          targets: ['198.51.100.1', '198.51.100.2', '203.0.113.1', '203.0.113.2'],
          recordType: 'A',
          recordTTL: 180,
        },
      ],
    );
  });

  test('endpoints do not share target arrays', () => {
    const got = ingressEndpoints({ hosts: ['a.example.com', 'b.example.com'], dns, resolve: noLookups });
    got[0]!.targets.push('mutated');
    assert.deepEqual(got[1]!.targets, ['198.51.100.1', '198.51.100.2']);
  });
});
