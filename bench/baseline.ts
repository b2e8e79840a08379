// --baseline <git-rev>: kubefed-ts at another commit, checked out into a temporary git worktree outside the
// repository, so that the same run measures it next to this tree's kubefed-ts (the ratio of two runs on a
// shared machine would measure the machine). The worktree runs on this tree's node_modules, which is only
// honest when both trees lock the same dependencies.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/paths.ts';
import { BenchUsageError } from './args.ts';

export interface BaselineTree {
  /** As given on the command line. */
  rev: string;
  commit: string;
  /** "kubefed-ts@<short commit>", the system's label in the table. */
  label: string;
  root: string;
  /** `git worktree remove --force`, then the temporary directory; safe to call twice. */
  remove(): void;
}

function git(args: string[], cwd = REPO_ROOT): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function baselineLabel(shortCommit: string): string {
  return `kubefed-ts@${shortCommit}`;
}

/** Checks out rev into a fresh worktree with this tree's node_modules linked in; the caller removes it. */
export function checkoutBaseline(rev: string, repoRoot = REPO_ROOT): BaselineTree {
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], repoRoot);
  } catch {
    throw new BenchUsageError(`--baseline ${rev}: not a commit of ${repoRoot}`);
  }
  const lock = (tree: string) => {
    try {
      return git(['show', `${tree}:package-lock.json`], repoRoot);
    } catch {
      return undefined; // no package-lock.json at that commit
    }
  };
  if (lock(commit) !== readFileSync(join(repoRoot, 'package-lock.json'), 'utf8').trim())
    throw new BenchUsageError(
      `--baseline ${rev}: its package-lock.json differs from this tree's, so it cannot run on this node_modules`,
    );
  const short = git(['rev-parse', '--short', commit], repoRoot);
  const tmp = mkdtempSync(join(tmpdir(), 'kubefed-ts-baseline-'));
  const root = join(tmp, short);
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git(['worktree', 'remove', '--force', root], repoRoot);
    } catch {
      // Never added (git failed below) or already gone: the directory is removed anyway.
    }
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    git(['worktree', 'add', '--detach', root, commit], repoRoot);
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  } catch (e) {
    remove();
    throw e;
  }
  return { rev, commit, label: baselineLabel(short), root, remove };
}
