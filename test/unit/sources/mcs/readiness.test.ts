import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Validity } from '../../../../src/mcs/model.ts';
import { exportReady, type ImportOutcome, importReady } from '../../../../src/sources/mcs/readiness.ts';

const valid: Validity = { valid: true, reason: 'Valid', message: 'ok' };
const outcomes = (o: Record<string, ImportOutcome>) => new Map(Object.entries(o));

describe('exportReady', () => {
  test('True Exported once the import is in every consuming member, naming them', () => {
    const r = exportReady({
      validity: valid,
      consumers: outcomes({ b: { kind: 'ok' }, a: { kind: 'ok' } }),
      notServing: [],
    });
    assert.deepEqual(r, {
      status: 'True',
      reason: 'Exported',
      message: 'The service is exported: its ServiceImport is in clusters "a", "b".',
    });
  });

  test('Unknown Pending while some member is still to have it', () => {
    const r = exportReady({
      validity: valid,
      consumers: outcomes({ a: { kind: 'ok' }, b: { kind: 'pending' } }),
      notServing: [],
    });
    assert.equal(r.status, 'Unknown');
    assert.equal(r.reason, 'Pending');
    assert.match(r.message, /cluster "b"/);
  });

  test('False Failed with each failure, which wins over pending ones', () => {
    const r = exportReady({
      validity: valid,
      consumers: outcomes({
        a: { kind: 'pending' },
        b: { kind: 'failed', status: 'CreationFailed', message: 'denied' },
      }),
      notServing: [],
    });
    assert.equal(r.status, 'False');
    assert.equal(r.reason, 'Failed');
    assert.match(r.message, /cluster "b": CreationFailed \(denied\)/);
  });

  test('members without the MCS CRDs are named, and do not hold readiness back', () => {
    const r = exportReady({ validity: valid, consumers: outcomes({ a: { kind: 'ok' } }), notServing: ['c'] });
    assert.equal(r.status, 'True');
    assert.match(r.message, /Not imported into cluster "c": ServiceImports are not served there/);
  });

  test('a derived Service that failed counts as a failure, naming the member and why', () => {
    const r = exportReady({
      validity: valid,
      consumers: outcomes({ a: { kind: 'ok' }, b: { kind: 'ok' } }),
      derived: outcomes({
        a: { kind: 'ok' },
        b: { kind: 'failed', status: 'AlreadyExists', message: 'not ours' },
      }),
      notServing: [],
    });
    assert.equal(r.status, 'False');
    assert.equal(r.reason, 'Failed');
    assert.match(r.message, /cluster "b": derived Service: AlreadyExists \(not ours\)/);
    assert.doesNotMatch(r.message, /cluster "a"/);
  });

  test('a derived Service still to be written keeps the export pending', () => {
    const r = exportReady({
      validity: valid,
      consumers: outcomes({ a: { kind: 'ok' } }),
      derived: outcomes({ a: { kind: 'pending' } }),
      notServing: [],
    });
    assert.equal(r.status, 'Unknown');
    assert.match(r.message, /cluster "a"/);
  });

  test('members whose ServiceImports cannot be listed get their own note, not "not served"', () => {
    const r = exportReady({
      validity: valid,
      consumers: outcomes({ a: { kind: 'ok' } }),
      notServing: [],
      unavailable: [{ cluster: 'c', message: '429 Too Many Requests' }],
    });
    assert.equal(r.status, 'True');
    assert.match(r.message, /cluster "c" \(its ServiceImports cannot be listed: 429 Too Many Requests\)/);
    assert.doesNotMatch(r.message, /not served/);
  });

  test('an invalid export is not exported, and says why', () => {
    const r = exportReady({
      validity: { valid: false, reason: 'NoService', message: 'Service not found' },
      consumers: outcomes({ a: { kind: 'ok' } }),
      notServing: [],
    });
    assert.deepEqual(r, {
      status: 'False',
      reason: 'Failed',
      message: 'The service is not exported: Service not found',
    });
  });
});

describe('importReady', () => {
  test('ClusterSetIP: pending until its clusterset IP exists', () => {
    assert.equal(importReady({ type: 'ClusterSetIP' }, [], []).reason, 'Pending');
    assert.equal(importReady({ type: 'ClusterSetIP' }, ['10.0.0.1'], []).status, 'True');
  });

  test('Headless needs no IP', () => {
    assert.equal(importReady({ type: 'Headless' }, [], []).status, 'True');
  });

  test('a family the member cannot give an IP of: IPFamilyNotSupported', () => {
    const r = importReady({ type: 'ClusterSetIP' }, ['10.0.0.1'], ['IPv6']);
    assert.equal(r.status, 'False');
    assert.equal(r.reason, 'IPFamilyNotSupported');
    assert.match(r.message, /IPv6/);
  });

  describe('importReady, derived Service failed', () => {
    test('Pending says why the clusterset IP is not there', () => {
      const r = importReady({ type: 'ClusterSetIP' }, [], [], {
        kind: 'failed',
        status: 'AlreadyExists',
        message: 'not ours',
      });
      assert.equal(r.status, 'Unknown');
      assert.equal(r.reason, 'Pending');
      assert.equal(
        r.message,
        'Waiting for the clusterset IP. The derived Service could not be written: AlreadyExists (not ours).',
      );
    });
  });
});
