import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CacheSource, Controller } from '../../../src/runtime/controller.ts';
import type { Enqueue } from '../../../src/runtime/handlers.ts';
import { ok, type ReconcileResult } from '../../../src/runtime/reconcile.ts';

/** A cache that syncs when told to and writes what happens to it into `log`. */
function fakeCache(name: string, log: string[]): CacheSource & { sync(): void } {
  let synced = false;
  let release: () => void = () => {};
  const syncedPromise = new Promise<void>((r) => {
    release = r;
  });
  return {
    start: () => void log.push(`${name} start`),
    waitForSync: () => syncedPromise,
    hasSynced: () => synced,
    stop: async () => void log.push(`${name} stop`),
    sync: () => {
      synced = true;
      release();
    },
  };
}

/** Resolves once `predicate` holds (polled on the event loop). */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setImmediate(r));
}

test('sources, caches, start hooks, workers and the stop run in order', async () => {
  const log: string[] = [];
  const reconciled: string[] = [];
  let enqueueFromSource: Enqueue = () => {};
  const c = new Controller({
    name: 'test-order',
    reconcile: async (key): Promise<ReconcileResult> => {
      reconciled.push(key);
      log.push(`reconcile ${key}`);
      return ok();
    },
  });
  const cache = fakeCache('cache', log);
  c.cache(cache)
    .source((enqueue) => {
      log.push('subscribe');
      enqueueFromSource = enqueue;
      return () => void log.push('unsubscribe');
    })
    .beforeWorkers(async () => {
      log.push('load');
      c.enqueue('from-hook');
    })
    .onStop(() => void log.push('stop hook'));
  const abort = new AbortController();
  const running = c.run(abort.signal);
  assert.deepEqual(log, ['subscribe', 'cache start']);
  assert.equal(c.hasSynced(), false);
  enqueueFromSource('early');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(reconciled, [], 'no reconcile before the caches synced');
  cache.sync();
  assert.equal(c.hasSynced(), true);
  await until(() => reconciled.length === 2);
  assert.deepEqual(reconciled, ['early', 'from-hook']);
  assert.ok(
    log.indexOf('load') < log.indexOf('reconcile early'),
    'the start hook finishes before the workers',
  );
  abort.abort();
  await running;
  assert.deepEqual(log.slice(-3), ['unsubscribe', 'stop hook', 'cache stop']);
});

test('a delayed enqueue arrives later; keys enqueued after the stop are dropped', async () => {
  const reconciled: string[] = [];
  const c = new Controller({
    name: 'test-delay',
    reconcile: async (key) => {
      reconciled.push(key);
      return ok();
    },
  });
  c.start();
  c.enqueue('later', 30);
  c.enqueue('now');
  await until(() => reconciled.length === 2);
  assert.deepEqual(reconciled, ['now', 'later']);
  await c.stop();
  c.enqueue('after-stop');
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(reconciled, ['now', 'later']);
});

test('stopped before the caches synced: no start hook, no reconcile, everything stopped', async () => {
  const log: string[] = [];
  const c = new Controller({
    name: 'test-early-stop',
    reconcile: async (key) => {
      log.push(`reconcile ${key}`);
      return ok();
    },
  });
  c.cache(fakeCache('cache', log))
    .beforeWorkers(() => void log.push('load'))
    .loop(async () => void log.push('loop'))
    .onStop(() => void log.push('stop hook'));
  c.enqueue('k');
  c.start();
  await c.stop();
  assert.deepEqual(log, ['cache start', 'stop hook', 'cache stop']);
});

test('a loop runs once the caches synced and is awaited on stop', async () => {
  const log: string[] = [];
  const c = new Controller({ name: 'test-loop' });
  const cache = fakeCache('cache', log);
  c.cache(cache).loop(async (signal) => {
    log.push('loop start');
    await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    log.push('loop end');
  });
  c.start();
  cache.sync();
  await until(() => log.includes('loop start'));
  await c.stop();
  assert.deepEqual(log, ['cache start', 'loop start', 'loop end', 'cache stop']);
});

test('a controller runs once', async () => {
  const c = new Controller({ name: 'test-once' });
  const abort = new AbortController();
  abort.abort();
  await c.run(abort.signal);
  await assert.rejects(c.run(abort.signal), /runs already/);
});
