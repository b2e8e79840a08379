import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as flush, setTimeout as sleep } from 'node:timers/promises';
import { FailureLogLimiter } from '../../../src/runtime/failure-log.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../src/runtime/reconcile.ts';
import type { WorkQueueMetrics } from '../../../src/runtime/workqueue/index.ts';
import { ItemExponentialBackoff, runWorkers, WorkQueue } from '../../../src/runtime/workqueue/index.ts';

/** Tracks whether a promise has settled without awaiting it. */
function track<T>(p: Promise<T>): { settled: boolean; value: T | undefined } {
  const s: { settled: boolean; value: T | undefined } = { settled: false, value: undefined };
  p.then((v) => {
    s.settled = true;
    s.value = v;
  });
  return s;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await sleep(1);
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function getAll(q: WorkQueue): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const k = await q.get();
    assert.ok(k !== undefined);
    out.push(k);
  }
  return out;
}

describe('WorkQueue basics', () => {
  test('hands keys out in FIFO order', async () => {
    const q = new WorkQueue({ name: 't' });
    for (const k of ['c', 'a', 'b', 'd']) q.add(k);
    assert.deepEqual(await getAll(q), ['c', 'a', 'b', 'd']);
  });

  test('de-duplicates a key while it is queued', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.deepEqual(await getAll(q), ['a', 'b']);
  });

  test('a key added while processing is not handed out until done, then re-queued at the tail', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    assert.equal(await q.get(), 'a');
    q.add('a');
    q.add('a');
    q.add('b');
    assert.equal(q.len(), 1, 'only b is available while a is processing');
    assert.equal(await q.get(), 'b');
    const waiting = track(q.get());
    await flush();
    assert.equal(waiting.settled, false, 'a must not be handed out while in processing');
    q.done('a');
    await flush();
    assert.equal(waiting.value, 'a', 'the burst of adds collapsed into one re-queue');
    q.done('a');
    q.done('b');
    assert.equal(q.len(), 0);
    assert.equal(q.inFlight(), 0);
  });

  test('done without a meantime add does not re-queue; unknown done is ignored', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    assert.equal(await q.get(), 'a');
    q.done('a');
    q.done('a');
    q.done('never-added');
    assert.equal(q.len(), 0);
  });

  test('get waits for an add', async () => {
    const q = new WorkQueue({ name: 't' });
    const first = track(q.get());
    const second = track(q.get());
    await flush();
    assert.equal(first.settled, false);
    q.add('x');
    q.add('y');
    await flush();
    assert.equal(first.value, 'x');
    assert.equal(second.value, 'y');
  });

  test('metrics hooks see adds, depth, latency, work duration and retries', async () => {
    let now = 1000;
    const calls: string[] = [];
    const metrics: WorkQueueMetrics = {
      onAdd: (n) => calls.push(`add ${n}`),
      onDepth: (n, d) => calls.push(`depth ${n} ${d}`),
      onLatency: (n, s) => calls.push(`latency ${n} ${s}`),
      onWorkDuration: (n, s) => calls.push(`work ${n} ${s}`),
      onRetry: (n) => calls.push(`retry ${n}`),
    };
    const q = new WorkQueue({ name: 'm', metrics, now: () => now });
    q.add('a');
    q.add('a');
    now += 250;
    assert.equal(await q.get(), 'a');
    now += 2000;
    q.done('a');
    q.addAfter('a', 0);
    assert.deepEqual(calls, [
      'add m',
      'depth m 1',
      'depth m 0',
      'latency m 0.25',
      'work m 2',
      'retry m',
      'add m',
      'depth m 1',
    ]);
  });
});

describe('WorkQueue delays', () => {
  test('addAfter delivers in deadline order', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const q = new WorkQueue({ name: 't', now: () => Date.now() });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    assert.equal(q.len(), 0);
    assert.equal(q.delayedLen(), 3);
    t.mock.timers.tick(9);
    assert.equal(q.len(), 0);
    t.mock.timers.tick(1);
    assert.equal(q.len(), 1);
    t.mock.timers.tick(20);
    assert.equal(q.len(), 3);
    assert.equal(q.delayedLen(), 0);
    return getAll(q).then((keys) => assert.deepEqual(keys, ['a', 'b', 'c']));
  });

  test('the earliest delivery per key wins', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const q = new WorkQueue({ name: 't', now: () => Date.now() });
    q.addAfter('k', 50);
    q.addAfter('k', 100); // later: ignored
    q.addAfter('j', 100);
    q.addAfter('j', 20); // earlier: replaces
    assert.equal(q.delayedLen(), 2);
    t.mock.timers.tick(20);
    assert.equal(q.len(), 1, 'j at 20');
    t.mock.timers.tick(30);
    assert.equal(q.len(), 2, 'k at 50');
    assert.equal(q.delayedLen(), 0, 'no second delivery of k at 100 or j at 100');
  });

  test('a non-positive delay adds immediately; a due key already queued is de-duplicated', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const q = new WorkQueue({ name: 't', now: () => Date.now() });
    q.addAfter('now', 0);
    q.addAfter('neg', -5);
    assert.equal(q.len(), 2);
    q.addAfter('now', 10);
    t.mock.timers.tick(10);
    assert.equal(q.len(), 2);
  });

  test('addRateLimited backs off exponentially; forget resets', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const q = new WorkQueue({
      name: 't',
      now: () => Date.now(),
      rateLimiter: new ItemExponentialBackoff(10, 40),
    });
    const expected = [10, 20, 40, 40];
    for (const [i, delay] of expected.entries()) {
      q.addRateLimited('k');
      assert.equal(q.numRequeues('k'), i + 1);
      t.mock.timers.tick(delay - 1);
      assert.equal(q.len(), 0, `not before ${delay} ms`);
      t.mock.timers.tick(1);
      assert.equal(q.len(), 1, `at ${delay} ms`);
      // Hand it out (get() takes a queued key synchronously) and finish so the next round starts empty.
      void q.get();
      assert.equal(q.inFlight(), 1);
      q.done('k');
    }
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
    q.addRateLimited('k');
    t.mock.timers.tick(10);
    assert.equal(q.len(), 1, 'back to the base delay');
  });
});

describe('WorkQueue shutdown', () => {
  test('shutDown releases pending getters and drops queued and delayed keys', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const q = new WorkQueue({ name: 't', now: () => Date.now() });
    const g1 = q.get();
    const g2 = q.get();
    q.shutDown();
    assert.equal(await g1, undefined);
    assert.equal(await g2, undefined);
    assert.equal(await q.get(), undefined);
    assert.equal(q.shuttingDown(), true);

    const q2 = new WorkQueue({ name: 't2', now: () => Date.now() });
    q2.add('queued');
    q2.addAfter('delayed', 10);
    q2.shutDown();
    assert.equal(q2.len(), 0);
    assert.equal(q2.delayedLen(), 0);
    t.mock.timers.tick(100);
    q2.add('late');
    q2.addAfter('late', 1);
    q2.addRateLimited('late');
    assert.equal(q2.len(), 0);
    assert.equal(await q2.get(), undefined);
  });

  test('shutDownWithDrain waits for in-flight keys and does not re-queue them', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    q.add('b');
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    q.add('a'); // added meanwhile: would normally re-queue on done
    const drained = track(q.shutDownWithDrain());
    await flush();
    assert.equal(drained.settled, false);
    q.done('a');
    await flush();
    assert.equal(drained.settled, false, 'b is still in flight');
    assert.equal(q.len(), 0);
    q.done('b');
    await flush();
    assert.equal(drained.settled, true);
  });

  test('shutDownWithDrain resolves at once when idle', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    await q.shutDownWithDrain();
    assert.equal(q.len(), 0);
  });
});

describe('runWorkers', () => {
  test('never reconciles one key concurrently and collapses bursts, across several workers', async () => {
    const q = new WorkQueue({ name: 't' });
    const active = new Map<string, number>();
    const runs = new Map<string, number>();
    let maxPerKey = 0;
    let total = 0;
    let maxTotal = 0;
    const reconcile = async (key: string): Promise<ReconcileResult> => {
      const n = (active.get(key) ?? 0) + 1;
      active.set(key, n);
      maxPerKey = Math.max(maxPerKey, n);
      maxTotal = Math.max(maxTotal, ++total);
      const run = (runs.get(key) ?? 0) + 1;
      runs.set(key, run);
      if (run === 1) {
        // A burst while processing: idle workers must not pick the key up.
        for (let i = 0; i < 5; i++) q.add(key);
      }
      await sleep(2);
      await flush();
      active.set(key, n - 1);
      total--;
      return ok();
    };
    const workers = runWorkers(q, 4, reconcile);
    q.add('a');
    q.add('b');
    await until(() => runs.get('a') === 2 && runs.get('b') === 2 && q.inFlight() === 0, 'reruns');
    assert.equal(maxPerKey, 1);
    assert.ok(maxTotal > 1, 'distinct keys ran in parallel');
    assert.equal(q.len(), 0);
    q.shutDown();
    await workers;
    assert.deepEqual(Object.fromEntries(runs), { a: 2, b: 2 });
  });

  test('a throwing reconcile is retried with backoff and the worker survives', async () => {
    const q = new WorkQueue({ name: 't', rateLimiter: new ItemExponentialBackoff(1, 4) });
    const errors: Array<{ obj: object; msg: string }> = [];
    const seen: string[] = [];
    const requeuesSeen: number[] = [];
    let failures = 3;
    const workers = runWorkers(
      q,
      1,
      async (key) => {
        seen.push(key);
        if (key === 'bad') {
          requeuesSeen.push(q.numRequeues(key));
          if (failures-- > 0) throw new Error('boom');
          q.add('after');
        }
        return ok();
      },
      {
        logger: {
          error: (obj, msg) => errors.push({ obj, msg }),
          warn: () => assert.fail('an unexpected exception is an error, not a warning'),
          debug: () => {},
        },
        failureLimiter: new FailureLogLimiter({ burst: 10, windowMs: 60_000 }),
      },
    );
    q.add('bad');
    await until(() => seen.includes('after'), 'the worker to process the next key');
    assert.deepEqual(seen, ['bad', 'bad', 'bad', 'bad', 'after']);
    assert.deepEqual(requeuesSeen, [0, 1, 2, 3], 'each failure counted by the rate limiter');
    assert.equal(q.numRequeues('bad'), 0, 'success forgets the key');
    assert.equal(errors.length, 3);
    assert.equal((errors[0]!.obj as { key?: string }).key, 'bad');
    assert.match(((errors[0]!.obj as { err?: Error }).err?.stack ?? '').split('\n')[0] ?? '', /Error: boom/);
    q.shutDown();
    await workers;
  });

  test('retry() results back off; requeueAfter forgets and re-adds after the delay', async () => {
    const q = new WorkQueue({ name: 't', rateLimiter: new ItemExponentialBackoff(1, 2) });
    const results: ReconcileResult[] = [retry(new Error('x')), retry('y'), requeueAfter(3), ok()];
    const requeues: number[] = [];
    const workers = runWorkers(q, 2, async (key) => {
      requeues.push(q.numRequeues(key));
      return results.shift() ?? ok();
    });
    q.add('k');
    await until(() => results.length === 0 && q.inFlight() === 0, 'all results consumed');
    assert.deepEqual(requeues, [0, 1, 2, 0]);
    q.shutDown();
    await workers;
  });

  test('resolves once the queue is shut down and in-flight work has finished', async () => {
    const q = new WorkQueue({ name: 't' });
    let release: () => void = () => {};
    let exited = false;
    const started = new Promise<void>((startedResolve) => {
      void runWorkers(q, 1, () => {
        startedResolve();
        return new Promise<ReconcileResult>((r) => {
          release = () => r(ok());
        });
      }).then(() => {
        exited = true;
      });
    });
    q.add('slow');
    await started;
    const drained = track(q.shutDownWithDrain());
    await flush();
    assert.equal(exited, false);
    assert.equal(drained.settled, false);
    release();
    await until(() => exited && drained.settled, 'workers to exit');
  });

  test('rejects a non-positive concurrency', async () => {
    const q = new WorkQueue({ name: 't' });
    await assert.rejects(
      runWorkers(q, 0, async () => ok()),
      RangeError,
    );
  });
});
