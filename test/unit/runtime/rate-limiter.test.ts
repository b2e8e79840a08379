import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  defaultControllerRateLimiter,
  ItemExponentialBackoff,
  kubefedRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
} from '../../../src/runtime/workqueue/index.ts';

describe('ItemExponentialBackoff', () => {
  test('doubles per failure from base and caps at max', () => {
    const rl = new ItemExponentialBackoff(5, 100);
    const delays = Array.from({ length: 7 }, () => rl.when('a'));
    assert.deepEqual(delays, [5, 10, 20, 40, 80, 100, 100]);
    assert.equal(rl.retries('a'), 7);
  });

  test('tracks keys independently and forget resets one key', () => {
    const rl = new ItemExponentialBackoff(1, 1000);
    rl.when('a');
    rl.when('a');
    rl.when('b');
    assert.equal(rl.retries('a'), 2);
    assert.equal(rl.retries('b'), 1);
    rl.forget('a');
    assert.equal(rl.retries('a'), 0);
    assert.equal(rl.when('a'), 1);
    assert.equal(rl.retries('b'), 1);
    assert.equal(rl.retries('never'), 0);
  });

  test('stays at the cap (never NaN or Infinity) after very many failures', () => {
    const rl = new ItemExponentialBackoff(5, 1_000_000);
    const zero = new ItemExponentialBackoff(0, 50);
    let last = 0;
    let lastZero = -1;
    for (let i = 0; i < 5000; i++) {
      last = rl.when('a');
      lastZero = zero.when('a');
    }
    assert.equal(last, 1_000_000);
    assert.equal(lastZero, 0);
  });

  test('KubeFed timings: 5 s doubling to 60 s', () => {
    const rl = kubefedRateLimiter();
    assert.deepEqual(
      Array.from({ length: 6 }, () => rl.when('ns/name')),
      [5_000, 10_000, 20_000, 40_000, 60_000, 60_000],
    );
  });

  test('rejects negative durations', () => {
    assert.throws(() => new ItemExponentialBackoff(-1, 10), RangeError);
  });
});

describe('TokenBucketRateLimiter', () => {
  test('allows a burst, then spaces calls at 1/qps and refills over time', () => {
    let now = 0;
    const rl = new TokenBucketRateLimiter(1, 3, () => now);
    assert.deepEqual(
      Array.from({ length: 5 }, (_, i) => rl.when(`k${i}`)),
      [0, 0, 0, 1000, 2000],
    );
    // Three seconds refill the two outstanding reservations plus one token.
    now += 3000;
    assert.equal(rl.when('x'), 0);
    assert.equal(rl.when('y'), 1000);
  });

  test('refill is capped at burst', () => {
    let now = 0;
    const rl = new TokenBucketRateLimiter(10, 2, () => now);
    now += 60_000;
    assert.deepEqual([rl.when('a'), rl.when('b'), rl.when('c')], [0, 0, 100]);
  });

  test('is overall rather than per key and has no per-key state', () => {
    const rl = new TokenBucketRateLimiter(10, 1, () => 0);
    assert.equal(rl.when('a'), 0);
    assert.equal(rl.when('b'), 100);
    rl.forget('b');
    assert.equal(rl.retries('b'), 0);
  });

  test('validates parameters', () => {
    assert.throws(() => new TokenBucketRateLimiter(0, 1), RangeError);
    assert.throws(() => new TokenBucketRateLimiter(1, 0), RangeError);
  });
});

describe('MaxOfRateLimiter', () => {
  test('returns the longest delay and forwards forget/retries to all', () => {
    const exp = new ItemExponentialBackoff(10, 1000);
    const bucket = new TokenBucketRateLimiter(1, 1, () => 0);
    const rl = new MaxOfRateLimiter(exp, bucket);
    assert.equal(rl.when('a'), 10); // bucket has a token: exponential wins
    assert.equal(rl.when('a'), 1000); // bucket empty: 1 s beats 20 ms
    assert.equal(rl.retries('a'), 2);
    rl.forget('a');
    assert.equal(rl.retries('a'), 0);
    assert.equal(exp.retries('a'), 0);
  });

  test('needs at least one limiter', () => {
    assert.throws(() => new MaxOfRateLimiter(), RangeError);
  });
});

describe('defaultControllerRateLimiter', () => {
  test('matches client-go: 5 ms per-key base, 10 qps after a burst of 100', () => {
    const rl = defaultControllerRateLimiter(() => 0);
    for (let i = 0; i < 100; i++) assert.equal(rl.when(`k${i}`), 5);
    assert.equal(rl.when('k100'), 100);
    assert.equal(rl.retries('k0'), 1);
  });

  test('per-key backoff reaches the 1000 s cap', () => {
    const rl = defaultControllerRateLimiter(() => 0);
    let last = 0;
    for (let i = 0; i < 40; i++) last = rl.when('hot');
    assert.equal(last, 1_000_000);
  });
});
