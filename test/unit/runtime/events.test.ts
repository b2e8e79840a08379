import assert from 'node:assert/strict';
import { test } from 'node:test';
import { truncateMiddle } from '../../../src/runtime/events.ts';

test('short messages are kept whole', () => {
  assert.equal(truncateMiddle('abc', 10), 'abc');
});

test('long messages keep both ends within the limit, so an API error keeps its reason', () => {
  const msg = `Job.batch "x" is invalid: ${'y'.repeat(3000)}: field is immutable`;
  const out = truncateMiddle(msg, 1024);
  assert.equal(out.length, 1024);
  assert.ok(out.startsWith('Job.batch "x" is invalid'));
  assert.ok(out.endsWith('field is immutable'));
  assert.ok(out.includes(' … '));
});
