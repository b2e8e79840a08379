import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ServiceDnsCluster, serviceDnsStatus } from '../../../src/dns/index.ts';
import type { KubeObject } from '../../../src/kube/client/index.ts';

const service = (loadBalancer: unknown): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'nginx', namespace: 'test' },
  spec: { type: 'LoadBalancer' },
  status: { loadBalancer },
});
const lb1 = { ingress: [{ ip: '198.51.100.1' }] };

const cluster = (name: string, over: Partial<ServiceDnsCluster> = {}): ServiceDnsCluster => ({
  name,
  ready: true,
  zones: [`${name}-zone`],
  region: `${name}-region`,
  service: service(lb1),
  hasReadyEndpoints: true,
  ...over,
});
const run = (
  clusters: ServiceDnsCluster[],
  extra: { allow?: boolean; previous?: Parameters<typeof serviceDnsStatus>[0]['previous'] } = {},
) =>
  serviceDnsStatus({
    clusters,
    allowServiceWithoutEndpoints: extra.allow ?? false,
    previous: extra.previous,
  });

describe('serviceDnsStatus', () => {
  test('no clusters: empty status, no problems', () => {
    assert.deepEqual(run([]), { dns: [], problems: [] });
  });

  test('a ready cluster with ready endpoints: its region, zones and load balancer', () => {
    assert.deepEqual(run([cluster('c1', { zones: ['us-central1-a'], region: 'us-central1' })]), {
      dns: [
        {
          cluster: 'c1',
          loadBalancer: { ingress: [{ ip: '198.51.100.1' }] },
          zones: ['us-central1-a'],
          region: 'us-central1',
        },
      ],
      problems: [],
    });
  });

  test('load-balancer ingress is sorted by IP then hostname and reduced to ip/hostname', () => {
    const lb = {
      ingress: [
        { hostname: 'b.example.net' },
        { ip: '198.51.100.2', ipMode: 'VIP' },
        { ip: '198.51.100.10', hostname: 'x.example.net' },
        { hostname: 'a.example.net' },
        { ip: '198.51.100.10', hostname: 'w.example.net' },
      ],
    };
    const { dns, problems } = run([cluster('c1', { service: service(lb) })]);
    assert.deepEqual(dns[0]?.loadBalancer, {
      ingress: [
        { hostname: 'a.example.net' },
        { hostname: 'b.example.net' },
        { ip: '198.51.100.10', hostname: 'w.example.net' },
        { ip: '198.51.100.10', hostname: 'x.example.net' },
        { ip: '198.51.100.2' },
      ],
    });
    assert.deepEqual(problems, []);
  });

  test('entries are sorted by cluster name', () => {
    const { dns } = run([cluster('c3'), cluster('c1'), cluster('c2')]);
    assert.deepEqual(
      dns.map((e) => e.cluster),
      ['c1', 'c2', 'c3'],
    );
  });

  test('no ready endpoints: an entry without a load balancer, unless Services without endpoints are allowed', () => {
    const c = cluster('c1', { hasReadyEndpoints: false });
    assert.deepEqual(run([c]).dns, [
      { cluster: 'c1', loadBalancer: {}, zones: ['c1-zone'], region: 'c1-region' },
    ]);
    assert.deepEqual(run([c], { allow: true }).dns, [
      { cluster: 'c1', loadBalancer: lb1, zones: ['c1-zone'], region: 'c1-region' },
    ]);
  });

  test('a ready cluster without the Service, or whose load balancer is pending, gets an entry without one', () => {
    const { dns, problems } = run([
      cluster('c1', { service: undefined }),
      cluster('c2', { service: service(undefined) }),
      cluster('c3', { service: service({}) }),
      cluster('c4', { service: service({ ingress: [] }) }),
      cluster('c5', { service: { metadata: { name: 'nginx' } } }),
    ]);
    assert.deepEqual(
      dns.map((e) => e.loadBalancer),
      [{}, {}, {}, {}, {}],
    );
    assert.deepEqual(problems, []);
  });

  test('an unready cluster that had an entry keeps it without a load balancer; one that had none gets none', () => {
    const previous = [
      { cluster: 'c1', loadBalancer: lb1, zones: ['old-zone'], region: 'old-region' },
      { cluster: 'gone', loadBalancer: lb1, zones: ['z'], region: 'r' },
    ];
    const { dns, problems } = run(
      [cluster('c1', { ready: false }), cluster('c2', { ready: false }), cluster('c3')],
      { previous },
    );
    assert.deepEqual(dns, [
      { cluster: 'c1', loadBalancer: {}, zones: ['old-zone'], region: 'old-region' },
      { cluster: 'c3', loadBalancer: lb1, zones: ['c3-zone'], region: 'c3-region' },
    ]);
    assert.deepEqual(problems, []);
  });

  test('a ready cluster without region or zones gets an entry without them and a problem (KubeFed failed it all)', () => {
    const { dns, problems } = run([
      cluster('c1', { region: undefined, zones: undefined }),
      cluster('c2', { region: '', zones: ['orphan'] }),
      cluster('c3', { zones: [] }),
      cluster('c4'),
    ]);
    assert.deepEqual(dns, [
      { cluster: 'c1', loadBalancer: lb1 },
      { cluster: 'c2', loadBalancer: lb1 },
      { cluster: 'c3', loadBalancer: lb1, region: 'c3-region' },
      { cluster: 'c4', loadBalancer: lb1, zones: ['c4-zone'], region: 'c4-region' },
    ]);
    assert.equal(problems.length, 3);
    for (const [i, name] of ['c1', 'c2', 'c3'].entries()) {
      assert.match(problems[i]!, new RegExp(`^cluster "${name}" has no region or zones`));
    }
  });

  test('malformed load-balancer status: bad entries skipped, each reported with cluster and value, no throw', () => {
    const { dns, problems } = run([
      cluster('c1', { service: service({ ingress: 'oops' }) }),
      cluster('c2', {
        service: service({
          ingress: [
            { ip: '999.1.1.1' },
            {},
            null,
            { ip: 'bad-ip', hostname: 'ok.example.net' },
            { hostname: 42 },
            { hostname: 'has space' },
            { ip: '2001:db8::1' },
            { ip: '198.51.100.7' },
          ],
        }),
      }),
      cluster('c3', { service: service('a string') }),
      cluster('c4', { service: { metadata: {}, status: 'weird' } }),
    ]);
    assert.deepEqual(
      dns.map((e) => e.loadBalancer),
      [
        {},
        { ingress: [{ hostname: 'ok.example.net' }, { ip: '198.51.100.7' }, { ip: '2001:db8::1' }] },
        {},
        {},
      ],
    );
    assert.deepEqual(problems, [
      'cluster "c1": load balancer ingress is not a list: "oops"',
      'cluster "c2": load balancer ingress ip "999.1.1.1" is not an IPv4 or IPv6 address',
      'cluster "c2": load balancer ingress entry has neither ip nor hostname: {}',
      'cluster "c2": load balancer ingress entry is not an object: null',
      'cluster "c2": load balancer ingress ip "bad-ip" is not an IPv4 or IPv6 address',
      'cluster "c2": load balancer ingress hostname 42 is not a DNS name',
      'cluster "c2": load balancer ingress hostname "has space" is not a DNS name',
      'cluster "c3": load balancer status is not an object: "a string"',
    ]);
  });

  test('a malformed load balancer is not inspected when it is not used (no ready endpoints)', () => {
    const c = cluster('c1', { hasReadyEndpoints: false, service: service({ ingress: 'oops' }) });
    assert.deepEqual(run([c]).problems, []);
  });

  test('long bad values are shortened in problems', () => {
    const { problems } = run([cluster('c1', { service: service({ ingress: 'x'.repeat(500) }) })]);
    assert.equal(problems.length, 1);
    assert.ok(problems[0]!.length < 200);
    assert.ok(problems[0]!.endsWith('...'));
  });

  test('does not alias its input', () => {
    const previous = [{ cluster: 'c1', loadBalancer: lb1, zones: ['z'], region: 'r' }];
    const { dns } = run([cluster('c1', { ready: false })], { previous });
    dns[0]!.zones!.push('mutated');
    assert.deepEqual(previous[0]!.zones, ['z']);
  });
});
