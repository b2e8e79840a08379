// The scale report as markdown, and the series its PNG plots: pure functions of a ScaleReport.
import { num } from './format.ts';
import type { Panel } from './plot.ts';
import type { RecoveryResult, ScaleReport, ScaleStep } from './scale-types.ts';

const MiB = 2 ** 20;
const mib = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / MiB);

/** The steps of one (system, members) phase in step order. */
function phaseOf(steps: readonly ScaleStep[], s: ScaleStep): ScaleStep[] {
  return steps
    .filter((x) => x.system === s.system && x.members === s.members)
    .sort((a, b) => a.objects - b.objects);
}

/**
 * Memory per 1,000 objects: the growth of `bytes` (RSS by default) from the previous step of the same phase over
 * the objects it added; undefined for the first step (no slope yet) or where either step has no figure.
 */
export function per1kObjects(
  steps: readonly ScaleStep[],
  s: ScaleStep,
  bytes: (s: ScaleStep) => number | undefined = (x) => x.rssBytes,
): number | undefined {
  const phase = phaseOf(steps, s);
  const i = phase.indexOf(s);
  const prev = phase[i - 1];
  if (!prev || s.objects === prev.objects) return undefined;
  const [now, before] = [bytes(s), bytes(prev)];
  if (now === undefined || before === undefined) return undefined;
  return ((now - before) / (s.objects - prev.objects)) * 1000;
}

/**
 * Flatness of one system: CPU ms per member object at the most members and objects ÷ at the fewest members and
 * objects (1.0 = the cost of a member object does not grow with the fleet). Undefined without both steps.
 */
export function flatness(steps: readonly ScaleStep[], system: string): number | undefined {
  const own = steps.filter((s) => s.system === system);
  if (own.length === 0) return undefined;
  const m = own.map((s) => s.members);
  const n = own.map((s) => s.objects);
  const big = own.find((s) => s.members === Math.max(...m) && s.objects === Math.max(...n));
  const small = own.find((s) => s.members === Math.min(...m) && s.objects === Math.min(...n));
  if (!big || !small || small.cpuMsPerMemberObject <= 0) return undefined;
  return big.cpuMsPerMemberObject / small.cpuMsPerMemberObject;
}

const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/** `PUT configmaps 3, POST events 1` (largest first), or `none`. */
export function byVerb(r: Record<string, number>): string {
  const entries = Object.entries(r)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} ${v}`).join(', ');
}

const seriesKey = (s: ScaleStep) => `${s.label}, ${s.members} members`;

/** One line per system × members: CPU ms per member object vs N, and member objects/s vs N. */
export function scalePanels(report: ScaleReport): Panel[] {
  const keys = [...new Set(report.steps.map(seriesKey))];
  const series = (metric: (s: ScaleStep) => number | undefined) =>
    keys.map((label) => ({
      label,
      points: report.steps
        .filter((s) => seriesKey(s) === label)
        .sort((a, b) => a.objects - b.objects)
        .flatMap((s) => {
          const y = metric(s);
          return y === undefined ? [] : [{ x: s.objects, y }];
        }),
    }));
  const liveHeap = report.steps.some((s) => s.liveHeapBytes !== undefined)
    ? [
        {
          title: 'Live heap after a full GC, MiB',
          xLabel: 'objects in the host (N)',
          series: series((s) => mib(s.liveHeapBytes)),
        },
      ]
    : [];
  return [
    {
      title: 'CPU ms per member object',
      xLabel: 'objects in the host (N)',
      series: series((s) => s.cpuMsPerMemberObject),
    },
    {
      title: 'Cold propagation, member objects/s',
      xLabel: 'objects in the host (N)',
      series: series((s) => s.objectsPerSecond),
    },
    ...liveHeap,
  ];
}

function recoveryRow(r: RecoveryResult): string {
  return [
    r.label,
    r.kind === 'restart'
      ? 'restart (kill -9, same process again)'
      : 'failover (kill -9 the leader, standby takes over)',
    `${r.members} × ${r.objects}`,
    num(r.leaseChangedSeconds, 1),
    num(r.readySeconds, 1),
    r.idleSeconds === undefined ? 'not idle' : r.idleSeconds.toFixed(1),
    String(sum(r.hostWrites)),
    String(sum(r.memberWrites)),
  ].join(' | ');
}

export function renderScaleReport(report: ScaleReport, command: string): string {
  const { machine: m, options: o } = report;
  const lines: string[] = [
    `Scale run: \`${command}\`, ${report.wallSeconds.toFixed(0)} s.`,
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}, Kubernetes ${m.kubernetes}; ` +
      `load ${m.loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${m.loadAfter.map((l) => l.toFixed(2)).join(' ')} after.`,
    `Objects: ${o.kind}, created 32 in flight per step (cumulative steps ${o.objects.join(', ')}); members ${o.members.join(', ')}.`,
    '',
    '| System | Members | N | Member objects/s (step) | CPU ms per member object | Host writes per object | ' +
      'Member writes per member object | Update p50 / p99 (ms) | Controller RSS (MiB) | Heap (MiB) | ' +
      'Live heap after a full GC (MiB) | RSS per 1k objects (MiB) | Live heap per 1k objects (MiB) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of report.steps) {
    lines.push(
      `| ${[
        s.label,
        String(s.members),
        String(s.objects),
        s.objectsPerSecond.toFixed(0),
        s.cpuMsPerMemberObject.toFixed(2),
        s.hostWritesPerObject.toFixed(2),
        s.memberWritesPerMemberObject.toFixed(2),
        `${s.update.p50Ms.toFixed(0)} / ${s.update.p99Ms.toFixed(0)}`,
        (s.rssBytes / MiB).toFixed(0),
        num(mib(s.heapBytes), 0),
        num(mib(s.liveHeapBytes), 0),
        num(mib(per1kObjects(report.steps, s)), 1),
        num(mib(per1kObjects(report.steps, s, (x) => x.liveHeapBytes)), 1),
      ].join(' | ')} |`,
    );
  }
  lines.push('');
  for (const system of [...new Set(report.steps.map((s) => s.system))]) {
    const own = report.steps.filter((s) => s.system === system);
    const label = own[0]?.label ?? system;
    const [mMin, mMax] = [Math.min(...own.map((s) => s.members)), Math.max(...own.map((s) => s.members))];
    const [nMin, nMax] = [Math.min(...own.map((s) => s.objects)), Math.max(...own.map((s) => s.objects))];
    lines.push(
      `- ${label}: flatness (CPU ms per member object at ${mMax} members × ${nMax} ÷ at ${mMin} × ${nMin}) = ` +
        `${num(flatness(report.steps, system), 2)}`,
    );
  }
  for (const s of report.steps)
    lines.push(
      `- ${s.label}, ${s.members} members, N ${s.objects}: host ${byVerb(s.hostWrites)}; members ${byVerb(s.memberWrites)}`,
    );
  if (report.recoveries.length > 0) {
    lines.push(
      '',
      '| System | Event | Members × N | Lease changed (s) | Ready (s) | Idle (s) | Host writes | Member writes |',
      '|---|---|---|---|---|---|---|---|',
      ...report.recoveries.map((r) => `| ${recoveryRow(r)} |`),
      '',
      ...report.recoveries.map(
        (r) => `- ${r.label}, ${r.kind}: host ${byVerb(r.hostWrites)}; members ${byVerb(r.memberWrites)}`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
