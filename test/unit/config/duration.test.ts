import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DurationParseError,
  formatDuration,
  formatDurationNanos,
  parseDuration,
  parseDurationNanos,
  tryParseDuration,
} from '../../../src/config/duration.ts';

const NS = 1n;
const US = 1000n;
const MS = 1000n * US;
const S = 1000n * MS;
const M = 60n * S;
const H = 60n * M;
const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);

describe('parseDuration (milliseconds)', () => {
  const cases: [string, number][] = [
    ['1500ms', 1500],
    ['1m30s', 90_000],
    ['5m', 300_000],
    ['10s', 10_000],
    ['0.5s', 500],
    ['1h', 3_600_000],
    ['20s', 20_000],
    ['1m0s', 60_000],
    ['5m0s', 300_000],
    ['0', 0],
    ['-5s', -5000],
    ['1us', 0.001],
    ['1.5ms', 1.5],
  ];
  for (const [input, ms] of cases) {
    test(`${JSON.stringify(input)} → ${ms}`, () => assert.equal(parseDuration(input), ms));
  }
});

describe('parseDurationNanos matches Go time.ParseDuration', () => {
  const cases: [string, bigint][] = [
    ['0', 0n],
    ['-0', 0n],
    ['+0', 0n],
    ['5s', 5n * S],
    ['+5s', 5n * S],
    ['-5s', -5n * S],
    ['5.0s', 5n * S],
    ['5.6s', 5n * S + 600n * MS],
    ['5.s', 5n * S],
    ['.5s', 500n * MS],
    ['1.004s', S + 4n * MS],
    ['100.00100s', 100n * S + MS],
    ['10ns', 10n * NS],
    ['11us', 11n * US],
    ['12µs', 12n * US], // U+00B5
    ['12μs', 12n * US], // U+03BC
    ['13ms', 13n * MS],
    ['15m', 15n * M],
    ['16h', 16n * H],
    ['3h30m', 3n * H + 30n * M],
    ['10.5s4m', 4n * M + 10n * S + 500n * MS],
    ['-2m3.4s', -(2n * M + 3n * S + 400n * MS)],
    ['1h2m3s4ms5us6ns', H + 2n * M + 3n * S + 4n * MS + 5n * US + 6n * NS],
    ['39h9m14.425s', 39n * H + 9n * M + 14n * S + 425n * MS],
    ['0.3333333333333333333h', 20n * M],
    ['9007199254740993ns', (1n << 53n) + 1n],
    ['9223372036854775807ns', MAX],
    ['9223372036854775.807us', MAX],
    ['9223372036854.775807ms', MAX],
    ['-9223372036854775808ns', MIN],
    ['0.100000000000000000000h', 6n * M],
    // Go computes fractions in float64; the exact nanoseconds here pin that behaviour.
    ['0.830103483285477580700h', 49n * M + 48n * S + 372539827n * NS],
  ];
  for (const [input, ns] of cases) {
    test(JSON.stringify(input), () => assert.equal(parseDurationNanos(input), ns));
  }
});

describe('invalid durations throw DurationParseError with Go messages', () => {
  const cases: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['10 s', 'time: unknown unit " s" in duration "10 s"'],
    ['abc', 'time: invalid duration "abc"'],
    ['1.5', 'time: missing unit in duration "1.5"'],
    ['--1s', 'time: invalid duration "--1s"'],
    ['1s-1s', 'time: unknown unit "s-" in duration "1s-1s"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['9223372036854775.808us', 'time: invalid duration "9223372036854775.808us"'],
    ['9223372036854ms775us808ns', 'time: invalid duration "9223372036854ms775us808ns"'],
    ['-9223372036854775809ns', 'time: invalid duration "-9223372036854775809ns"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['1é', 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'],
    ['"1s', 'time: invalid duration "\\"1s"'],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input), () => {
      assert.throws(
        () => parseDuration(input),
        (err: unknown) => err instanceof DurationParseError && err.message === message && err.input === input,
      );
      assert.equal(tryParseDuration(input), undefined);
    });
  }
});

describe('formatDurationNanos matches Go Duration.String()', () => {
  const cases: [bigint, string][] = [
    [0n, '0s'],
    [1n * NS, '1ns'],
    [1100n * NS, '1.1µs'],
    [2200n * US, '2.2ms'],
    [3300n * MS, '3.3s'],
    [4n * M + 5n * S, '4m5s'],
    [4n * M + 5001n * MS, '4m5.001s'],
    [5n * H + 6n * M + 7001n * MS, '5h6m7.001s'],
    [8n * M + 1n * NS, '8m0.000000001s'],
    [MAX, '2562047h47m16.854775807s'],
    [MIN, '-2562047h47m16.854775808s'],
    [-1500n * MS, '-1.5s'],
    [60n * S, '1m0s'],
    [H, '1h0m0s'],
  ];
  for (const [ns, text] of cases) {
    test(text, () => assert.equal(formatDurationNanos(ns), text));
  }

  test('rejects values outside int64', () => {
    assert.throws(() => formatDurationNanos(MAX + 1n), RangeError);
  });
});

describe('formatDuration (milliseconds)', () => {
  const cases: [number, string][] = [
    [20_000, '20s'],
    [60_000, '1m0s'],
    [300_000, '5m0s'],
    [1500, '1.5s'],
    [3_600_000, '1h0m0s'],
    [90_000, '1m30s'],
    [0.5, '500µs'],
    [0, '0s'],
    [-1500, '-1.5s'],
  ];
  for (const [ms, text] of cases) {
    test(`${ms} → ${text}`, () => assert.equal(formatDuration(ms), text));
  }

  test('round-trips through parseDuration', () => {
    for (const text of ['20s', '1m0s', '5m0s', '1.5s', '1h0m0s', '2h3m4.005s', '1.5ms']) {
      assert.equal(formatDuration(parseDuration(text)), text);
    }
  });

  test('rejects non-finite input', () => {
    assert.throws(() => formatDuration(Number.NaN), RangeError);
    assert.throws(() => formatDuration(Number.POSITIVE_INFINITY), RangeError);
  });
});
