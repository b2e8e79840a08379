import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prometheusWorkQueueMetrics, registry } from '../../../src/runtime/metrics.ts';
import { WorkQueue } from '../../../src/runtime/workqueue/index.ts';

test('a work queue with the Prometheus hooks exposes client-go metric names', async () => {
  const q = new WorkQueue({ name: 'promtest', metrics: prometheusWorkQueueMetrics });
  q.add('a');
  q.add('b');
  q.add('a'); // collapsed: not counted again
  const key = await q.get();
  assert.equal(key, 'a');
  q.done('a');
  q.addRateLimited('c');
  q.shutDown();
  const text = await registry.metrics();
  assert.match(text, /^workqueue_adds_total\{name="promtest"\} 2$/m);
  assert.match(text, /^workqueue_depth\{name="promtest"\} \d+$/m);
  assert.match(text, /^workqueue_queue_duration_seconds_count\{name="promtest"\} 1$/m);
  assert.match(text, /^workqueue_work_duration_seconds_count\{name="promtest"\} 1$/m);
  assert.match(text, /^workqueue_retries_total\{name="promtest"\} 1$/m);
});
