// A tiny run of the cache-memory micro-benchmark (bench/cache-memory.ts, docs/benchmarks.md) so that it cannot
// rot: it must finish, its own checks must pass (every informer held every object, and exactly the stripped
// variant held them without managedFields), and every row must hold both measured figures. Never the sizes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/paths.ts';

describe('cache-memory micro-benchmark smoke run', () => {
  test('loads member copies and federated objects as served and without managedFields', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', join(REPO_ROOT, 'bench/cache-memory.ts'), '--objects', '20', '--rounds', '1'],
      { cwd: REPO_ROOT, timeout: 240_000 },
    );
    const rows = stdout.split('\n').filter((l) => /^\| (ConfigMap|Deployment|FederatedConfigMap) \(/.test(l));
    assert.equal(rows.length, 3, stdout);
    for (const row of rows) {
      const cells = row
        .split('|')
        .slice(2, -1)
        .map((c) => c.trim());
      assert.equal(cells.length, 4, row);
      // Heap figures of 20 objects are too small to compare; each must be measured, and the ratio computed.
      assert.match(cells[0] ?? '', /^-?\d+$/, row);
      assert.match(cells[1] ?? '', /^-?\d+$/, row);
      assert.match(cells[2] ?? '', /^-?\d+\.\d\d×$/, row);
      assert.match(cells[3] ?? '', /^-?\d+; -?\d+$/, row);
    }
  });
});
