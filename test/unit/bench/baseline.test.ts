// The checks checkoutBaseline makes before it creates anything (git only, no cluster).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { BenchUsageError } from '../../../bench/args.ts';
import { checkoutBaseline } from '../../../bench/baseline.ts';
import { REPO_ROOT } from '../../../src/paths.ts';

const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
/** The paths of the repository's worktrees (not their HEADs: other worktrees may commit meanwhile). */
const worktrees = () =>
  execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('worktree '));

const oneLineUsageError = (message: RegExp) => (e: unknown) =>
  e instanceof BenchUsageError && message.test(e.message) && !e.message.includes('\n');

describe('benchmark baseline checkout', () => {
  test('a revision that is not a commit is refused in one line', () => {
    assert.throws(
      () => checkoutBaseline('no-such-rev-i13'),
      oneLineUsageError(/--baseline no-such-rev-i13: not a commit/),
    );
  });

  test('a commit whose package-lock.json differs is refused in one line, before any worktree exists', () => {
    // The parent of the last commit that changed package-lock.json locks something else (or nothing).
    const changed = git('log', '--format=%H', '-1', '--diff-filter=AM', '--', 'package-lock.json');
    const before = worktrees();
    assert.throws(
      () => checkoutBaseline(`${changed}~1`),
      oneLineUsageError(/its package-lock\.json differs from this tree's/),
    );
    assert.deepEqual(
      worktrees().filter((w) => !before.includes(w)),
      [],
    );
  });
});
