import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { quantile, writeCounts, writesBetween } from '../../../bench/measure.ts';

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
