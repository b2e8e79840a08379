import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { burstEnd, sampleAtOrAfter, type TimedCpu } from '../../../bench/burst-end.ts';

const at = (t: number, host: number): TimedCpu => ({ at: t, cpu: { host } });
const trail = [at(100, 1), at(200, 2), at(300, 3)];

describe('sampleAtOrAfter', () => {
  test('the first sample taken at or after the moment', () => {
    assert.equal(sampleAtOrAfter(trail, 150)?.cpu.host, 2);
    assert.equal(sampleAtOrAfter(trail, 200)?.cpu.host, 2);
    assert.equal(sampleAtOrAfter(trail, 0)?.cpu.host, 1);
  });
  test('none when every sample is older', () => {
    assert.equal(sampleAtOrAfter(trail, 301), undefined);
    assert.equal(sampleAtOrAfter([], 1), undefined);
  });
});

describe('burstEnd', () => {
  const arrival = at(90, 0.5);
  test('at the arrival when no write came after it, or none was seen', () => {
    assert.deepEqual(burstEnd({ arrival, lastWriteAt: 80, trail, lastBusy: { host: 9 } }), { host: 0.5 });
    assert.deepEqual(burstEnd({ arrival, lastWriteAt: undefined, trail, lastBusy: { host: 9 } }), {
      host: 0.5,
    });
  });
  test('at the first trail sample after a later write (the status tail), not at the busy scrape', () => {
    assert.deepEqual(burstEnd({ arrival, lastWriteAt: 210, trail, lastBusy: { host: 9 } }), { host: 3 });
  });
  test("at the settle's last busy scrape when the trail stopped before the write", () => {
    assert.deepEqual(burstEnd({ arrival, lastWriteAt: 400, trail, lastBusy: { host: 9 } }), { host: 9 });
    assert.deepEqual(burstEnd({ arrival, lastWriteAt: 400, trail, lastBusy: undefined }), { host: 0.5 });
  });
});
