// `npm run bench` / `make bench`: the side-by-side benchmark of docs/benchmarks.md. Progress goes to
// stderr; the markdown report (machine facts and the table) to stdout.
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { BenchUsageError, parseCount, parseKinds, parseList, resolveSystems } from './args.ts';
import { type BenchOptions, DEFAULT_OPTIONS, runBenchmark } from './benchmark.ts';
import { runScaleCommand, SCALE_DEFAULTS, type ScaleFlags, scaleOptionsFrom } from './scale-cli.ts';
import { renderReport } from './table.ts';

const cmd = new Command('bench')
  .description('Propagation benchmark of kubefed-ts against KubeFed v0.10.0 on real local apiservers')
  .addOption(
    new Option('--members <n>', 'member clusters').default(DEFAULT_OPTIONS.members).argParser(parseCount),
  )
  .addOption(
    new Option('--objects <n>', 'federated objects per type (N)')
      .default(DEFAULT_OPTIONS.objects)
      .argParser(parseCount),
  )
  .addOption(new Option('--types <list>', 'configmaps,deployments').default(DEFAULT_OPTIONS.kinds.join(',')))
  .option(
    '--systems <list>',
    'kubefed-ts,baseline,kubefed-ts-native,kubefed, in this order (default: kubefed-ts,kubefed-ts-native,kubefed; ' +
      'with --baseline all four); kubefed-ts-native is kubefed-ts fed plain objects and one PropagationPolicy',
  )
  .option(
    '--baseline <git-rev>',
    'also measure kubefed-ts at this commit (a temporary git worktree) in the same run: system "baseline"',
  )
  .addOption(
    new Option(
      '--idle <seconds>',
      'length of each of the two idle windows after the bursts: the one right after them, then the steady state',
    )
      .default(DEFAULT_OPTIONS.idleSeconds)
      .argParser(parseCount),
  )
  .addOption(
    new Option('--update-samples <n>', 'template changes timed per load level')
      .default(DEFAULT_OPTIONS.updateSamples)
      .argParser(parseCount),
  )
  .addOption(
    new Option('--ceiling-concurrency <list>', 'in-flight creates per member tried for the ceiling').default(
      DEFAULT_OPTIONS.ceilingConcurrency.join(','),
    ),
  )
  .addOption(
    new Option('--ceiling-rounds <n>', 'rounds of each fair ceiling; the median round counts')
      .default(DEFAULT_OPTIONS.ceilingRounds)
      .argParser(parseCount),
  )
  .addOption(
    new Option(
      '--no-ceiling-after',
      "run the fair ceilings before the systems only (default: again after them, the median of both sides' rounds)",
    ),
  )
  .addOption(
    new Option(
      '--no-warm-up',
      "measure each system's first burst too (default: one unmeasured burst of the first kind before its rounds)",
    ),
  )
  .addOption(
    new Option(
      '--rounds <n>',
      'cold bursts per system and kind (objects deleted between them); the median round counts',
    )
      .default(DEFAULT_OPTIONS.rounds)
      .argParser(parseCount),
  )
  .addOption(
    new Option(
      '--sync-workers <n>',
      'KubeFedConfig syncController.maxConcurrentReconciles, for both systems',
    ).argParser(parseCount),
  )
  .addOption(
    new Option('--rest-config-qps <n>', 'host client QPS of both controller managers').argParser(parseCount),
  )
  .addOption(
    new Option('--rest-config-burst <n>', 'host client burst of both controller managers').argParser(
      parseCount,
    ),
  )
  .option(
    '--cpu-prof <dir>',
    "write the CPU profiles (node --cpu-prof) of kubefed-ts's controller manager and webhook into this directory",
  )
  .addOption(
    new Option('--timeout <seconds>', 'give up on one wait after this long')
      .default(DEFAULT_OPTIONS.timeoutSeconds)
      .argParser(parseCount),
  )
  .option('--dir <dir>', 'keep logs and state here (default: a temp dir, removed afterwards)')
  .option('--json <file>', 'also write the raw report as JSON')
  .option(
    '--scale',
    'scale mode (--scale-members, --scale-objects, --plot, --restart, --failover): bench/scale.ts',
  )
  .option('--scale-members <list>', 'scale mode: member counts, one phase each', SCALE_DEFAULTS.members)
  .option(
    '--scale-objects <list>',
    'scale mode: cumulative object counts, one step each',
    SCALE_DEFAULTS.objects,
  )
  .option('--plot <png>', 'scale mode: write the plot (cost per member object and rate vs N) here')
  .option('--restart', 'scale mode: kill -9 the controller after the last step and start it again')
  .option('--failover', 'scale mode: a standby replica, then kill -9 the leader');

/** A usage mistake is one line on stderr, not a stack trace. */
function fail(e: unknown): never {
  if (!(e instanceof BenchUsageError)) throw e;
  process.stderr.write(`bench: ${e.message}\n`);
  process.exit(2);
}

const log = (m: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
let o: ReturnType<typeof cmd.opts>;
let opts: BenchOptions;
try {
  cmd.parse(process.argv);
  o = cmd.opts();
  if (o.scale) {
    const given = (k: string) => (cmd.getOptionValueSource(k) === 'default' ? undefined : o[k]);
    const scale = scaleOptionsFrom({ ...o, types: given('types'), systems: o.systems } as ScaleFlags, log);
    const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`;
    await runScaleCommand(scale, { json: o.json, plot: o.plot, command });
    process.exit(0);
  }
  opts = {
    members: o.members,
    objects: o.objects,
    kinds: parseKinds(o.types),
    systems: resolveSystems(o.systems, o.baseline),
    baseline: o.baseline,
    idleSeconds: o.idle,
    updateSamples: o.updateSamples,
    ceilingConcurrency: parseList(o.ceilingConcurrency).map(parseCount),
    ceilingRounds: o.ceilingRounds,
    ceilingAfter: o.ceilingAfter,
    rounds: o.rounds,
    warmUp: o.warmUp,
    syncWorkers: o.syncWorkers,
    restConfigQps: o.restConfigQps,
    restConfigBurst: o.restConfigBurst,
    cpuProfDir: o.cpuProf,
    timeoutSeconds: o.timeout,
    dir: o.dir,
    keep: Boolean(o.dir),
    log,
  };
} catch (e) {
  fail(e);
}
if (o.baseline !== undefined && !opts.systems.includes('baseline'))
  log(`--baseline ${o.baseline} given but --systems leaves out baseline: not measured`);

const report = await runBenchmark(opts).catch(fail);
if (o.json) writeFileSync(o.json, JSON.stringify(report, null, 2));
const command = ['npm run bench', process.argv.length > 2 ? `-- ${process.argv.slice(2).join(' ')}` : '']
  .filter(Boolean)
  .join(' ');
process.stdout.write(renderReport(report, command));
