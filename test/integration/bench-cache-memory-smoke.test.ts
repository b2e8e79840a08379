// A tiny run of the cache-memory micro-benchmark (bench/cache-memory.ts, docs/benchmarks.md) so that it cannot
// rot: it must finish, its own checks must pass (every informer held every object, and exactly the stripped
// variant held them without managedFields), and every row must hold both measured figures. Never the sizes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runMicroBench, tableRows } from './micro-bench.ts';

describe('cache-memory micro-benchmark smoke run', () => {
  test('loads member copies and federated objects as served and without managedFields', async () => {
    const stdout = await runMicroBench(
      'cache-memory.ts',
      ['--objects', '20', '--rounds', '1'],
      ['--expose-gc'],
    );
    const rows = tableRows(stdout, /^(ConfigMap|Deployment|FederatedConfigMap) \(/);
    assert.equal(rows.length, 3, stdout);
    for (const { row, cells } of rows) {
      assert.equal(cells.length, 4, row);
      // Heap figures of 20 objects are too small to compare; each must be measured, and the ratio computed.
      assert.match(cells[0] ?? '', /^-?\d+$/, row);
      assert.match(cells[1] ?? '', /^-?\d+$/, row);
      assert.match(cells[2] ?? '', /^-?\d+\.\d\d×$/, row);
      assert.match(cells[3] ?? '', /^-?\d+; -?\d+$/, row);
    }
  });
});
