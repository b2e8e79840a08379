import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BenchUsageError, parseCount, parseKinds, parseList, resolveSystems } from '../../../bench/args.ts';

describe('benchmark command line (pure parts)', () => {
  test('without --systems: kubefed-ts, its native front end and KubeFed, with --baseline the baseline right after kubefed-ts', () => {
    assert.deepEqual(resolveSystems(undefined, undefined), ['kubefed-ts', 'kubefed-ts-native', 'kubefed']);
    assert.deepEqual(resolveSystems(undefined, 'a203649'), [
      'kubefed-ts',
      'baseline',
      'kubefed-ts-native',
      'kubefed',
    ]);
  });

  test('--systems is taken as given, in its order, with or without the baseline', () => {
    assert.deepEqual(resolveSystems('kubefed-ts,baseline', 'main~1'), ['kubefed-ts', 'baseline']);
    assert.deepEqual(resolveSystems(' baseline , kubefed-ts ', 'main~1'), ['baseline', 'kubefed-ts']);
    assert.deepEqual(resolveSystems('kubefed-ts', 'main~1'), ['kubefed-ts']);
    assert.deepEqual(resolveSystems('kubefed-ts,kubefed-ts-native', undefined), [
      'kubefed-ts',
      'kubefed-ts-native',
    ]);
  });

  test('--systems mistakes are usage errors with one readable line', () => {
    const usage = (systems: string, baseline: string | undefined, message: RegExp) =>
      assert.throws(
        () => resolveSystems(systems, baseline),
        (e: unknown) => e instanceof BenchUsageError && message.test(e.message) && !e.message.includes('\n'),
      );
    usage('kubefed-ts,baseline', undefined, /--systems baseline needs --baseline <git-rev>/);
    usage(
      'kubefed-ts,kubefedts',
      'x',
      /unknown system kubefedts \(kubefed-ts, baseline, kubefed-ts-native, kubefed\)/,
    );
    usage('kubefed,kubefed', undefined, /kubefed given twice/);
    usage(',', undefined, /no system given/);
  });

  test('lists, counts and types', () => {
    assert.deepEqual(parseList('8, 32,,128'), ['8', '32', '128']);
    assert.equal(parseCount('0'), 0);
    assert.equal(parseCount('200'), 200);
    for (const bad of ['-1', '1.5', 'ten', ''])
      assert.throws(() => parseCount(bad), BenchUsageError, `"${bad}" accepted`);
    assert.deepEqual(parseKinds('deployments,configmaps'), ['deployments', 'configmaps']);
    assert.throws(() => parseKinds('configmaps,secrets'), /unknown type secrets/);
  });
});
