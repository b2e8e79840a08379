import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseListenAddress } from '../../../src/runtime/http-server.ts';
import { formatMicroTime } from '../../../src/runtime/leader-election.ts';
import { Backoff } from '../../../src/util/backoff.ts';

test('Lease times are MicroTime with exactly six fractional digits (the API server rejects three)', () => {
  assert.equal(formatMicroTime(new Date('2026-11-29T22:34:00.123Z')), '2026-11-29T22:34:00.123000Z');
  assert.equal(formatMicroTime(new Date('2026-11-29T22:34:00.000Z')), '2026-11-29T22:34:00.000000Z');
});

test('Go-style listen addresses, as KubeFed flags take them', () => {
  assert.deepEqual(parseListenAddress(':8080'), { host: undefined, port: 8080 });
  assert.deepEqual(parseListenAddress('127.0.0.1:9090'), { host: '127.0.0.1', port: 9090 });
  assert.deepEqual(parseListenAddress('[::1]:0'), { host: '::1', port: 0 });
  assert.throws(() => parseListenAddress('8080'), /invalid listen address/);
  assert.throws(() => parseListenAddress(':70000'), /out of range/);
});

test('reconnect backoff doubles to its cap, with bounded jitter, and resets', () => {
  const b = new Backoff(100, 1000, 0.2);
  const seen = Array.from({ length: 6 }, () => b.next());
  const bases = [100, 200, 400, 800, 1000, 1000];
  seen.forEach((d, i) => {
    const base = bases[i] ?? 0;
    assert.ok(d >= base * 0.8 && d <= base * 1.2, `delay ${i} = ${d}, base ${base}`);
  });
  b.reset();
  assert.ok(b.next() <= 120);
});
