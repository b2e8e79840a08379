// A tiny run of the status-write micro-benchmark (bench/status-write.ts, docs/benchmarks.md) so that it cannot
// rot: it must finish, its own check that the apiserver counted every write must pass, and every cell of the
// table must hold a measured CPU figure. Never speed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runMicroBench, tableRows } from './micro-bench.ts';

describe('status-write micro-benchmark smoke run', () => {
  test('measures create, status PUT and status PATCH in a burst and at a QPS limit, each write counted', async () => {
    const stdout = await runMicroBench('status-write.ts', [
      ...['--type', 'deployments', '--objects', '20', '--qps', '0,100', '--rounds', '1', '--settle', '0'],
    ]);
    const rows = tableRows(stdout, /^(create|status PUT|status merge PATCH)$/);
    assert.equal(rows.length, 3, stdout);
    for (const { row, cells } of rows) {
      // Two rates of CPU ms per request, the write against the create, and the second rate against the first.
      assert.equal(cells.length, 4, row);
      assert.ok(Number(cells[0]) > 0 && Number(cells[1]) > 0, `CPU measured at both rates: ${row}`);
      assert.match(cells[2] ?? '', /^\d+\.\d\d×$/, row);
      assert.match(cells[3] ?? '', /^\d+\.\d\d×$/, row);
    }
    assert.match(rows[0]?.row ?? '', /^\| create \| [\d.]+ \| [\d.]+ \| 1\.00× \|/);
  });
});
