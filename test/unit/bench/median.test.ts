import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bracketedMedianRound, medianBy, medianRound } from '../../../bench/median.ts';

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

test('bracketedMedianRound: the median of the rounds before and after the systems together, and where they turn', () => {
  const r = (cpuMsPerMemberObject: number, objectsPerSecond: number) => ({
    cpuMsPerMemberObject,
    objectsPerSecond,
  });
  // Before the systems cheaper than after: the median of all six is the lower middle one (1.89, before), not
  // the median of either side alone (1.83 before, 2.43 after).
  const before = [r(1.83, 852), r(1.73, 900), r(1.89, 830)];
  const after = [r(2.43, 700), r(1.95, 780), r(3.34, 560)];
  assert.deepEqual(bracketedMedianRound(before, after), {
    cpuMsPerMemberObject: 1.89,
    objectsPerSecond: 830,
    roundsCpuMs: [1.83, 1.73, 1.89, 2.43, 1.95, 3.34],
    roundsObjectsPerSecond: [852, 900, 830, 700, 780, 560],
    roundsBefore: 3,
  });
  // Nothing after (the systems skipped or --no-ceiling-after): the rounds before alone.
  assert.equal(bracketedMedianRound(before, []).cpuMsPerMemberObject, 1.83);
  assert.equal(bracketedMedianRound(before, []).roundsBefore, 3);
});
