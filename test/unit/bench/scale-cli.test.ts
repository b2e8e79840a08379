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

  test('--baseline: kubefed-ts at that commit right after this tree, or where --systems puts it', () => {
    const o = scaleOptionsFrom(flags({ baseline: 'HEAD~1' }), log);
    assert.deepEqual([o.systems, o.baseline], [['kubefed-ts', 'baseline', 'kubefed-ts-native'], 'HEAD~1']);
    const only = scaleOptionsFrom(flags({ baseline: 'HEAD~1', systems: 'baseline,kubefed-ts' }), log);
    assert.deepEqual([only.systems, only.baseline], [['baseline', 'kubefed-ts'], 'HEAD~1']);
    // Left out by --systems: nothing to check out.
    assert.equal(
      scaleOptionsFrom(flags({ baseline: 'HEAD~1', systems: 'kubefed-ts' }), log).baseline,
      undefined,
    );
    assert.throws(() => scaleOptionsFrom(flags({ systems: 'baseline' }), log), /--baseline/);
  });

  test('one type at a time, ascending positive counts', () => {
    assert.throws(() => scaleOptionsFrom(flags({ types: 'configmaps,deployments' }), log), BenchUsageError);
    assert.throws(() => scaleOptionsFrom(flags({ scaleMembers: '10,3' }), log), /ascending/);
    assert.throws(() => scaleOptionsFrom(flags({ scaleObjects: '0,5' }), log), /positive/);
    assert.throws(() => scaleOptionsFrom(flags({ scaleObjects: '' }), log), /positive/);
  });
});
