import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BenchUsageError } from '../../../bench/args.ts';
import { type ScaleFlags, scaleOptionsFrom } from '../../../bench/scale-cli.ts';

const flags = (f: Partial<ScaleFlags> = {}): ScaleFlags => ({
  scaleMembers: '3,10',
  scaleObjects: '1000,5000,10000',
  updateSamples: 30,
  timeout: 900,
  ...f,
});
const log = () => {};

describe('bench --scale flags', () => {
  test('defaults: configmaps, kubefed-ts and its native front end, no recoveries', () => {
    const o = scaleOptionsFrom(flags(), log);
    assert.deepEqual(
      [o.members, o.objects, o.kind, o.systems, o.restart, o.failover],
      [[3, 10], [1000, 5000, 10_000], 'configmaps', ['kubefed-ts', 'kubefed-ts-native'], false, false],
    );
  });

  test('--systems and --types as given; KubeFed allowed', () => {
    const o = scaleOptionsFrom(flags({ systems: 'kubefed', types: 'deployments', restart: true }), log);
    assert.deepEqual([o.systems, o.kind, o.restart], [['kubefed'], 'deployments', true]);
  });

  test('one type at a time, ascending positive counts', () => {
    assert.throws(() => scaleOptionsFrom(flags({ types: 'configmaps,deployments' }), log), BenchUsageError);
    assert.throws(() => scaleOptionsFrom(flags({ scaleMembers: '10,3' }), log), /ascending/);
    assert.throws(() => scaleOptionsFrom(flags({ scaleObjects: '0,5' }), log), /positive/);
    assert.throws(() => scaleOptionsFrom(flags({ scaleObjects: '' }), log), /positive/);
  });
});
