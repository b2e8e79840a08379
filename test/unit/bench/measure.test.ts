import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addCounts,
  countsBetween,
  cpuMsPerMemberObject,
  PERIODIC_MEMBER_WRITE,
  quantile,
  total,
  writeCounts,
  writeCountsByVerb,
  writesBetween,
} from '../../../bench/measure.ts';

describe('benchmark measurements (pure parts)', () => {
  test('writeCounts sums write verbs of apiserver_request_total per group/resource and ignores reads', () => {
    const text = [
      '# HELP apiserver_request_total x',
      'apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"} 3000',
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="PUT",version="v1"} 12',
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"} 99',
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PATCH",version="v1"} 5',
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="WATCH",version="v1"} 7',
      'apiserver_request_duration_seconds_count{verb="POST",resource="configmaps"} 1',
    ].join('\n');
    assert.deepEqual(
      [...writeCounts(text)],
      [
        ['configmaps', 3012],
        ['apps/deployments', 5],
      ],
    );
  });

  test('writeCountsByVerb keeps verb and subresource apart, and countsBetween keeps what grew', () => {
    const line = (verb: string, group: string, resource: string, sub: string, v: number) =>
      `apiserver_request_total{code="200",component="apiserver",group="${group}",resource="${resource}",scope="resource",subresource="${sub}",verb="${verb}",version="v1"} ${v}`;
    const before = writeCountsByVerb(
      [line('POST', '', 'configmaps', '', 2), line('GET', '', 'configmaps', '', 9)].join('\n'),
    );
    const after = writeCountsByVerb(
      [
        line('POST', '', 'configmaps', '', 5),
        line('PATCH', '', 'configmaps', '', 3),
        line('PUT', 'work.karmada.io', 'resourcebindings', 'status', 4),
        line('PUT', 'coordination.k8s.io', 'leases', '', 7),
        line('PUT', 'work.karmada.io', 'resourcebindings', 'status', 2).replace('code="200"', 'code="409"'),
        line('GET', '', 'configmaps', '', 90),
      ].join('\n'),
    );
    assert.deepEqual([...before], [['POST configmaps', 2]]);
    assert.deepEqual(
      countsBetween(before, after, (k) => !k.endsWith('leases')),
      {
        'POST configmaps': 3,
        'PATCH configmaps': 3,
        'PUT work.karmada.io/resourcebindings/status': 4,
        'PUT work.karmada.io/resourcebindings/status 409': 2,
      },
    );
  });

  test('writesBetween counts only the growth of matching resources', () => {
    const before = new Map([
      ['configmaps', 10],
      ['apps/deployments', 4],
    ]);
    const after = new Map([
      ['configmaps', 10],
      ['apps/deployments', 6],
      ['leases', 50],
    ]);
    assert.equal(
      writesBetween(before, after, (r) => r !== 'leases'),
      2,
    );
    assert.equal(
      writesBetween(before, after, () => true),
      52,
    );
  });

  test('quantile is nearest-rank: p50 and p99 of a small sample', () => {
    const s = [5, 1, 4, 2, 3];
    assert.equal(quantile(s, 0.5), 3);
    assert.equal(quantile(s, 0.99), 5);
    assert.equal(quantile([7], 0.99), 7);
    assert.ok(Number.isNaN(quantile([], 0.5)));
  });
});

describe('benchmark per-object figures', () => {
  test('addCounts sums the members per key and total sums one count', () => {
    const sum = addCounts([{ 'POST configmaps': 3, 'PUT configmaps': 1 }, { 'POST configmaps': 2 }, {}]);
    assert.deepEqual(sum, { 'POST configmaps': 5, 'PUT configmaps': 1 });
    assert.equal(total(sum), 6);
    assert.equal(total({}), 0);
  });

  test('member leases are periodic, whatever their status code; the workload is not', () => {
    assert.ok(PERIODIC_MEMBER_WRITE('PUT coordination.k8s.io/leases'));
    assert.ok(PERIODIC_MEMBER_WRITE('PUT coordination.k8s.io/leases 409'));
    assert.ok(!PERIODIC_MEMBER_WRITE('POST configmaps'));
    assert.ok(!PERIODIC_MEMBER_WRITE('POST coordination.k8s.io/leasecandidates'));
  });

  test('cpuMsPerMemberObject counts every serving process but the benchmark client', () => {
    const cpu = { controller: 1.5, hostApiserver: 1, memberApiservers: 2, etcd: 0.5, bench: 7 };
    assert.equal(cpuMsPerMemberObject(cpu, 500), 10);
    assert.equal(cpuMsPerMemberObject({ bench: 3 }, 10), 0);
    assert.equal(cpuMsPerMemberObject(cpu, 0), undefined);
  });
});
