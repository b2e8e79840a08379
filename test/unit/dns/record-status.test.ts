import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextRecordStatus } from '../../../src/dns/record-status.ts';

const T0 = new Date('2026-11-30T10:00:00Z');
const T1 = new Date('2026-11-30T10:01:00Z');

describe('nextRecordStatus', () => {
  test('a failure before any DNS is computed keeps the previous dns and domain', () => {
    const prev = { dns: [{ cluster: 'c1' }], domain: 'example.com' };
    const out = nextRecordStatus(
      prev,
      { outcome: { ready: false, reason: 'DomainNotFound', message: 'Domain "ns/d" does not exist' } },
      T0,
    );
    assert.deepEqual(out.dns, prev.dns);
    assert.equal(out.domain, 'example.com');
    assert.deepEqual(out.conditions, [
      {
        type: 'Ready',
        status: 'False',
        reason: 'DomainNotFound',
        message: 'Domain "ns/d" does not exist',
        lastTransitionTime: '2026-11-30T10:00:00Z',
      },
    ]);
  });

  test('publishing again with the same outcome gives an identical status (so no write)', () => {
    const update = {
      dns: [],
      domain: 'example.com',
      outcome: { ready: true, reason: 'Published', message: '' },
    };
    const first = nextRecordStatus(undefined, update, T0);
    assert.deepEqual(nextRecordStatus(first, update, T1), first);
  });
});
