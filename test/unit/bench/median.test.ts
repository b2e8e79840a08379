import assert from 'node:assert/strict';
import { test } from 'node:test';
import { medianBy, medianRound } from '../../../bench/median.ts';

const round = (cpuMs: number, rate: number) => ({ cpuMs, rate });

test('the round with the median CPU is reported whole, whatever order the rounds came in', () => {
  const rounds = [round(1.84, 864), round(1.42, 1088), round(1.7, 900)];
  assert.deepEqual(
    medianBy(rounds, (r) => r.cpuMs),
    round(1.7, 900),
  );
  assert.deepEqual(
    medianBy([...rounds].reverse(), (r) => r.cpuMs),
    round(1.7, 900),
  );
});

test('one round is its own median; of an even count the lower middle one; none is an error', () => {
  assert.deepEqual(
    medianBy([round(2, 1)], (r) => r.cpuMs),
    round(2, 1),
  );
  assert.deepEqual(
    medianBy([round(4, 1), round(1, 1), round(3, 1), round(2, 1)], (r) => r.cpuMs),
    round(2, 1),
  );
  assert.throws(() => medianBy([], (r: { cpuMs: number }) => r.cpuMs), /no items/);
});

test("medianRound: the median round whole, every round's CPU and rate beside it in the order they ran", () => {
  const rounds = [
    { cpuMsPerMemberObject: 6.75, objectsPerSecond: 293, seconds: 10.24 },
    { cpuMsPerMemberObject: 6.92, objectsPerSecond: 282, seconds: 10.62 },
    { cpuMsPerMemberObject: 6.63, objectsPerSecond: 297, seconds: 10.12 },
  ];
  assert.deepEqual(medianRound(rounds), {
    cpuMsPerMemberObject: 6.75,
    objectsPerSecond: 293,
    seconds: 10.24,
    roundsCpuMs: [6.75, 6.92, 6.63],
    roundsObjectsPerSecond: [293, 282, 297],
  });
});
