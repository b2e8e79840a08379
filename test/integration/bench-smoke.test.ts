// A scaled-down run of the benchmark (bench/, docs/benchmarks.md) so that it cannot rot: every system (the
// baseline is this tree's HEAD, checked out into a worktree) and the ceiling, N = 5 on one member, a 2 s idle
// window. It checks correctness — every row present, every
// object arrived with the expected content, no member writes at steady state — never speed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { type BenchReport, runBenchmark } from '../../bench/benchmark.ts';
import { renderReport } from '../../bench/table.ts';
import { REPO_ROOT } from '../../src/paths.ts';

/** The paths of the repository's worktrees (not their HEADs: other worktrees may commit meanwhile). */
const worktrees = () =>
  execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('worktree '));

describe('benchmark smoke run (every system and the ceiling, tiny N)', () => {
  test('prints the whole table and every object arrives in every system', async () => {
    const objects = 5;
    const worktreesBefore = worktrees();
    const report: BenchReport = await runBenchmark({
      members: 1,
      objects,
      kinds: ['configmaps', 'deployments'],
      systems: ['kubefed-ts', 'baseline', 'kubefed'],
      baseline: 'HEAD',
      idleSeconds: 2,
      updateSamples: 2,
      ceilingConcurrency: [2, 8],
      timeoutSeconds: 180,
      log: () => {},
    });

    assert.deepEqual(
      report.systems.map((s) => [s.system, s.label]),
      [
        ['kubefed-ts', 'kubefed-ts'],
        ['baseline', report.baseline?.label],
        ['kubefed', 'KubeFed v0.10.0'],
      ],
    );
    assert.match(report.baseline?.label ?? '', /^kubefed-ts@[0-9a-f]{7,}$/);
    assert.deepEqual(
      worktrees().filter((w) => !worktreesBefore.includes(w)),
      [],
      'the baseline worktree is removed',
    );
    for (const s of report.systems) {
      for (const kind of ['configmaps', 'deployments'] as const) {
        const cold = s.cold[kind];
        assert.ok(cold, `${s.system}: no cold-propagation result for ${kind}`);
        assert.equal(cold.arrived, objects, `${s.system}: ${kind} arrived`);
        assert.equal(cold.expected, objects);
      }
      assert.equal(s.updateIdle.samples, 2);
      assert.equal(s.updateLoaded.samples, 2);
      assert.equal(s.memberWrites, 0, `${s.system}: member writes at steady state`);
      assert.ok(s.rssBytes > 0, `${s.system}: RSS measured`);
    }
    assert.deepEqual(
      report.ceiling.map((c) => [c.kind, c.tried.length, c.best.arrived]),
      [
        ['configmaps', 2, objects],
        ['deployments', 2, objects],
      ],
    );

    const table = renderReport(report, 'npm run bench -- --objects 5');
    for (const row of [
      'Cold propagation, 5 FederatedConfigMaps → 1 members: seconds',
      'Cold propagation, FederatedConfigMap: member objects/s',
      'Cold propagation, FederatedDeployment: objects arrived',
      'Update latency at idle, p50 (ms)',
      'Update latency with N federated, p99 (ms)',
      'Member writes in 2 s idle with N federated',
      'Controller CPU seconds in 2 s idle',
      'Controller RSS with N federated (MiB)',
    ]) {
      assert.match(table, new RegExp(`^\\| ${row.replace(/[()]/g, '\\$&')} \\|`, 'm'), `row "${row}"`);
    }
    // Every system and the ceiling have a number in the throughput rows, and the ratios are computed.
    const objectsRow = table
      .split('\n')
      .find((l) => l.startsWith('| Cold propagation, FederatedConfigMap: member'));
    const cells = objectsRow?.split('|').map((c) => c.trim()) ?? [];
    assert.equal(cells.length, 10, objectsRow);
    for (const cell of cells.slice(2, 9)) assert.match(cell, /^\d+(\.\d+)?×?$/, objectsRow);
  });
});
