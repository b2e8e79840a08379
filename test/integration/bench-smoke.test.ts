// A scaled-down run of the benchmark (bench/, docs/benchmarks.md) so that it cannot rot: every system (the
// baseline is this tree's HEAD, checked out into a worktree; kubefed-ts's native front end, plain objects and
// one PropagationPolicy) and the ceiling (its fair rounds before and after the systems), N = 5 on one member, two
// cold bursts per system and kind, two 2 s idle windows (right after the bursts, then the steady state). It checks
// correctness — every row present, every object arrived with the expected content, the host writes counted, no
// member writes in either idle window — never speed.
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
  test('prints the whole table and every object arrives in every system', async (t) => {
    const objects = 5;
    const worktreesBefore = worktrees();
    // The benchmark's progress with timestamps, printed when an assertion fails (which phase took the time).
    const started = Date.now();
    const progress: string[] = [];
    let failed = true;
    t.after(() => {
      if (failed) process.stderr.write(`bench-smoke progress:\n${progress.join('\n')}\n`);
    });
    const report: BenchReport = await runBenchmark({
      members: 1,
      objects,
      kinds: ['configmaps', 'deployments'],
      systems: ['kubefed-ts', 'baseline', 'kubefed-ts-native', 'kubefed'],
      baseline: 'HEAD',
      idleSeconds: 2,
      updateSamples: 2,
      ceilingConcurrency: [2, 8],
      ceilingRounds: 2,
      ceilingAfter: true,
      rounds: 2,
      warmUp: true,
      timeoutSeconds: 180,
      settleIntervalMs: 1000,
      log: (m) => progress.push(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${m}`),
    });

    assert.deepEqual(
      report.systems.map((s) => [s.system, s.label]),
      [
        ['kubefed-ts', 'kubefed-ts'],
        ['baseline', report.baseline?.label],
        ['kubefed-ts-native', 'kubefed-ts native'],
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
        // At least the user's own create of each object is counted, by the host apiserver, and each copy's
        // create by its member's.
        assert.ok((cold.hostWritesPerObject ?? 0) >= 1, `${s.system}: ${kind} host writes per object`);
        assert.ok(
          (cold.memberWritesPerMemberObject ?? 0) >= 1,
          `${s.system}: ${kind} member writes per member object`,
        );
        assert.ok(
          (cold.memberWrites?.[`POST ${kind === 'configmaps' ? '' : 'apps/'}${kind}`] ?? 0) >= objects,
          `${s.system}: ${kind} member creates ${JSON.stringify(cold.memberWrites)}`,
        );
        assert.ok(
          Number.isFinite(cold.cpuMsPerMemberObject) && (cold.cpuMsPerMemberObject ?? -1) >= 0,
          `${s.system}: ${kind} CPU ms per member object`,
        );
        // The CPU window ends at the burst's last write, which watches on the host saw: the creates at least.
        assert.ok(
          (cold.lastWriteSeconds ?? 0) > 0,
          `${s.system}: ${kind} last write ${cold.lastWriteSeconds}`,
        );
        assert.ok(Number.isFinite(cold.cpuMsToBusyScrape), `${s.system}: ${kind} CPU to the busy scrape`);
        // One warm-up burst per system, of the first kind only, before its two measured rounds.
        if (kind === 'configmaps')
          assert.ok(Number.isFinite(cold.warmUpCpuMs), `${s.system}: the warm-up burst's CPU`);
        else assert.equal(cold.warmUpCpuMs, undefined, `${s.system}: no warm-up before ${kind}`);
        for (const [group, seconds] of Object.entries(cold.cpu ?? {}))
          assert.ok(
            (cold.cpuUntilLastWrite?.[group] ?? -1) >= seconds,
            `${s.system}: ${kind} ${group} CPU until the last write covers the arrival`,
          );
        // Two bursts ran, the first one's objects deleted in between and every copy gone from the members (the
        // run waits for that, so a system that leaves a copy behind fails it); the cheaper is reported whole.
        assert.equal(cold.roundsCpuMs?.length, 2, `${s.system}: ${kind} rounds`);
        assert.equal(cold.roundsObjectsPerSecond?.length, 2, `${s.system}: ${kind} rounds' rates`);
        assert.equal(
          cold.cpuMsPerMemberObject,
          Math.min(...(cold.roundsCpuMs ?? [])),
          `${s.system}: ${kind}`,
        );
      }
      assert.equal(s.updateIdle.samples, 2);
      assert.equal(s.updateLoaded.samples, 2);
      assert.equal(s.memberWrites, 0, `${s.system}: member writes right after the bursts`);
      // The steady window, the same length again from the end of the first, for every system.
      assert.ok(s.steady, `${s.system}: the steady idle window`);
      assert.equal(s.steady.memberWrites, 0, `${s.system}: member writes at steady state`);
      assert.ok(Number.isInteger(s.steady.hostWrites), `${s.system}: host writes at steady state`);
      assert.ok(s.steady.cpuSeconds >= 0, `${s.system}: CPU at steady state ${s.steady.cpuSeconds}`);
      // 1e-9: the sums of tick counts ÷ 100 are floats.
      assert.ok(
        s.totalCpuSeconds + 1e-9 >= s.cpuSeconds + s.steady.cpuSeconds,
        `${s.system}: the whole run's CPU holds both idle windows`,
      );
      assert.ok(s.rssBytes > 0, `${s.system}: RSS measured`);
    }
    // The native front end's writes are what a native user and the policy source make: the plain object's
    // create, its ResourceBinding; the federated front end's its Federated<Kind>. The claim comes with the
    // create, from the admission webhook the benchmark registers: the detector writes no PATCH.
    const writes = (system: string, kind: 'configmaps' | 'deployments') =>
      Object.keys(report.systems.find((s) => s.system === system)?.cold[kind]?.hostWrites ?? {});
    for (const w of ['POST configmaps', 'POST work.karmada.io/resourcebindings'])
      assert.ok(writes('kubefed-ts-native', 'configmaps').includes(w), `native: ${w}`);
    assert.ok(
      !writes('kubefed-ts-native', 'configmaps').includes('PATCH configmaps'),
      'native: the claim at admission',
    );
    assert.ok(writes('kubefed-ts-native', 'deployments').includes('POST apps/deployments'));
    assert.ok(writes('kubefed-ts', 'configmaps').includes('POST types.kubefed.io/federatedconfigmaps'));
    assert.ok(!writes('kubefed-ts', 'configmaps').some((w) => w.includes('karmada')));
    assert.deepEqual(
      report.ceiling.map((c) => [c.kind, c.tried.length, c.best.arrived]),
      [
        ['configmaps', 2, objects],
        ['deployments', 2, objects],
      ],
    );
    // The fair ceilings wrote exactly one host object per object and one member object per copy.
    for (const c of report.ceiling) {
      for (const [name, fair] of [
        ['fair', c.fair],
        ['fairNative', c.fairNative],
      ] as const) {
        assert.ok(fair, `${c.kind}: ${name}`);
        assert.equal(fair.arrived, objects);
        assert.equal(fair.hostWritesPerObject, 1, `${c.kind} ${name}: ${JSON.stringify(fair.hostWrites)}`);
        assert.equal(
          fair.memberWritesPerMemberObject,
          1,
          `${c.kind} ${name}: ${JSON.stringify(fair.memberWrites)}`,
        );
        assert.ok(Number.isFinite(fair.cpuMsPerMemberObject), `${c.kind} ${name}: CPU ms`);
        // Two rounds ran before the systems and two after them (their arrivals and writes asserted in the same
        // way, for the reported round); the lower middle of the four is reported whole.
        assert.equal(fair.roundsCpuMs?.length, 4, `${c.kind} ${name}: rounds`);
        assert.equal(fair.roundsBefore, 2, `${c.kind} ${name}: rounds before the systems`);
        assert.equal(
          fair.cpuMsPerMemberObject,
          [...(fair.roundsCpuMs ?? [])].sort((a, b) => a - b)[1],
          `${c.kind} ${name}`,
        );
      }
    }

    const table = renderReport(report, 'npm run bench -- --objects 5');
    assert.match(
      table.split('\n').find((l) => l.startsWith('| ') && !l.startsWith('| Measurement')) ?? '',
      /^\| FederatedConfigMap: CPU ms per member object /,
      'CPU ms per member object is the first row',
    );
    for (const row of [
      'FederatedConfigMap: CPU ms per member object (controller + webhook, apiservers, etcd)',
      'FederatedDeployment: CPU ms per member object (controller + webhook, apiservers, etcd)',
      'Cold propagation, FederatedConfigMap: member writes per object',
      'Cold propagation, FederatedDeployment: member writes per member object',
      'Cold propagation, 5 FederatedConfigMaps → 1 members: seconds',
      'Cold propagation, FederatedConfigMap: member objects/s',
      'Cold propagation, FederatedDeployment: objects arrived',
      'Cold propagation, FederatedConfigMap: host writes per object',
      'Cold propagation, FederatedDeployment: controller CPU s',
      'Update latency at idle, p50 (ms)',
      'Update latency with N federated, p99 (ms)',
      'Member writes in 2 s idle with N federated, right after the bursts',
      'Member writes in 2 s idle with N federated, steady state (the next window)',
      'Host writes to federated objects in 2 s idle, right after the bursts',
      'Host writes to federated objects in 2 s idle, steady state (the next window)',
      'Controller CPU seconds in 2 s idle, right after the bursts',
      'Controller CPU seconds in 2 s idle, steady state (the next window)',
      'Controller RSS with N federated, at the end of the last idle window (MiB)',
    ]) {
      assert.match(table, new RegExp(`^\\| ${row.replace(/[()+.]/g, '\\$&')} \\|`, 'm'), `row "${row}"`);
    }
    // Every system and the ceiling have a number in the throughput rows, and the ratios are computed.
    const row = (prefix: string) => {
      const line = table.split('\n').find((l) => l.startsWith(`| ${prefix}`));
      return { line, cells: line?.split('|').map((c) => c.trim()) ?? [] };
    };
    const header = row('Measurement').cells;
    assert.deepEqual(
      header.slice(-2),
      ['kubefed-ts native ÷ kubefed-ts', ''],
      'native ÷ federated is the last column',
    );
    const objectsRow = row('Cold propagation, FederatedConfigMap: member objects/s');
    assert.equal(objectsRow.cells.length, 14, objectsRow.line);
    for (const cell of objectsRow.cells.slice(2, 13)) assert.match(cell, /^\d+(\.\d+)?×?$/, objectsRow.line);
    // CPU ms per member object: every system and both ceilings have a number; a ratio to a ceiling whose 5
    // objects took no measurable CPU tick is a dash.
    const cpuRow = row('FederatedDeployment: CPU ms per member object');
    for (const cell of cpuRow.cells.slice(2, 8)) assert.match(cell, /^\d+\.\d\d$/, cpuRow.line);
    for (const cell of cpuRow.cells.slice(8, 13)) assert.match(cell, /^(\d+\.\d\d×|–)$/, cpuRow.line);
    const memberRow = row('Cold propagation, FederatedConfigMap: member writes per member object');
    for (const cell of memberRow.cells.slice(2, 8)) assert.match(cell, /^\d+\.\d\d$/, memberRow.line);
    // native ÷ federated for member objects/s (above), host writes per object, controller CPU, RSS and steady-state
    // CPU. Controller CPU of 5 objects or 2 idle seconds may round to zero ticks, and a ratio to zero is a dash.
    for (const [prefix, ratioCell] of [
      ['Cold propagation, FederatedConfigMap: host writes per object', /^\d+\.\d\d×$/],
      ['Cold propagation, FederatedDeployment: controller CPU s', /^(\d+\.\d\d×|–)$/],
      ['Controller RSS with N federated', /^\d+\.\d\d×$/],
      ['Controller CPU seconds in 2 s idle, steady state', /^(\d+\.\d\d×|–)$/],
    ] as const) {
      const r = row(prefix);
      for (const cell of r.cells.slice(2, 6)) assert.match(cell, /^\d+(\.\d+)?$/, r.line);
      assert.match(r.cells.at(-2) ?? '', ratioCell, r.line);
    }
    assert.match(table, /^- kubefed-ts native, ConfigMaps: .*POST work\.karmada\.io\/resourcebindings/m);
    assert.match(table, /^- KubeFed v0\.10\.0, Deployments: .*POST apps\/deployments 1\.00/m);
    assert.match(table, /^- ConfigMaps \(concurrency \d+\/member\): FederatedConfigMaps into the host: /m);
    failed = false;
  });
});
