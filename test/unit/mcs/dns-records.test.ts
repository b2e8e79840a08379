import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type DnsRecord,
  dnsEndpointObject,
  dnsVersionRecord,
  endpointHostname,
  serviceDnsRecords,
} from '../../../src/mcs/dns-records.ts';
import type { SourceEndpoints } from '../../../src/mcs/model.ts';

const ports = [
  { name: 'http', protocol: 'TCP', port: 80 },
  { name: 'dns', protocol: 'UDP', port: 53 },
  { protocol: 'TCP', port: 9000 },
];
const clusterSetIp = (ips: string[], over: Partial<Parameters<typeof serviceDnsRecords>[0]> = {}) =>
  serviceDnsRecords({ namespace: 'ns', name: 'svc', type: 'ClusterSetIP', ips, ports, sources: [], ...over });
const headless = (sources: SourceEndpoints[], over: Partial<Parameters<typeof serviceDnsRecords>[0]> = {}) =>
  serviceDnsRecords({ namespace: 'ns', name: 'svc', type: 'Headless', ips: [], ports, sources, ...over });
const source = (
  clusterId: string,
  groups: Record<string, SourceEndpoints['byAddressType'] extends Map<string, infer G> ? G : never>,
): SourceEndpoints => ({
  clusterId,
  byAddressType: new Map(Object.entries(groups)),
});
const names = (records: DnsRecord[]) => records.map((r) => `${r.dnsName} ${r.recordType}`);
const S = 'svc.ns.svc.clusterset.local';

describe('serviceDnsRecords: ClusterSetIP (§2.3)', () => {
  test('A to the clusterset IP, SRV per named port (and at the bare name) to the service name; none for the unnamed port', () => {
    assert.deepEqual(clusterSetIp(['10.42.42.42']), [
      {
        dnsName: '_dns._udp.svc.ns.svc.clusterset.local',
        recordType: 'SRV',
        targets: [`0 100 53 ${S}.`],
        recordTTL: 5,
      },
      {
        dnsName: '_http._tcp.svc.ns.svc.clusterset.local',
        recordType: 'SRV',
        targets: [`0 100 80 ${S}.`],
        recordTTL: 5,
      },
      { dnsName: S, recordType: 'A', targets: ['10.42.42.42'], recordTTL: 5 },
      { dnsName: S, recordType: 'SRV', targets: [`0 100 53 ${S}.`, `0 100 80 ${S}.`], recordTTL: 5 },
    ]);
  });

  test('the bare-name SRV has one target per distinct port: tcp/42 and udp/42 give one (conformance)', () => {
    const hello = [
      { name: 'tcp', protocol: 'TCP', port: 42 },
      { name: 'udp', protocol: 'UDP', port: 42 },
    ];
    const bare = clusterSetIp(['10.42.42.42'], { ports: hello }).find(
      (r) => r.dnsName === S && r.recordType === 'SRV',
    );
    assert.deepEqual(bare?.targets, [`0 100 42 ${S}.`]);
  });

  test('dual-stack: both A and AAAA at the service name', () => {
    const records = clusterSetIp(['fd00::42', '10.42.42.42']);
    assert.deepEqual(
      records.filter((r) => r.dnsName === S && r.recordType !== 'SRV'),
      [
        { dnsName: S, recordType: 'A', targets: ['10.42.42.42'], recordTTL: 5 },
        { dnsName: S, recordType: 'AAAA', targets: ['fd00::42'], recordTTL: 5 },
      ],
    );
  });

  test('IPv6 only: AAAA, no A', () => {
    assert.deepEqual(names(clusterSetIp(['fd00::42'], { ports: [] })), [`${S} AAAA`]);
  });

  test('no per-cluster name, whatever endpoints the clusters have (§2.3.4)', () => {
    const sources = [
      source('cluster-a', { IPv4: { ports: [], endpoints: [{ addresses: ['10.0.0.1'], hostname: 'p' }] } }),
    ];
    assert.deepEqual(names(clusterSetIp(['10.42.42.42'], { sources, ports: [] })), [`${S} A`]);
  });

  test('records follow the clusterset IP, not ready endpoints: kept with none ready, none before the IP', () => {
    assert.equal(clusterSetIp(['10.42.42.42'], { sources: [] }).length, 4);
    assert.deepEqual(clusterSetIp([]), []);
  });

  test('zone and TTL can be given', () => {
    const [a] = clusterSetIp(['10.0.0.1'], { ports: [], zone: 'example.org.', ttl: 30 });
    assert.deepEqual(a, {
      dnsName: 'svc.ns.svc.example.org',
      recordType: 'A',
      targets: ['10.0.0.1'],
      recordTTL: 30,
    });
  });
});

describe('serviceDnsRecords: Headless (§2.4)', () => {
  const a = source('cluster-a', {
    IPv4: {
      ports: [
        { name: 'http', protocol: 'TCP', port: 8080 },
        { name: 'dns', protocol: 'UDP', port: 5353 },
      ],
      endpoints: [
        { addresses: ['10.0.0.2'], hostname: 'web-1', podName: 'web-1' },
        { addresses: ['10.0.0.1'], hostname: 'web-0', podName: 'web-0' },
      ],
    },
  });
  const b = source('cluster-b', {
    IPv4: {
      ports: [{ name: 'http', protocol: 'TCP', port: 8081 }],
      endpoints: [{ addresses: ['10.1.0.1'], hostname: 'web-0' }],
    },
  });

  test('the service name holds every ready address; each endpoint its own name; SRV per named port × endpoint, with the Service port (§2.4.2), also at the bare name', () => {
    assert.deepEqual(headless([b, a]), [
      {
        dnsName: `_dns._udp.${S}`,
        recordType: 'SRV',
        targets: [`0 100 53 web-0.cluster-a.${S}.`, `0 100 53 web-1.cluster-a.${S}.`],
        recordTTL: 5,
      },
      {
        dnsName: `_http._tcp.${S}`,
        recordType: 'SRV',
        targets: [
          `0 100 80 web-0.cluster-a.${S}.`,
          `0 100 80 web-0.cluster-b.${S}.`,
          `0 100 80 web-1.cluster-a.${S}.`,
        ],
        recordTTL: 5,
      },
      { dnsName: S, recordType: 'A', targets: ['10.0.0.1', '10.0.0.2', '10.1.0.1'], recordTTL: 5 },
      {
        dnsName: S,
        recordType: 'SRV',
        targets: [
          `0 100 53 web-0.cluster-a.${S}.`,
          `0 100 53 web-1.cluster-a.${S}.`,
          `0 100 80 web-0.cluster-a.${S}.`,
          `0 100 80 web-0.cluster-b.${S}.`,
          `0 100 80 web-1.cluster-a.${S}.`,
        ],
        recordTTL: 5,
      },
      { dnsName: `web-0.cluster-a.${S}`, recordType: 'A', targets: ['10.0.0.1'], recordTTL: 5 },
      { dnsName: `web-0.cluster-b.${S}`, recordType: 'A', targets: ['10.1.0.1'], recordTTL: 5 },
      { dnsName: `web-1.cluster-a.${S}`, recordType: 'A', targets: ['10.0.0.2'], recordTTL: 5 },
    ]);
  });

  test('the same records whatever order the sources come in', () => {
    assert.deepEqual(headless([a, b]), headless([b, a]));
  });

  test('a Deployment-like source (no hostnames, targetPort ≠ port): dashed-address names, Service port, one bare-name target per endpoint', () => {
    const hello = [
      { name: 'tcp', protocol: 'TCP', port: 42 },
      { name: 'udp', protocol: 'UDP', port: 42 },
    ];
    const pods = source('cluster-a', {
      IPv4: {
        ports: [
          { name: 'tcp', protocol: 'TCP', port: 8042 },
          { name: 'udp', protocol: 'UDP', port: 8042 },
        ],
        endpoints: [
          { addresses: ['10.244.0.52'], podName: 'hello-7d9f-abcde' },
          { addresses: ['10.244.0.51'], podName: 'hello-7d9f-fghij' },
        ],
      },
    });
    const records = headless([pods], { ports: hello });
    const bare = records.find((r) => r.dnsName === S && r.recordType === 'SRV');
    assert.deepEqual(bare?.targets, [
      `0 100 42 10-244-0-51.cluster-a.${S}.`,
      `0 100 42 10-244-0-52.cluster-a.${S}.`,
    ]);
    assert.deepEqual(records.find((r) => r.dnsName === `10-244-0-52.cluster-a.${S}`)?.targets, [
      '10.244.0.52',
    ]);
    assert.ok(!records.some((r) => r.dnsName.startsWith('hello-')));
  });

  test('no ready endpoints anywhere: no records at all, so the name is NXDOMAIN', () => {
    assert.deepEqual(headless([]), []);
    assert.deepEqual(headless([source('cluster-a', { IPv4: { ports: ports, endpoints: [] } })]), []);
  });

  test('no `<clusterid>.<svc>` name (§2.4.4)', () => {
    assert.ok(
      !headless([a, b]).some((r) => r.dnsName === `cluster-a.${S}` || r.dnsName === `cluster-b.${S}`),
    );
  });

  test('dual-stack: A and AAAA at the service name and at the endpoint of a pod in both slices', () => {
    const dual = source('cluster-a', {
      IPv4: { ports: [], endpoints: [{ addresses: ['10.0.0.1'], hostname: 'web-0' }] },
      IPv6: { ports: [], endpoints: [{ addresses: ['fd00::1'], hostname: 'web-0' }] },
    });
    assert.deepEqual(headless([dual], { ports: [] }), [
      { dnsName: S, recordType: 'A', targets: ['10.0.0.1'], recordTTL: 5 },
      { dnsName: S, recordType: 'AAAA', targets: ['fd00::1'], recordTTL: 5 },
      { dnsName: `web-0.cluster-a.${S}`, recordType: 'A', targets: ['10.0.0.1'], recordTTL: 5 },
      { dnsName: `web-0.cluster-a.${S}`, recordType: 'AAAA', targets: ['fd00::1'], recordTTL: 5 },
    ]);
  });

  test('a port the cluster does not serve gets no SRV target there', () => {
    const records = headless([b]);
    assert.equal(
      records.find((r) => r.dnsName === `_dns._udp.${S}`),
      undefined,
    );
  });

  test('an endpoint name too long for DNS is left out; the service name still has its address', () => {
    const long = source('c'.repeat(64), {
      IPv4: {
        ports: [{ name: 'http', protocol: 'TCP', port: 80 }],
        endpoints: [{ addresses: ['10.0.0.1'], hostname: 'web-0' }],
      },
    });
    assert.deepEqual(headless([long]), [
      { dnsName: S, recordType: 'A', targets: ['10.0.0.1'], recordTTL: 5 },
    ]);
  });

  test('a service name past 253 characters gives nothing', () => {
    const label = 'n'.repeat(63);
    const namespace = `${label}.${label}.${label}.${label}`;
    assert.deepEqual(headless([a], { namespace }), []);
    assert.deepEqual(clusterSetIp(['10.0.0.1'], { namespace }), []);
  });
});

describe('endpointHostname (§2.1: the hostname field, else a unique system-assigned id)', () => {
  test('the hostname field first', () => {
    assert.equal(
      endpointHostname({ addresses: ['10.0.0.1'], hostname: 'web-0', podName: 'web-0-abcde' }),
      'web-0',
    );
  });
  test('then the address with dashes, never the pod name (the conformance suite expects the address)', () => {
    assert.equal(endpointHostname({ addresses: ['10.0.0.1'], podName: 'hello-7d9f-abcde' }), '10-0-0-1');
  });
  test('a hostname that is no DNS label falls back to the address', () => {
    assert.equal(endpointHostname({ addresses: ['10.0.0.1'], hostname: 'a.b' }), '10-0-0-1');
  });
  test('IPv4 with dashes; IPv6 as written with dashes, in full when that is no DNS label', () => {
    assert.equal(endpointHostname({ addresses: ['10.0.0.1'] }), '10-0-0-1');
    assert.equal(endpointHostname({ addresses: ['fd00:10:244::5'] }), 'fd00-10-244--5');
    assert.equal(endpointHostname({ addresses: ['FD00::1'] }), 'fd00--1');
    assert.equal(endpointHostname({ addresses: ['::1'] }), '0000-0000-0000-0000-0000-0000-0000-0001');
    assert.equal(endpointHostname({ addresses: ['fe80::'] }), 'fe80-0000-0000-0000-0000-0000-0000-0000');
    assert.equal(
      endpointHostname({ addresses: ['::ffff:1.2.3.4'] }),
      '0000-0000-0000-0000-0000-ffff-0102-0304',
    );
  });
  test('headless records use the dashed address when there is no hostname', () => {
    const s = source('cluster-a', {
      IPv4: { ports: [], endpoints: [{ addresses: ['10.0.0.1'], podName: 'hello-x' }] },
    });
    assert.ok(headless([s], { ports: [] }).some((r) => r.dnsName === `10-0-0-1.cluster-a.${S}`));
  });
});

describe('dnsVersionRecord (§2.2)', () => {
  test('dns-version.<zone> TXT "1.0.0", quoted as PowerDNS (ExternalDNS pdns) stores and returns TXT', () => {
    assert.deepEqual(dnsVersionRecord(), {
      dnsName: 'dns-version.clusterset.local',
      recordType: 'TXT',
      targets: ['"1.0.0"'],
      recordTTL: 28800,
    });
    assert.equal(dnsVersionRecord('example.org').dnsName, 'dns-version.example.org');
  });
});

describe('dnsEndpointObject', () => {
  test('an externaldns.k8s.io/v1alpha1 DNSEndpoint with the records as endpoints', () => {
    const records = clusterSetIp(['10.0.0.1'], { ports: [] });
    assert.deepEqual(dnsEndpointObject({ namespace: 'ns', name: 'mcs-svc', records, labels: { a: 'b' } }), {
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name: 'mcs-svc', namespace: 'ns', labels: { a: 'b' } },
      spec: { endpoints: [{ dnsName: S, recordType: 'A', targets: ['10.0.0.1'], recordTTL: 5 }] },
    });
  });
  test('no labels key without labels; records are copied, not shared', () => {
    const records: DnsRecord[] = [{ dnsName: 'x.clusterset.local', recordType: 'TXT', targets: ['t'] }];
    const obj = dnsEndpointObject({ namespace: 'ns', name: 'n', records });
    assert.equal('labels' in obj.metadata, false);
    const endpoints = (obj.spec as { endpoints: DnsRecord[] }).endpoints;
    assert.deepEqual(endpoints, [{ dnsName: 'x.clusterset.local', recordType: 'TXT', targets: ['t'] }]);
    assert.notEqual(endpoints[0]!.targets, records[0]!.targets);
  });
});
