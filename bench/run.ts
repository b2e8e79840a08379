// `npm run bench` / `make bench`: the side-by-side benchmark of docs/benchmarks.md. Progress goes to
// stderr; the markdown report (machine facts and the table) to stdout.
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { type BenchOptions, DEFAULT_OPTIONS, runBenchmark } from './benchmark.ts';
import type { SystemId } from './systems.ts';
import { renderReport } from './table.ts';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${v}`);
  return n;
};

const cmd = new Command('bench')
  .description('Propagation benchmark of kubefed-ts against KubeFed v0.10.0 on real local apiservers')
  .addOption(new Option('--members <n>', 'member clusters').default(DEFAULT_OPTIONS.members).argParser(int))
  .addOption(
    new Option('--objects <n>', 'federated objects per type (N)')
      .default(DEFAULT_OPTIONS.objects)
      .argParser(int),
  )
  .addOption(new Option('--types <list>', 'configmaps,deployments').default(DEFAULT_OPTIONS.kinds.join(',')))
  .addOption(
    new Option('--systems <list>', 'kubefed-ts,kubefed (in this order)').default(
      DEFAULT_OPTIONS.systems.join(','),
    ),
  )
  .addOption(
    new Option('--idle <seconds>', 'steady-state window').default(DEFAULT_OPTIONS.idleSeconds).argParser(int),
  )
  .addOption(
    new Option('--update-samples <n>', 'template changes timed per load level')
      .default(DEFAULT_OPTIONS.updateSamples)
      .argParser(int),
  )
  .addOption(
    new Option('--ceiling-concurrency <list>', 'in-flight creates per member tried for the ceiling').default(
      DEFAULT_OPTIONS.ceilingConcurrency.join(','),
    ),
  )
  .addOption(
    new Option(
      '--sync-workers <n>',
      'KubeFedConfig syncController.maxConcurrentReconciles, for both systems',
    ).argParser(int),
  )
  .addOption(
    new Option('--rest-config-qps <n>', 'host client QPS of both controller managers').argParser(int),
  )
  .addOption(
    new Option('--rest-config-burst <n>', 'host client burst of both controller managers').argParser(int),
  )
  .option('--cpu-prof <dir>', "write kubefed-ts's CPU profile (node --cpu-prof) into this directory")
  .addOption(
    new Option('--timeout <seconds>', 'give up on one wait after this long')
      .default(DEFAULT_OPTIONS.timeoutSeconds)
      .argParser(int),
  )
  .option('--dir <dir>', 'keep logs and state here (default: a temp dir, removed afterwards)')
  .option('--json <file>', 'also write the raw report as JSON');

cmd.parse(process.argv);
const o = cmd.opts();
const opts: BenchOptions = {
  members: o.members,
  objects: o.objects,
  kinds: list(o.types) as BenchOptions['kinds'],
  systems: list(o.systems) as SystemId[],
  idleSeconds: o.idle,
  updateSamples: o.updateSamples,
  ceilingConcurrency: list(o.ceilingConcurrency).map(int),
  syncWorkers: o.syncWorkers,
  restConfigQps: o.restConfigQps,
  restConfigBurst: o.restConfigBurst,
  cpuProfDir: o.cpuProf,
  timeoutSeconds: o.timeout,
  dir: o.dir,
  keep: Boolean(o.dir),
  log: (m) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`),
};
for (const k of opts.kinds)
  if (k !== 'configmaps' && k !== 'deployments') throw new Error(`unknown type ${k}`);
for (const s of opts.systems)
  if (s !== 'kubefed-ts' && s !== 'kubefed') throw new Error(`unknown system ${s}`);

const report = await runBenchmark(opts);
if (o.json) writeFileSync(o.json, JSON.stringify(report, null, 2));
const command = ['npm run bench', process.argv.length > 2 ? `-- ${process.argv.slice(2).join(' ')}` : '']
  .filter(Boolean)
  .join(' ');
process.stdout.write(renderReport(report, command));
