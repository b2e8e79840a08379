// Running a micro-benchmark (bench/status-write.ts, bench/cache-memory.ts) from a smoke test, and reading its
// markdown table.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/paths.ts';

/** Runs `bench/<script>` on this Node with `nodeFlags` and `args`; its stdout (a failure rejects). */
export async function runMicroBench(
  script: string,
  args: string[],
  nodeFlags: string[] = [],
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeFlags, join(REPO_ROOT, 'bench', script), ...args],
    { cwd: REPO_ROOT, timeout: 240_000 },
  );
  return stdout;
}

/** The table rows whose first cell matches `first`, each as its cells after the first, trimmed. */
export function tableRows(stdout: string, first: RegExp): Array<{ row: string; cells: string[] }> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('| ') && first.test(l.split('|')[1]?.trim() ?? ''))
    .map((row) => ({
      row,
      cells: row
        .split('|')
        .slice(2, -1)
        .map((c) => c.trim()),
    }));
}
