// --baseline <git-rev>: kubefed-ts at another commit, checked out into a temporary git worktree outside the
// repository, so that the same run measures it next to this tree's kubefed-ts (the ratio of two runs on a
// shared machine would measure the machine). The worktree runs on this tree's node_modules, which is only
// honest when every package both trees lock is locked at the same version (a package only the baseline
// locks, e.g. one removed since as unused, is not installed here: if the baseline needed it, it would not start).
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

type LockFile = { packages?: Record<string, { version?: string }> };

/**
 * The packages (node_modules paths) that both package-lock.json files lock, at different versions; a baseline
 * without a lock file matches nothing (['package-lock.json']).
 */
export function lockMismatches(baseline: string | undefined, current: string): string[] {
  if (baseline === undefined) return ['package-lock.json'];
  const ours = (JSON.parse(current) as LockFile).packages ?? {};
  const theirs = (JSON.parse(baseline) as LockFile).packages ?? {};
  return Object.entries(theirs)
    .filter(([path, p]) => path !== '' && ours[path] !== undefined && ours[path]?.version !== p.version)
    .map(([path]) => path.replace(/^node_modules\//, ''))
    .sort();
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
  const mismatched = lockMismatches(lock(commit), readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));
  if (mismatched.length > 0)
    throw new BenchUsageError(
      `--baseline ${rev}: its package-lock.json locks other versions of ${mismatched.slice(0, 5).join(', ')}` +
        `${mismatched.length > 5 ? ', …' : ''}, so it cannot run on this node_modules`,
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

/**
 * Runs `body` with kubefed-ts at `rev` checked out when the run measures the `baseline` system, and removes the
 * worktree afterwards whatever happens; `body` gets undefined when there is no baseline to measure.
 */
export async function withBaseline<T>(
  rev: string | undefined,
  systems: readonly string[],
  log: (m: string) => void,
  body: (baseline: BaselineTree | undefined) => Promise<T>,
): Promise<T> {
  if (rev === undefined || !systems.includes('baseline')) return body(undefined);
  const baseline = checkoutBaseline(rev);
  log(`baseline ${baseline.label}: ${baseline.commit} checked out in ${baseline.root}`);
  try {
    return await body(baseline);
  } finally {
    log(`removing the baseline worktree ${baseline.root}`);
    baseline.remove();
  }
}
