import assert from 'node:assert/strict';
import { test } from 'node:test';
import { medianBy } from '../../../bench/median.ts';

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
