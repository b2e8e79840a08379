import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  collectProcessMetrics,
  prometheusWorkQueueMetrics,
  registry,
  timedDispatch,
} from '../../../src/runtime/metrics.ts';
import { ok } from '../../../src/runtime/reconcile.ts';
import { runWorkers, WorkQueue } from '../../../src/runtime/workqueue/index.ts';
import { parsePrometheusText, value } from '../../../src/testing/prometheus.ts';

test('the Prometheus text reader handles labels, escapes, special values and comments', () => {
  const s = parsePrometheusText(
    [
      '# HELP x_total A counter.',
      '# TYPE x_total counter',
      'x_total{a="1",b="with \\"quotes\\", commas and \\\\"} 3',
      'x_total{a="2"} 4 1700000000000',
      'up 1',
      'h_bucket{le="+Inf"} 7',
      'g{x="y",} NaN',
      '',
    ].join('\n'),
  );
  assert.deepEqual(s[0], {
    name: 'x_total',
    labels: { a: '1', b: 'with "quotes", commas and \\' },
    value: 3,
  });
  assert.equal(value(s, 'x_total'), 7);
  assert.equal(value(s, 'x_total', { a: '2' }), 4);
  assert.equal(value(s, 'x_total', { a: '3' }), undefined);
  assert.equal(value(s, 'up'), 1);
  assert.equal(value(s, 'h_bucket', { le: '+Inf' }), 7);
  assert.ok(Number.isNaN(value(s, 'g', { x: 'y' })));
  assert.throws(() => parsePrometheusText('x{a=1} 2'), /bad label/);
  assert.throws(() => parsePrometheusText('x abc'), /bad value/);
});

test('runWorkers reports max concurrent reconciles and active workers per controller', async () => {
  const q = new WorkQueue({ name: 'workersmetrics', metrics: prometheusWorkQueueMetrics });
  const read = async () => parsePrometheusText(await registry.metrics());
  let release: () => void = () => {};
  const blocked = new Promise<void>((r) => {
    release = r;
  });
  let entered: () => void = () => {};
  const bothIn = new Promise<void>((r) => {
    let n = 0;
    entered = () => {
      if (++n === 2) r();
    };
  });
  const running = runWorkers(q, 3, async () => {
    entered();
    await blocked;
    return ok();
  });
  q.add('a');
  q.add('b');
  await bothIn;
  let s = await read();
  assert.equal(value(s, 'controller_runtime_max_concurrent_reconciles', { controller: 'workersmetrics' }), 3);
  assert.equal(value(s, 'controller_runtime_active_workers', { controller: 'workersmetrics' }), 2);
  release();
  await new Promise((r) => setTimeout(r, 10));
  s = await read();
  assert.equal(value(s, 'controller_runtime_active_workers', { controller: 'workersmetrics' }), 0);
  q.shutDown();
  await running;
  s = await read();
  // Stopped (e.g. its FTC was disabled): no workers any more.
  assert.equal(value(s, 'controller_runtime_max_concurrent_reconciles', { controller: 'workersmetrics' }), 0);
});

test('timedDispatch observes successful and failed member writes by action and cluster', async () => {
  const count = async (action: string) =>
    value(parsePrometheusText(await registry.metrics()), 'dispatch_operation_duration_seconds_count', {
      action,
      cluster: 'unit-member',
    }) ?? 0;
  const before = await count('update');
  assert.equal(await timedDispatch('update', 'unit-member', Promise.resolve('done')), 'done');
  await assert.rejects(timedDispatch('update', 'unit-member', Promise.reject(new Error('boom'))), /boom/);
  assert.equal(await count('update'), before + 2);
  assert.equal(await count('create'), 0);
});

test('process metrics are collected once asked for, not when the module is imported', async () => {
  // This file's process imported the module above; nothing here served metrics before this test.
  assert.equal(registry.getSingleMetric('nodejs_eventloop_lag_p99_seconds'), undefined);
  assert.equal(registry.getSingleMetric('process_cpu_seconds_total'), undefined);
  collectProcessMetrics();
  collectProcessMetrics(); // a second manager in the process must not register them twice
  const s = parsePrometheusText(await registry.metrics());
  assert.ok((value(s, 'process_cpu_seconds_total') ?? 0) > 0);
  assert.ok(registry.getSingleMetric('nodejs_eventloop_lag_p99_seconds'));
});
