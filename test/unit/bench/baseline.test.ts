// The checks checkoutBaseline makes before it creates anything (git only, no cluster).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { BenchUsageError } from '../../../bench/args.ts';
import { checkoutBaseline, lockMismatches } from '../../../bench/baseline.ts';
import { REPO_ROOT } from '../../../src/paths.ts';

const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
const oneLineUsageError = (message: RegExp) => (e: unknown) =>
  e instanceof BenchUsageError && message.test(e.message) && !e.message.includes('\n');

describe('benchmark baseline checkout', () => {
  test('a revision that is not a commit is refused in one line', () => {
    assert.throws(
      () => checkoutBaseline('no-such-rev-i13'),
      oneLineUsageError(/--baseline no-such-rev-i13: not a commit/),
    );
  });

  test('a baseline is refused when a package both trees lock has another version, allowed when it only has more', () => {
    const lock = (packages: Record<string, string>) =>
      JSON.stringify({
        packages: Object.fromEntries([
          ['', { name: 'kubefed-ts' }],
          ...Object.entries(packages).map(([p, version]) => [`node_modules/${p}`, { version }]),
        ]),
      });
    const current = lock({ undici: '7.1.0', yaml: '2.8.0' });
    assert.deepEqual(lockMismatches(lock({ undici: '7.1.0', yaml: '2.8.0' }), current), []);
    assert.deepEqual(lockMismatches(lock({ undici: '7.1.0', yaml: '2.8.0', unused: '1.0.0' }), current), []);
    assert.deepEqual(lockMismatches(lock({ undici: '7.0.0', yaml: '2.8.0' }), current), ['undici']);
    assert.deepEqual(lockMismatches(undefined, current), ['package-lock.json']);
  });

  test("this tree's own HEAD is a valid baseline lock", () => {
    const head = git('show', 'HEAD:package-lock.json');
    assert.deepEqual(lockMismatches(head, head), []);
  });
});
