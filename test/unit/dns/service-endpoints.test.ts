import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ClusterDns,
  type Endpoint,
  type LoadBalancerStatus,
  serviceEndpoints,
} from '../../../src/dns/index.ts';

// Service nginx in namespace test, Domain galactic with zone example.com.
const G = 'nginx.test.galactic.svc.example.com';
const R1 = 'nginx.test.galactic.svc.us-central1.example.com';
const Z1a = 'nginx.test.galactic.svc.us-central1-a.us-central1.example.com';
const Z1b = 'nginx.test.galactic.svc.us-central1-b.us-central1.example.com';
const R2 = 'nginx.test.galactic.svc.europe-west1.example.com';
const Z2b = 'nginx.test.galactic.svc.europe-west1-b.europe-west1.example.com';

const noLookups = (hostname: string): string[] => assert.fail(`unexpected lookup of ${hostname}`);
const base = {
  recordName: 'nginx',
  namespace: 'test',
  domainRef: 'galactic',
  domain: 'example.com',
  resolve: noLookups,
};

const ips = (...list: string[]): LoadBalancerStatus =>
  list.length ? { ingress: list.map((ip) => ({ ip })) } : {};
const c1 = (loadBalancer: LoadBalancerStatus = ips('198.51.100.1')): ClusterDns => ({
  cluster: 'c1',
  loadBalancer,
  zones: ['us-central1-a'],
  region: 'us-central1',
});

describe('serviceEndpoints', () => {
  test('no clusters: no endpoints', () => {
    assert.deepEqual(serviceEndpoints({ ...base, dns: [] }), []);
  });

  test('one cluster with a load balancer: A records at zone, region and global level', () => {
    assert.deepEqual(serviceEndpoints({ ...base, dns: [c1()] }), [
      { dnsName: G, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('one cluster without a load balancer: CNAMEs up the levels, the global name is dropped', () => {
    assert.deepEqual(serviceEndpoints({ ...base, dns: [c1({})] }), [
      { dnsName: Z1a, targets: [R1], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R1, targets: [G], recordType: 'CNAME', recordTTL: 180 },
    ]);
  });

  test('several load balancers in one cluster: every address, sorted', () => {
    const dns = [c1(ips('198.51.100.20', '198.51.100.3', '198.51.100.20'))];
    const targets = ['198.51.100.20', '198.51.100.3']; // string order, as KubeFed's sorted sets
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets, recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets, recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets, recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('several zones in one cluster: one zone name per zone', () => {
    const dns: ClusterDns[] = [{ ...c1(), zones: ['us-central1-a', 'us-central1-b'] }];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1b, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('two clusters in one region: the region and global names carry both, each zone its own', () => {
    const dns: ClusterDns[] = [
      c1(),
      { cluster: 'c2', loadBalancer: ips('198.51.100.2'), zones: ['us-central1-b'], region: 'us-central1' },
    ];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets: ['198.51.100.1', '198.51.100.2'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1b, targets: ['198.51.100.2'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1', '198.51.100.2'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('two clusters in one zone: the zone name carries both', () => {
    const dns: ClusterDns[] = [c1(), { ...c1(ips('198.51.100.2')), cluster: 'c2' }];
    const targets = ['198.51.100.1', '198.51.100.2'];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets, recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets, recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets, recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('a cluster without targets beside one with: its names CNAME up, the global name is the other cluster', () => {
    const dns: ClusterDns[] = [
      c1(),
      { cluster: 'c2', loadBalancer: {}, zones: ['europe-west1-b'], region: 'europe-west1' },
    ];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: Z2b, targets: [R2], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R2, targets: [G], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: G, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('a cluster without targets in a region that has them: its zone CNAMEs to the served region name', () => {
    const dns: ClusterDns[] = [
      c1(),
      { cluster: 'c2', loadBalancer: {}, zones: ['us-central1-b'], region: 'us-central1' },
    ];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1b, targets: [R1], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('user TTL on every endpoint; 0 and unset mean 180', () => {
    const dns = [c1({})];
    assert.deepEqual(serviceEndpoints({ ...base, dns, ttl: 300, dnsPrefix: 'www' }), [
      { dnsName: Z1a, targets: [R1], recordType: 'CNAME', recordTTL: 300 },
      { dnsName: R1, targets: [G], recordType: 'CNAME', recordTTL: 300 },
      { dnsName: 'www.example.com', targets: [G], recordType: 'CNAME', recordTTL: 300 },
    ]);
    for (const ttl of [0, undefined, -5]) {
      const got = serviceEndpoints({ ...base, dns, ...(ttl === undefined ? {} : { ttl }) });
      assert.deepEqual(
        got.map((e) => e.recordTTL),
        [180, 180],
        `ttl ${ttl}`,
      );
    }
  });

  test('dnsPrefix: a CNAME from <prefix>.<domain> to the global name', () => {
    assert.deepEqual(serviceEndpoints({ ...base, dns: [c1()], dnsPrefix: 'www' }), [
      { dnsName: G, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: 'www.example.com', targets: [G], recordType: 'CNAME', recordTTL: 180 },
    ]);
  });

  test('dnsPrefix with no clusters: KubeFed still writes the prefix CNAME', () => {
    assert.deepEqual(serviceEndpoints({ ...base, dns: [], dnsPrefix: 'www' }), [
      { dnsName: 'www.example.com', targets: [G], recordType: 'CNAME', recordTTL: 180 },
    ]);
  });

  test('externalName replaces the service name and labels every endpoint with the record name', () => {
    const labels = { serviceName: 'nginx' };
    const got = serviceEndpoints({ ...base, dns: [c1()], externalName: 'web', dnsPrefix: 'www' });
    assert.deepEqual(got, [
      {
        dnsName: 'web.test.galactic.svc.example.com',
        targets: ['198.51.100.1'],
        recordType: 'A',
        recordTTL: 180,
        labels,
      },
      {
        dnsName: 'web.test.galactic.svc.us-central1-a.us-central1.example.com',
        targets: ['198.51.100.1'],
        recordType: 'A',
        recordTTL: 180,
        labels,
      },
      {
        dnsName: 'web.test.galactic.svc.us-central1.example.com',
        targets: ['198.51.100.1'],
        recordType: 'A',
        recordTTL: 180,
        labels,
      },
      {
        dnsName: 'www.example.com',
        targets: ['web.test.galactic.svc.example.com'],
        recordType: 'CNAME',
        recordTTL: 180,
        labels,
      },
    ]);
    // Each endpoint owns its labels: editing one cannot change another.
    got[0]!.labels!['serviceName'] = 'changed';
    assert.equal(got[1]!.labels!['serviceName'], 'nginx');
  });

  test('without externalName there are no labels', () => {
    for (const e of serviceEndpoints({ ...base, dns: [c1()], externalName: '' }))
      assert.equal('labels' in e, false);
  });

  test('an entry without a region (kubefed-ts tolerance) only contributes the global name', () => {
    const dns: ClusterDns[] = [
      c1(),
      { cluster: 'c2', loadBalancer: ips('198.51.100.2'), zones: ['orphan-zone'] },
    ];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets: ['198.51.100.1', '198.51.100.2'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('an entry with a region but no zones contributes region and global names', () => {
    const dns: ClusterDns[] = [{ cluster: 'c1', loadBalancer: ips('198.51.100.1'), region: 'us-central1' }];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('no domain yet: nothing to publish', () => {
    assert.deepEqual(serviceEndpoints({ ...base, domain: '', dns: [c1()], dnsPrefix: 'www' }), []);
  });

  test('malformed status entries are ignored, never thrown on', () => {
    const dns = [
      c1({ ingress: 'nope' } as never),
      { cluster: 'c2', loadBalancer: { ingress: [{ ip: 'not-an-ip' }, null, { ip: '198.51.100.9' }] } },
      { cluster: 'c3', loadBalancer: undefined, zones: 'us-central1-a', region: 7 },
    ] as unknown as ClusterDns[];
    assert.deepEqual(serviceEndpoints({ ...base, dns }), [
      { dnsName: G, targets: ['198.51.100.9'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: [R1], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R1, targets: [G], recordType: 'CNAME', recordTTL: 180 },
    ]);
  });
});

describe('serviceEndpoints: hostname targets', () => {
  const lookups: Record<string, string[]> = {
    'a.elb.example.net': ['203.0.113.10', '203.0.113.11'],
    'b.elb.example.net': ['203.0.113.11', '203.0.113.12'],
    'gone.example.net': [],
  };
  const resolve = (hostname: string) => lookups[hostname] ?? assert.fail(`unexpected lookup of ${hostname}`);
  const hosts = (...list: string[]) => ({ ingress: list.map((hostname) => ({ hostname })) });

  test('hostnames are resolved into the A records, with the IPs', () => {
    const dns = [c1({ ingress: [{ ip: '198.51.100.1' }, { hostname: 'a.elb.example.net' }] })];
    const targets = ['198.51.100.1', '203.0.113.10', '203.0.113.11'];
    assert.deepEqual(serviceEndpoints({ ...base, resolve, dns }), [
      { dnsName: G, targets, recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets, recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets, recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('addresses shared by several hostnames appear once', () => {
    const targets = ['203.0.113.10', '203.0.113.11', '203.0.113.12'];
    const dns = [c1(hosts('a.elb.example.net', 'b.elb.example.net'))];
    assert.deepEqual(
      serviceEndpoints({ ...base, resolve, dns }).map((e) => e.targets),
      [targets, targets, targets],
    );
  });

  test('a hostname that resolves to nothing is dropped; with nothing left the names CNAME up', () => {
    const dns: ClusterDns[] = [
      c1(hosts('gone.example.net', 'a.elb.example.net')),
      {
        cluster: 'c2',
        loadBalancer: hosts('gone.example.net'),
        zones: ['europe-west1-b'],
        region: 'europe-west1',
      },
    ];
    assert.deepEqual(serviceEndpoints({ ...base, resolve, dns }), [
      { dnsName: Z2b, targets: [R2], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R2, targets: [G], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: G, targets: ['203.0.113.10', '203.0.113.11'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['203.0.113.10', '203.0.113.11'], recordType: 'A', recordTTL: 180 },
      { dnsName: R1, targets: ['203.0.113.10', '203.0.113.11'], recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('lookup answers that are not addresses are ignored', () => {
    const dns = [c1(hosts('odd.example.net'))];
    const got = serviceEndpoints({ ...base, resolve: () => ['', 'cname.example.net', '2001:db8::1'], dns });
    assert.deepEqual(
      got.map((e) => [e.recordType, e.targets]),
      [
        ['A', ['2001:db8::1']],
        ['A', ['2001:db8::1']],
        ['A', ['2001:db8::1']],
      ],
    );
  });

  test('hostnamesAsCname: a level with only hostnames is a CNAME to the first hostname in sorted order', () => {
    const dns: ClusterDns[] = [
      c1(hosts('b.elb.example.net')),
      {
        cluster: 'c2',
        loadBalancer: hosts('a.elb.example.net'),
        zones: ['us-central1-b'],
        region: 'us-central1',
      },
    ];
    assert.deepEqual(serviceEndpoints({ ...base, resolve: noLookups, dns, hostnamesAsCname: true }), [
      { dnsName: G, targets: ['a.elb.example.net'], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: Z1a, targets: ['b.elb.example.net'], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: Z1b, targets: ['a.elb.example.net'], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R1, targets: ['a.elb.example.net'], recordType: 'CNAME', recordTTL: 180 },
    ]);
  });

  test('hostnamesAsCname: a level that also has IPs stays an A record with the hostnames resolved', () => {
    const dns: ClusterDns[] = [
      c1(),
      {
        cluster: 'c2',
        loadBalancer: hosts('a.elb.example.net'),
        zones: ['us-central1-b'],
        region: 'us-central1',
      },
    ];
    const all = ['198.51.100.1', '203.0.113.10', '203.0.113.11'];
    assert.deepEqual(serviceEndpoints({ ...base, resolve, dns, hostnamesAsCname: true }), [
      { dnsName: G, targets: all, recordType: 'A', recordTTL: 180 },
      { dnsName: Z1a, targets: ['198.51.100.1'], recordType: 'A', recordTTL: 180 },
      { dnsName: Z1b, targets: ['a.elb.example.net'], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R1, targets: all, recordType: 'A', recordTTL: 180 },
    ]);
  });

  test('hostnamesAsCname: without targets the names still CNAME up the levels', () => {
    const got: Endpoint[] = serviceEndpoints({ ...base, dns: [c1({})], hostnamesAsCname: true });
    assert.deepEqual(got, [
      { dnsName: Z1a, targets: [R1], recordType: 'CNAME', recordTTL: 180 },
      { dnsName: R1, targets: [G], recordType: 'CNAME', recordTTL: 180 },
    ]);
  });
});
