import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type BenchReport, DEFAULT_OPTIONS, type SystemResult } from '../../../bench/benchmark.ts';
import type { SystemId } from '../../../bench/systems.ts';
import { renderReport } from '../../../bench/table.ts';

function system(system: SystemId, label: string, objectsPerSecond: number, rssMiB: number): SystemResult {
  const latency = { p50Ms: 10, p99Ms: 20, samples: 3 };
  return {
    system,
    label,
    cold: { configmaps: { seconds: 300 / objectsPerSecond, objectsPerSecond, arrived: 300, expected: 300 } },
    updateIdle: latency,
    updateLoaded: latency,
    memberWrites: 0,
    hostWrites: 0,
    idleSeconds: 5,
    cpuSeconds: 0.5,
    rssBytes: rssMiB * 2 ** 20,
    totalCpuSeconds: 4,
  };
}

function report(systems: SystemResult[], baseline?: BenchReport['baseline']): BenchReport {
  return {
    options: {
      ...DEFAULT_OPTIONS,
      objects: 100,
      kinds: ['configmaps'],
      systems: systems.map((s) => s.system),
    },
    machine: {
      cpus: 2,
      cpuModel: 'test',
      memoryGiB: 1,
      node: 'v24',
      go: 'n/a',
      kubernetes: 'v1',
      loadBefore: [0, 0, 0],
      loadAfter: [0, 0, 0],
    },
    ceiling: [
      {
        kind: 'configmaps',
        best: {
          seconds: 0.3,
          objectsPerSecond: 1000,
          arrived: 300,
          expected: 300,
          concurrency: 8,
          memberWritesPerMemberObject: 1,
          cpuMsPerMemberObject: 1,
        },
        tried: [{ concurrency: 8, seconds: 0.3, objectsPerSecond: 1000 }],
        fair: {
          seconds: 0.5,
          objectsPerSecond: 600,
          arrived: 300,
          expected: 300,
          concurrency: 8,
          hostWritesPerObject: 1,
          memberWritesPerObject: 3,
          memberWritesPerMemberObject: 1,
          cpuMsPerMemberObject: 2,
          roundsCpuMs: [2.4, 2, 1.6],
        },
        fairNative: {
          seconds: 0.6,
          objectsPerSecond: 500,
          arrived: 300,
          expected: 300,
          concurrency: 8,
          cpuMsPerMemberObject: 2.5,
        },
      },
    ],
    systems,
    ...(baseline ? { baseline } : {}),
    wallSeconds: 60,
  };
}

/** The cells of the row whose label starts with prefix, and the header's cells. */
function cells(table: string, prefix: string): { header: string[]; row: string[] } {
  const lines = table.split('\n');
  const split = (l: string | undefined) =>
    (l ?? '')
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  return {
    header: split(lines.find((l) => l.startsWith('| Measurement |'))),
    row: split(lines.find((l) => l.startsWith(`| ${prefix}`))),
  };
}

describe('benchmark table', () => {
  test('without a baseline the columns are the ones of every earlier report', () => {
    const table = renderReport(
      report([system('kubefed-ts', 'kubefed-ts', 200, 150), system('kubefed', 'K', 50, 300)]),
    );
    const { header, row } = cells(table, 'Cold propagation, FederatedConfigMap: member objects/s');
    assert.deepEqual(header, [
      'Measurement',
      'kubefed-ts',
      'KubeFed v0.10.0',
      'fair ceiling (host + members)',
      'ceiling (members only)',
      'kubefed-ts ÷ KubeFed',
      'kubefed-ts ÷ fair ceiling',
      'kubefed-ts ÷ ceiling',
    ]);
    assert.deepEqual(row.slice(1), ['200', '50', '600', '1000', '4.00×', '0.33×', '0.20×']);
    assert.doesNotMatch(table, /Baseline/);
  });

  test('with a baseline: its column after kubefed-ts and the ratio kubefed-ts ÷ baseline first', () => {
    const table = renderReport(
      report(
        [
          system('kubefed-ts', 'kubefed-ts', 200, 150),
          system('baseline', 'kubefed-ts@a203649', 160, 200),
          system('kubefed', 'K', 50, 300),
        ],
        { rev: 'a203649', commit: 'a203649ea0b6', label: 'kubefed-ts@a203649' },
      ),
    );
    const rate = cells(table, 'Cold propagation, FederatedConfigMap: member objects/s');
    assert.deepEqual(rate.header, [
      'Measurement',
      'kubefed-ts',
      'kubefed-ts@a203649',
      'KubeFed v0.10.0',
      'fair ceiling (host + members)',
      'ceiling (members only)',
      'kubefed-ts ÷ kubefed-ts@a203649',
      'kubefed-ts ÷ KubeFed',
      'kubefed-ts ÷ fair ceiling',
      'kubefed-ts ÷ ceiling',
    ]);
    assert.deepEqual(rate.row.slice(1), [
      '200',
      '160',
      '50',
      '600',
      '1000',
      '1.25×',
      '4.00×',
      '0.33×',
      '0.20×',
    ]);
    assert.deepEqual(cells(table, 'Controller RSS').row.slice(1), [
      '150',
      '200',
      '300',
      '–',
      '–',
      '0.75×',
      '0.50×',
      '–',
      '–',
    ]);
    // Rows without ratios (counts) get none for the baseline either.
    assert.deepEqual(cells(table, 'Member writes in').row.slice(1), [
      '0',
      '0',
      '0',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
    ]);
    assert.match(table, /^\|---\|---:\|---:\|---:\|---:\|---:\|---:\|---:\|---:\|---:\|$/m);
    assert.match(table, /^- Baseline: kubefed-ts@a203649 is commit a203649ea0b6 \(`--baseline a203649`\)/m);
  });

  test('a run of kubefed-ts and the baseline only leaves the KubeFed cells empty', () => {
    const table = renderReport(
      report([
        system('kubefed-ts', 'kubefed-ts', 200, 150),
        system('baseline', 'kubefed-ts@abc1234', 100, 150),
      ]),
    );
    const { row } = cells(table, 'Cold propagation, FederatedConfigMap: member objects/s');
    assert.deepEqual(row.slice(1), ['200', '100', '–', '600', '1000', '2.00×', '–', '0.33×', '0.20×']);
  });

  test('with the native front end: its column after kubefed-ts, native ÷ kubefed-ts last, and where host writes went', () => {
    const withWrites = (s: SystemResult, controllerCpu: number, hostWrites: Record<string, number>) => {
      const cold = s.cold.configmaps;
      assert.ok(cold);
      const total = Object.values(hostWrites).reduce((a, b) => a + b, 0);
      return {
        ...s,
        cold: {
          configmaps: {
            ...cold,
            cpu: { controller: controllerCpu },
            hostWrites,
            hostWritesPerObject: total / 100,
            hostEvents: {
              'ConfigMap ApplyPolicySucceed': 100,
              'ResourceBinding ScheduleBindingSucceed': 100,
            },
          },
        },
      };
    };
    const table = renderReport(
      report([
        withWrites(system('kubefed-ts', 'kubefed-ts', 200, 150), 4, {
          'POST types.kubefed.io/federatedconfigmaps': 100,
          'POST events': 300,
        }),
        withWrites(system('kubefed-ts-native', 'kubefed-ts native', 100, 180), 6, {
          'POST configmaps': 100,
          'PATCH configmaps': 100,
          'PUT work.karmada.io/resourcebindings/status': 250,
        }),
        system('kubefed', 'K', 50, 300),
      ]),
    );
    const rate = cells(table, 'Cold propagation, FederatedConfigMap: member objects/s');
    assert.deepEqual(rate.header, [
      'Measurement',
      'kubefed-ts',
      'kubefed-ts native',
      'KubeFed v0.10.0',
      'fair ceiling (host + members)',
      'ceiling (members only)',
      'kubefed-ts ÷ KubeFed',
      'kubefed-ts ÷ fair ceiling',
      'kubefed-ts ÷ ceiling',
      'kubefed-ts native ÷ kubefed-ts',
    ]);
    assert.deepEqual(rate.row.slice(1), [
      '200',
      '100',
      '50',
      '600',
      '1000',
      '4.00×',
      '0.33×',
      '0.20×',
      '0.50×',
    ]);
    // The fair ceiling wrote each host object once: kubefed-ts's host writes are 4× that.
    assert.deepEqual(
      cells(table, 'Cold propagation, FederatedConfigMap: host writes per object').row.slice(1),
      ['4.00', '4.50', '–', '1.00', '–', '–', '4.00×', '–', '1.13×'],
    );
    assert.deepEqual(
      cells(table, 'Cold propagation, FederatedConfigMap: controller CPU s').row.at(-1),
      '1.50×',
    );
    assert.deepEqual(cells(table, 'Controller RSS').row.at(-1), '1.20×');
    assert.match(
      table,
      /^- kubefed-ts native, ConfigMaps: PUT work\.karmada\.io\/resourcebindings\/status 2\.50, PATCH configmaps 1\.00, POST configmaps 1\.00; events \(involved kind, reason\): ConfigMap ApplyPolicySucceed 1\.00, ResourceBinding ScheduleBindingSucceed 1\.00$/m,
    );
    assert.match(
      table,
      /^- kubefed-ts, ConfigMaps: POST events 3\.00, POST types\.kubefed\.io\/federatedconfigmaps 1\.00; events/m,
    );
  });
});

describe('benchmark table: per member object', () => {
  test('CPU ms per member object is the first row, beside both ceilings; members write once per copy', () => {
    const s = system('kubefed-ts', 'kubefed-ts', 200, 150);
    const native = system('kubefed-ts-native', 'kubefed-ts native', 100, 150);
    const withCost = (x: SystemResult, cpuMs: number, memberWrites: Record<string, number>): SystemResult => {
      const cold = x.cold.configmaps;
      assert.ok(cold);
      const n = Object.values(memberWrites).reduce((a, b) => a + b, 0);
      return {
        ...x,
        cold: {
          configmaps: {
            ...cold,
            cpuMsPerMemberObject: cpuMs,
            memberWrites,
            memberWritesPerObject: n / 100,
            memberWritesPerMemberObject: n / 300,
          },
        },
      };
    };
    const r = report([
      withCost(s, 5, { 'POST configmaps': 300, 'POST namespaces': 3 }),
      withCost(native, 10, { 'POST configmaps': 300 }),
    ]);
    r.options.members = 3;
    const table = renderReport(r);
    const first = table.split('\n').find((l) => l.startsWith('| ') && !l.startsWith('| Measurement'));
    assert.match(first ?? '', /^\| FederatedConfigMap: CPU ms per member object /);
    const cpu = cells(table, 'FederatedConfigMap: CPU ms per member object');
    // kubefed-ts, native, KubeFed, fair, members only, ÷ KubeFed, ÷ fair, ÷ members only, native ÷ kubefed-ts.
    assert.deepEqual(cpu.row.slice(1), [
      '5.00',
      '10.00',
      '–',
      '2.00',
      '1.00',
      '–',
      '2.50×',
      '5.00×',
      '2.00×',
    ]);
    assert.deepEqual(
      cells(table, 'Cold propagation, FederatedConfigMap: member writes per member object').row.slice(1, 6),
      ['1.01', '1.00', '–', '1.00', '1.00'],
    );
    assert.deepEqual(
      cells(table, 'Cold propagation, FederatedConfigMap: member writes per object').row.slice(1, 6),
      ['3.03', '3.00', '–', '3.00', '–'],
    );
    assert.match(table, /^- kubefed-ts, ConfigMaps: POST configmaps 1\.00, POST namespaces 0\.01$/m);
    assert.match(
      table,
      /^- ConfigMaps \(concurrency 8\/member\): FederatedConfigMaps into the host: 600 member objects\/s, 2\.00 CPU ms per member object \(median of 3 rounds: 2\.40, 2\.00, 1\.60 ms\); plain ConfigMaps into the host: 500 member objects\/s, 2\.50 CPU ms per member object; kubefed-ts native ÷ this: member objects\/s 0\.20×, CPU ms per member object 4\.00×$/m,
    );
  });

  test('fair ceiling rounds measured before and after the systems are told apart, the median of all reported', () => {
    const s = system('kubefed-ts', 'kubefed-ts', 200, 150);
    const cold = s.cold.configmaps;
    assert.ok(cold);
    const r = report([{ ...s, cold: { configmaps: { ...cold, cpuMsPerMemberObject: 5 } } }]);
    const fair = r.ceiling[0]?.fair;
    assert.ok(fair);
    r.ceiling[0] = {
      ...r.ceiling[0]!,
      fair: { ...fair, roundsCpuMs: [2.4, 2, 1.6, 2.8, 2.2, 2.6], roundsBefore: 3 },
    };
    const table = renderReport(r);
    assert.match(
      table,
      /^- ConfigMaps \(concurrency 8\/member\): FederatedConfigMaps into the host: 600 member objects\/s, 2\.00 CPU ms per member object \(median of 6 rounds: 2\.40, 2\.00, 1\.60 ms before the systems, 2\.80, 2\.20, 2\.60 ms after them\);/m,
    );
    assert.match(
      table,
      /the round with the median CPU per member object of `--ceiling-rounds` before the systems and as many after them, together\):$/m,
    );
    // The ratio is to the reported (median) round.
    const cpu = cells(table, 'FederatedConfigMap: CPU ms per member object');
    assert.equal(cpu.row[cpu.header.indexOf('kubefed-ts ÷ fair ceiling')], '2.50×');
  });

  test("each system's cold rounds are listed in order, and only when it ran more than one", () => {
    const s = system('kubefed-ts', 'kubefed-ts', 200, 150);
    const cold = s.cold.configmaps;
    assert.ok(cold);
    const rounds: SystemResult = {
      ...s,
      cold: {
        configmaps: {
          ...cold,
          cpuMsPerMemberObject: 5,
          roundsCpuMs: [5.5, 5, 4.25],
          roundsObjectsPerSecond: [180, 200, 230],
          lastWriteSeconds: cold.seconds + 0.25,
          cpuMsToBusyScrape: 5.5,
          warmUpCpuMs: 7.25,
        },
      },
    };
    const single = system('kubefed', 'KubeFed v0.10.0', 50, 300);
    const table = renderReport(report([rounds, single]));
    assert.match(
      table,
      /^- kubefed-ts, ConfigMaps: 5\.50, 5\.00, 4\.25 CPU ms per member object; 180, 200, 230 member objects\/s; the reported round's last host write 0\.25 s after its last arrival \(counted to the settle scrape that last saw a write instead: 5\.50 CPU ms per member object\); before them a warm-up burst, not counted: 7\.25 CPU ms per member object$/m,
    );
    assert.doesNotMatch(table, /^- KubeFed v0\.10\.0, ConfigMaps: .* CPU ms per member object;/m);
    assert.doesNotMatch(renderReport(report([s, single])), /Cold propagation rounds/);
  });
});

describe('benchmark table: the idle windows', () => {
  const withSteady = (s: SystemResult, afterBurstsCpu: number, steadyCpu: number): SystemResult => ({
    ...s,
    cpuSeconds: afterBurstsCpu,
    steady: { memberWrites: 0, hostWrites: 0, cpuSeconds: steadyCpu },
  });

  test('each count right after the bursts, then in the steady window, CPU with ratios', () => {
    const table = renderReport(
      report([
        withSteady(system('kubefed-ts', 'kubefed-ts', 200, 150), 1.5, 0.3),
        withSteady(system('kubefed-ts-native', 'kubefed-ts native', 100, 180), 2, 0.45),
        withSteady(system('kubefed', 'K', 50, 300), 0.6, 0.2),
      ]),
    );
    const labels = table
      .split('\n')
      .filter((l) => / in 300 s idle/.test(l))
      .map((l) => l.split('|')[1]?.trim());
    assert.deepEqual(labels, [
      'Member writes in 300 s idle with N federated, right after the bursts',
      'Member writes in 300 s idle with N federated, steady state (the next window)',
      'Host writes to federated objects in 300 s idle, right after the bursts',
      'Host writes to federated objects in 300 s idle, steady state (the next window)',
      'Controller CPU seconds in 300 s idle, right after the bursts',
      'Controller CPU seconds in 300 s idle, steady state (the next window)',
    ]);
    // kubefed-ts, native, KubeFed, fair, members only, ÷ KubeFed, ÷ fair, ÷ members only, native ÷ kubefed-ts.
    assert.deepEqual(cells(table, 'Controller CPU seconds in 300 s idle, right after').row.slice(1), [
      '1.50',
      '2.00',
      '0.60',
      '–',
      '–',
      '2.50×',
      '–',
      '–',
      '1.33×',
    ]);
    assert.deepEqual(cells(table, 'Controller CPU seconds in 300 s idle, steady state').row.slice(1), [
      '0.30',
      '0.45',
      '0.20',
      '–',
      '–',
      '1.50×',
      '–',
      '–',
      '1.50×',
    ]);
    assert.deepEqual(cells(table, 'Member writes in 300 s idle with N federated, steady').row.slice(1), [
      '0',
      '0',
      '0',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
    ]);
    assert.match(
      table,
      /; two idle windows of 300 s each, back to back \(right after the bursts, then the steady state\);/,
    );
  });

  test('a JSON report from before the steady window renders, with dashes in its rows', () => {
    // As `--json` wrote it then: no `steady` in any system.
    const old = JSON.parse(
      JSON.stringify(report([system('kubefed-ts', 'kubefed-ts', 200, 150), system('kubefed', 'K', 50, 300)])),
    ) as BenchReport;
    assert.ok(old.systems.every((s) => !('steady' in s)));
    const table = renderReport(old);
    assert.deepEqual(cells(table, 'Controller CPU seconds in 300 s idle, right after').row.slice(1), [
      '0.50',
      '0.50',
      '–',
      '–',
      '1.00×',
      '–',
      '–',
    ]);
    for (const prefix of [
      'Member writes in 300 s idle with N federated, steady state',
      'Host writes to federated objects in 300 s idle, steady state',
      'Controller CPU seconds in 300 s idle, steady state',
    ])
      assert.deepEqual(cells(table, prefix).row.slice(1), ['–', '–', '–', '–', '–', '–', '–'], prefix);
    assert.match(table, /; idle window 300 s;/);
  });
});
