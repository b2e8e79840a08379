// The report as markdown: machine facts, then one table with every system, the ceiling and the ratios.

import { KUBEFED_CONFIG_DEFAULTS } from '../src/config/index.ts';
import { DEFAULT_REST_CONFIG_BURST, DEFAULT_REST_CONFIG_QPS } from '../src/controller-manager/main.ts';
import type { BenchReport, CeilingResult, IdleCounts, SystemResult, Throughput } from './benchmark.ts';
import { DASH, num, ratio } from './format.ts';
import { KINDS } from './workload.ts';

/** The rows of the table: label, value per system, ceiling value, and whether ratios make sense. */
interface Row {
  label: string;
  value(s: SystemResult): number | string | undefined;
  digits: number;
  /** The member-only ceiling's value. */
  ceiling?: number | string;
  /** The fair ceiling's (host objects + member objects). */
  fair?: number | string;
  ratios: boolean;
}

/** "controller / host apiserver / member apiservers / etcd" CPU seconds. */
function cpuSplit(cpu: Record<string, number> | undefined): string | undefined {
  if (!cpu) return undefined;
  const f = (k: string) => (cpu[k] === undefined ? DASH : (cpu[k] as number).toFixed(1));
  return `${f('controller')} / ${f('hostApiserver')} / ${f('memberApiservers')} / ${f('etcd')}`;
}

/** Share of all cores busy in the processes measured (bench client included). */
function busy(t: Throughput | undefined, cores: number): number | undefined {
  if (!t?.cpu) return undefined;
  const total = Object.values(t.cpu).reduce((a, b) => a + b, 0);
  return (100 * total) / (t.seconds * cores);
}

interface Column {
  header: string;
  cell(row: Row): string;
}

/**
 * The table's columns: kubefed-ts, the baseline (when it ran), kubefed-ts's native front end (when it ran) and
 * KubeFed, the ceiling, then kubefed-ts's ratio to each of them, and native ÷ federated. Without a baseline
 * and the native front end this is the table of every earlier report.
 */
function tableColumns(r: BenchReport): Column[] {
  const result = (id: SystemResult['system']) => r.systems.find((s) => s.system === id);
  const ts = result('kubefed-ts');
  const base = result('baseline');
  const native = result('kubefed-ts-native');
  const kf = result('kubefed');
  const value = (s: SystemResult | undefined, row: Row) => (s ? row.value(s) : undefined);
  const system = (header: string, s: SystemResult | undefined): Column => ({
    header,
    cell: (row) => num(value(s, row), row.digits),
  });
  const ratioTo = (header: string, other: (row: Row) => number | string | undefined): Column => ({
    header: `kubefed-ts ÷ ${header}`,
    cell: (row) => (row.ratios ? ratio(value(ts, row), other(row)) : DASH),
  });
  const baseLabel = base?.label ?? r.baseline?.label ?? 'baseline';
  return [
    { header: 'Measurement', cell: (row) => row.label },
    system('kubefed-ts', ts),
    ...(base ? [system(baseLabel, base)] : []),
    ...(native ? [system(native.label, native)] : []),
    system('KubeFed v0.10.0', kf),
    { header: 'fair ceiling (host + members)', cell: (row) => num(row.fair, row.digits) },
    { header: 'ceiling (members only)', cell: (row) => num(row.ceiling, row.digits) },
    ...(base ? [ratioTo(baseLabel, (row) => value(base, row))] : []),
    ratioTo('KubeFed', (row) => value(kf, row)),
    ratioTo('fair ceiling', (row) => row.fair),
    ratioTo('ceiling', (row) => row.ceiling),
    ...(native
      ? [
          {
            header: `${native.label} ÷ kubefed-ts`,
            cell: (row: Row) => (row.ratios ? ratio(value(native, row), value(ts, row)) : DASH),
          },
        ]
      : []),
  ];
}

/**
 * Where each system's host writes went during cold propagation, per object: `verb group/resource[/sub] n`,
 * most first. The metric has no user agent; the resource says which controller wrote.
 */
function hostWriteLines(r: BenchReport): string[] {
  const lines: string[] = [];
  for (const kind of r.options.kinds) {
    for (const s of r.systems) {
      const cold = s.cold[kind];
      if (!cold?.hostWrites) continue;
      const perObject = (counts: Record<string, number>) => perUnit(counts, r.options.objects);
      const events = cold.hostEvents ? `; events (involved kind, reason): ${perObject(cold.hostEvents)}` : '';
      lines.push(`- ${s.label}, ${KINDS[kind].target.kind}s: ${perObject(cold.hostWrites)}${events}`);
    }
  }
  return lines.length === 0
    ? []
    : [
        '',
        'Host writes per object during cold propagation (host apiserver `apiserver_request_total`, by verb and resource):',
        '',
        ...lines,
      ];
}

/** `verb group/resource[/sub] n` per unit, most first. */
function perUnit(counts: Record<string, number>, units: number): string {
  return (
    Object.entries(counts)
      .sort(([ka, a], [kb, b]) => b - a || ka.localeCompare(kb))
      .map(([k, v]) => `${k} ${(v / units).toFixed(2)}`)
      .join(', ') || DASH
  );
}

/** The same for the members' writes, added up over the members, per member object (N × members). */
function memberWriteLines(r: BenchReport): string[] {
  const lines: string[] = [];
  for (const kind of r.options.kinds) {
    for (const s of r.systems) {
      const writes = s.cold[kind]?.memberWrites;
      if (!writes) continue;
      lines.push(
        `- ${s.label}, ${KINDS[kind].target.kind}s: ${perUnit(writes, r.options.objects * r.options.members)}`,
      );
    }
  }
  return lines.length === 0
    ? []
    : [
        '',
        'Member writes per member object during cold propagation (every member apiserver, leases left out):',
        '',
        ...lines,
      ];
}

/**
 * Each system's cold bursts when it ran more than one per kind (`--rounds`): every round's CPU and rate, in
 * order; the table holds the round with the median CPU, whole.
 */
function roundLines(r: BenchReport): string[] {
  const lines: string[] = [];
  for (const kind of r.options.kinds) {
    for (const s of r.systems) {
      const cold = s.cold[kind];
      const cpu = cold?.roundsCpuMs;
      if (!cold || !cpu || cpu.length < 2) continue;
      const rates = (cold.roundsObjectsPerSecond ?? []).map((x) => num(x)).join(', ');
      lines.push(
        `- ${s.label}, ${KINDS[kind].target.kind}s: ${cpu.map((x) => num(x, 2)).join(', ')} CPU ms per member object; ` +
          `${rates || DASH} member objects/s${tailNote(cold)}${warmUpNote(cold)}`,
      );
    }
  }
  return lines.length === 0
    ? []
    : [
        '',
        'Cold propagation rounds (each system and kind, in order; the table holds the round with the median CPU per member object, whole):',
        '',
        ...lines,
      ];
}

/** The warm-up burst that ran before the rounds, not counted (`--no-warm-up` runs none). */
function warmUpNote(cold: Throughput): string {
  return cold.warmUpCpuMs === undefined
    ? ''
    : `; before them a warm-up burst, not counted: ${num(cold.warmUpCpuMs, 2)} CPU ms per member object`;
}

/** Where the reported round's CPU window ended beyond its last arrival: its last host write (burst-end.ts). */
function tailNote(cold: Throughput): string {
  if (cold.lastWriteSeconds === undefined) return '';
  const tail = Math.max(0, cold.lastWriteSeconds - cold.seconds);
  const old =
    cold.cpuMsToBusyScrape === undefined
      ? ''
      : ` (counted to the settle scrape that last saw a write instead: ${num(cold.cpuMsToBusyScrape, 2)} CPU ms per member object)`;
  return `; the reported round's last host write ${num(tail, 2)} s after its last arrival${old}`;
}

/**
 * ` (median of 3 rounds: 1.84, 1.42, 1.70 ms)`, when there was more than one round; with rounds on both sides of
 * the systems (`before` of them first), ` (median of 6 rounds: 1.84, 1.42, 1.70 ms before the systems, 2.10,
 * 1.95, 2.43 ms after them)`.
 */
function roundsNote(rounds: readonly number[] | undefined, before?: number): string {
  if (!rounds || rounds.length < 2) return '';
  const list = (rs: readonly number[]) => rs.map((r) => num(r, 2)).join(', ');
  if (before === undefined || before >= rounds.length)
    return ` (median of ${rounds.length} rounds: ${list(rounds)} ms)`;
  return (
    ` (median of ${rounds.length} rounds: ${list(rounds.slice(0, before))} ms before the systems, ` +
    `${list(rounds.slice(before))} ms after them)`
  );
}

/**
 * The fair ceilings in words, and kubefed-ts's native front end against its own (plain objects into the host;
 * the table's fair column is the Federated<Kind> one).
 */
function fairCeilingLines(r: BenchReport): string[] {
  const native = r.systems.find((s) => s.system === 'kubefed-ts-native');
  const lines: string[] = [];
  for (const c of r.ceiling) {
    const k = KINDS[c.kind];
    const describe = (t: CeilingResult['fair'], what: string) =>
      t
        ? `${what}: ${num(t.objectsPerSecond)} member objects/s, ${num(t.cpuMsPerMemberObject, 2)} CPU ms per member object` +
          roundsNote(t.roundsCpuMs, t.roundsBefore)
        : undefined;
    const parts = [
      describe(c.fair, `${k.fedKind}s into the host`),
      describe(c.fairNative, `plain ${k.target.kind}s into the host`),
    ].filter((p): p is string => p !== undefined);
    if (parts.length === 0) continue;
    const cold = native?.cold[c.kind];
    const nativeRatio =
      native && c.fairNative && cold
        ? `; ${native.label} ÷ this: member objects/s ${ratio(cold.objectsPerSecond, c.fairNative.objectsPerSecond)}, ` +
          `CPU ms per member object ${ratio(cold.cpuMsPerMemberObject, c.fairNative.cpuMsPerMemberObject)}`
        : '';
    lines.push(
      `- ${k.target.kind}s (concurrency ${c.fair?.concurrency ?? DASH}/member): ${parts.join('; ')}${nativeRatio}`,
    );
  }
  return lines.length === 0
    ? []
    : [
        '',
        `Fair ceilings (N host objects, 32 in flight, concurrently with the N × members member creates; timed until both are done; the round with the median CPU per member object of \`--ceiling-rounds\`${
          r.ceiling.some((c) => c.fair?.roundsBefore !== undefined)
            ? ' before the systems and as many after them, together'
            : ''
        }):`,
        '',
        ...lines,
      ];
}

/**
 * One idle count as two rows: right after the bursts (the result's own fields, the first window), then the
 * steady state (its `steady` window, absent in reports from before it).
 */
function idleRows(label: string, count: (w: IdleCounts) => number, digits: number, ratios: boolean): Row[] {
  return [
    { label: `${label}, right after the bursts`, value: (s) => count(s), digits, ratios },
    {
      label: `${label}, steady state (the next window)`,
      value: (s) => (s.steady ? count(s.steady) : undefined),
      digits,
      ratios,
    },
  ];
}

/** The idle windows in the run's facts: two back to back since the steady window exists, one before. */
function idleWindowsNote(r: BenchReport): string {
  const seconds = r.options.idleSeconds;
  return r.systems.some((s) => s.steady !== undefined)
    ? `two idle windows of ${seconds} s each, back to back (right after the bursts, then the steady state)`
    : `idle window ${seconds} s`;
}

export function renderReport(r: BenchReport, command?: string): string {
  const m = r.machine;
  const o = r.options;
  const lines: string[] = [];
  if (command) lines.push(`Command: \`${command}\``, '');
  lines.push(
    `- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB memory; load average before ${m.loadBefore
      .map((x) => x.toFixed(2))
      .join(' ')}, after ${m.loadAfter.map((x) => x.toFixed(2)).join(' ')}`,
    `- Versions: Node ${m.node}, ${m.go}, Kubernetes ${m.kubernetes} (kube-apiserver per cluster, one etcd)`,
    `- Federation: host + ${o.members} members; N = ${o.objects} objects per type; ${idleWindowsNote(r)}; ` +
      `${o.updateSamples} update samples; sync workers ${o.syncWorkers ?? `each system's default (kubefed-ts ${KUBEFED_CONFIG_DEFAULTS.syncController.maxConcurrentReconciles}, KubeFed 1)`}; ` +
      `--rest-config-qps/burst ${o.restConfigQps !== undefined || o.restConfigBurst !== undefined ? `${o.restConfigQps ?? 'default'}/${o.restConfigBurst ?? 'default'}` : `each system's default (kubefed-ts ${DEFAULT_REST_CONFIG_QPS}/${DEFAULT_REST_CONFIG_BURST}, KubeFed 100/200)`}; wall time ${num(r.wallSeconds)} s`,
    ...(r.baseline
      ? [
          `- Baseline: ${r.baseline.label} is commit ${r.baseline.commit} (\`--baseline ${r.baseline.rev}\`), ` +
            'its own controller manager, CRDs and FTCs, measured in this run like kubefed-ts',
        ]
      : []),
    '',
  );
  const rows: Row[] = [];
  // First what one member object cost the machine, the figure the others explain.
  for (const kind of o.kinds) {
    const c = r.ceiling.find((x) => x.kind === kind);
    rows.push({
      label: `${KINDS[kind].fedKind}: CPU ms per member object (controller + webhook, apiservers, etcd)`,
      value: (s) => s.cold[kind]?.cpuMsPerMemberObject,
      digits: 2,
      ceiling: c?.best.cpuMsPerMemberObject,
      fair: c?.fair?.cpuMsPerMemberObject,
      ratios: true,
    });
  }
  for (const kind of o.kinds) {
    const k = KINDS[kind];
    const ceilings = r.ceiling.find((c) => c.kind === kind);
    const ceil = ceilings?.best;
    const fair = ceilings?.fair;
    const t = (s: SystemResult): Throughput | undefined => s.cold[kind];
    rows.push(
      {
        label: `Cold propagation, ${o.objects} ${k.fedKind}s → ${o.members} members: seconds`,
        value: (s) => t(s)?.seconds,
        digits: 2,
        ceiling: ceil?.seconds,
        fair: fair?.seconds,
        ratios: false,
      },
      {
        label: `Cold propagation, ${k.fedKind}: member objects/s`,
        value: (s) => t(s)?.objectsPerSecond,
        digits: 0,
        ceiling: ceil?.objectsPerSecond,
        fair: fair?.objectsPerSecond,
        ratios: true,
      },
      {
        label: `Cold propagation, ${k.fedKind}: objects arrived`,
        value: (s) => t(s)?.arrived,
        digits: 0,
        ceiling: ceil?.arrived,
        fair: fair?.arrived,
        ratios: false,
      },
      {
        label: `Cold propagation, ${k.fedKind}: host writes per object`,
        value: (s) => t(s)?.hostWritesPerObject,
        digits: 2,
        fair: fair?.hostWritesPerObject,
        ratios: true,
      },
      {
        label: `Cold propagation, ${k.fedKind}: member writes per object`,
        value: (s) => t(s)?.memberWritesPerObject,
        digits: 2,
        fair: fair?.memberWritesPerObject,
        ratios: true,
      },
      {
        label: `Cold propagation, ${k.fedKind}: reconciles per object (sync controller; native: binding controller)`,
        value: (s) => t(s)?.reconcilesPerObject,
        digits: 2,
        ratios: true,
      },
      {
        label: `Cold propagation, ${k.fedKind}: member writes per member object`,
        value: (s) => t(s)?.memberWritesPerMemberObject,
        digits: 2,
        ceiling: ceil?.memberWritesPerMemberObject,
        fair: fair?.memberWritesPerMemberObject,
        ratios: true,
      },
      {
        label: `Cold propagation, ${k.fedKind}: controller CPU s`,
        value: (s) => t(s)?.cpu?.['controller'],
        digits: 1,
        ratios: true,
      },
      {
        label: `Cold propagation, ${k.fedKind}: CPU s controller / host apiserver / member apiservers / etcd`,
        value: (s) => cpuSplit(t(s)?.cpu),
        digits: 0,
        ceiling: cpuSplit(ceil?.cpu),
        fair: cpuSplit(fair?.cpu),
        ratios: false,
      },
      {
        label: `Cold propagation, ${k.fedKind}: CPU busy, % of ${m.cpus} cores`,
        value: (s) => busy(t(s), m.cpus),
        digits: 0,
        ceiling: busy(ceil, m.cpus),
        fair: busy(fair, m.cpus),
        ratios: false,
      },
    );
  }
  rows.push(
    { label: 'Update latency at idle, p50 (ms)', value: (s) => s.updateIdle.p50Ms, digits: 0, ratios: true },
    { label: 'Update latency at idle, p99 (ms)', value: (s) => s.updateIdle.p99Ms, digits: 0, ratios: true },
    {
      label: `Update latency with N federated, p50 (ms)`,
      value: (s) => s.updateLoaded.p50Ms,
      digits: 0,
      ratios: true,
    },
    {
      label: `Update latency with N federated, p99 (ms)`,
      value: (s) => s.updateLoaded.p99Ms,
      digits: 0,
      ratios: true,
    },
    // Each idle count right after the bursts, then in the steady window after it; a report from before the
    // steady window has dashes there. Writes should be zero, so only CPU has ratios.
    ...idleRows(`Member writes in ${o.idleSeconds} s idle with N federated`, (w) => w.memberWrites, 0, false),
    ...idleRows(`Host writes to federated objects in ${o.idleSeconds} s idle`, (w) => w.hostWrites, 0, false),
    ...idleRows(`Controller CPU seconds in ${o.idleSeconds} s idle`, (w) => w.cpuSeconds, 2, true),
    {
      label: 'Controller CPU seconds, whole run (to the end of the last idle window)',
      value: (s) => s.totalCpuSeconds,
      digits: 1,
      ratios: true,
    },
    {
      label: 'Controller RSS with N federated, at the end of the last idle window (MiB)',
      value: (s) => s.rssBytes / 2 ** 20,
      digits: 0,
      ratios: true,
    },
    {
      label: 'Controller heap in use with N federated, at the same moment (MiB; V8 / Go runtime)',
      value: (s) => (s.heapBytes === undefined ? undefined : s.heapBytes / 2 ** 20),
      digits: 0,
      ratios: true,
    },
  );
  const columns = tableColumns(r);
  lines.push(
    `| ${columns.map((c) => c.header).join(' | ')} |`,
    `|${columns.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
  );
  for (const row of rows) lines.push(`| ${columns.map((c) => c.cell(row)).join(' | ')} |`);
  const tried = r.ceiling
    .map(
      (c) =>
        `${KINDS[c.kind].target.kind}s: ${c.tried
          .map((t) => `${t.concurrency}/member → ${t.objectsPerSecond.toFixed(0)}/s`)
          .join(', ')}`,
    )
    .join('; ');
  lines.push(
    '',
    `Ceiling (members only) concurrencies tried: ${tried || DASH}.`,
    ...fairCeilingLines(r),
    ...roundLines(r),
    ...hostWriteLines(r),
    ...memberWriteLines(r),
  );
  return `${lines.join('\n')}\n`;
}
