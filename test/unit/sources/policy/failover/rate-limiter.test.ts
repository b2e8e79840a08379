import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TokenBucket } from '../../../../../src/sources/policy/failover/rate-limiter.ts';

describe('TokenBucket (--resource-eviction-rate)', () => {
  test('0.5/s: one eviction at once, the next two seconds later', () => {
    const b = new TokenBucket(0.5);
    assert.equal(b.take(0), 0);
    assert.equal(b.take(0), 2_000);
    assert.equal(b.take(1_000), 1_000);
    assert.equal(b.take(2_000), 0);
    assert.equal(b.take(2_000), 2_000);
  });
  test('an idle bucket holds no more than its burst', () => {
    const b = new TokenBucket(1, 2);
    assert.equal(b.take(0), 0);
    assert.equal(b.take(0), 0);
    assert.equal(b.take(0), 1_000);
    assert.equal(b.take(60_000), 0);
    assert.equal(b.take(60_000), 0);
    assert.ok(b.take(60_000) > 0);
  });
  test('a rate of 0 does not limit', () => {
    const b = new TokenBucket(0);
    for (let i = 0; i < 10; i++) assert.equal(b.take(0), 0);
  });
});
