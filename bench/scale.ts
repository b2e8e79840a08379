// `npm run bench -- --scale`: how the cost of a member object grows with the fleet. One federation of bare
// member apiservers (the most members asked for); per system and member count a phase that registers that many
// members, starts the controller and grows N in cumulative steps, each timed from its first create until every
// member holds every object, then settled and measured. After the largest phase's last step, optionally a
// crash (kill -9 and start again) and a leader failover, measured until the control plane is idle again.
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CoreTypes, type KubeClient, type KubeObject } from '../src/kube/client/index.ts';
import { startFederation } from '../src/testing/federation.ts';
import { sleep } from '../src/util/backoff.ts';
import { type BaselineTree, withBaseline } from './baseline.ts';
import {
  applyUserObjects,
  type Bench,
  type BenchOptions,
  cleanup,
  EVENTS,
  fastClient,
  HOST_RESOURCES,
  MEMBER_RESOURCES,
  machineFacts,
  periodicHostWrite,
  pool,
  prepareHost,
  ready,
  scrapeGauge,
  settle,
  updateLatency,
  waitUntil,
} from './benchmark.ts';
import { liveHeapBytes } from './heap-probe.ts';
import {
  addCounts,
  CpuAccount,
  countsBetween,
  cpuMsPerMemberObject,
  MemberTracker,
  metric,
  PERIODIC_MEMBER_WRITE,
  pidsWithArg,
  procSample,
  reconcileCounter,
  scrapeWrites,
  scrapeWritesByVerb,
  total,
  writesBetween,
} from './measure.ts';
import type { RecoveryResult, ScaleOptions, ScaleReport, ScaleStep } from './scale-types.ts';
import {
  deleteWebhookConfigurations,
  type FrontEnd,
  KUBEFED_NAMESPACE,
  type RunningController,
  type SystemUnderTest,
  systemFor,
} from './systems.ts';
import { federatedObject, KINDS, objectName, plainObject } from './workload.ts';

const LEASE = 'kubefed-controller-manager';
/**
 * Controller CPU below which a window counts as quiet, as a share of one core: 0.05 s in a 2 s window (what is
 * left at rest: cluster health checks, informer resyncs).
 */
const IDLE_CPU_SHARE = 0.025;

/** CPU seconds of processes; an exited one counts 0. */
function cpuOf(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += procSample(pid).cpuSeconds;
    } catch {
      // exited
    }
  }
  return sum;
}

/** Write counters of the host and of each of the phase's members, read together. */
async function scrapeAll(
  bench: Bench,
): Promise<{ host: Map<string, number>; members: Array<Map<string, number>> }> {
  const [host, ...members] = await Promise.all([
    scrapeWritesByVerb(bench.host),
    ...bench.members.map((m) => scrapeWritesByVerb(m.client)),
  ]);
  return { host: host as Map<string, number>, members };
}

/**
 * Host writes the benchmark itself makes when it (re)starts a system: kubefed-ts's webhook configurations,
 * registered again for the new webhook process (bench/systems.ts startWebhook), not the controller's.
 */
const BENCH_INSTALL = (key: string) => / admissionregistration\.k8s\.io\//.test(key);

function writesSince(
  frontEnd: FrontEnd,
  before: Awaited<ReturnType<typeof scrapeAll>>,
  after: Awaited<ReturnType<typeof scrapeAll>>,
): { host: Record<string, number>; members: Record<string, number> } {
  return {
    host: countsBetween(before.host, after.host, (k) => !periodicHostWrite(frontEnd)(k) && !BENCH_INSTALL(k)),
    members: addCounts(
      after.members.map((a, i) =>
        countsBetween(before.members[i] ?? new Map(), a, (k) => !PERIODIC_MEMBER_WRITE(k)),
      ),
    ),
  };
}

/**
 * Whether this controller leads and is ready: /readyz answers 200 and its leader-election gauge is 1. A system
 * without /readyz (KubeFed) counts as ready once started (its start waits for /healthz).
 */
async function leadsAndReady(c: RunningController): Promise<boolean> {
  if (!c.readyUrl) return true;
  const ok = await fetch(c.readyUrl, { signal: AbortSignal.timeout(2000) })
    .then((r) => r.ok)
    .catch(() => false);
  if (!ok) return false;
  return (await metric(c.metricsUrl, 'leader_election_master_status', { name: LEASE })) === 1;
}

interface Phase {
  bench: Bench;
  sys: SystemUnderTest;
  ns: string;
  tracker: MemberTracker;
  kind: (typeof KINDS)[keyof typeof KINDS];
  startOpts: Parameters<SystemUnderTest['start']>[0];
  /** One window of the idle check. */
  quietWindowMs: number;
  /** CPU groups other than the controller: the apiservers of the phase's members, the host's, etcd. */
  processes: Record<string, number[]>;
  log(m: string): void;
}

/**
 * Waits until two consecutive windows show no write to the front end's host objects or events, none to the
 * members' propagated resources, controller CPU below IDLE_CPU_SECONDS, and (kubefed-ts) the reconcile counter
 * at least `objects`. Resolves with the time the first of those windows began, or undefined on timeout.
 */
async function untilIdle(
  phase: Phase,
  controller: RunningController,
  objects: number,
  timeoutMs: number,
): Promise<number | undefined> {
  const { bench, sys, kind } = phase;
  const windowMs = phase.quietWindowMs;
  const hostOurs = (r: string) => HOST_RESOURCES[sys.frontEnd](r) || EVENTS(r);
  const counter = reconcileCounter(sys, kind);
  const deadline = Date.now() + timeoutMs;
  const sample = async () => ({
    at: performance.now(),
    host: await scrapeWrites(bench.host),
    members: await Promise.all(bench.members.map((m) => scrapeWrites(m.client))),
    cpu: cpuOf(controller.pids),
  });
  let prev = await sample();
  let quietSince: number | undefined;
  let quiet = 0;
  let lastLog = performance.now();
  while (Date.now() < deadline) {
    await sleep(windowMs);
    const next = await sample();
    const reconciled =
      counter === undefined ||
      ((await metric(controller.metricsUrl, 'controller_runtime_reconcile_total', { controller: counter })) ??
        0) >= objects;
    const writes =
      writesBetween(prev.host, next.host, hostOurs) +
      next.members.reduce(
        (s, m, i) => s + writesBetween(prev.members[i] ?? new Map(), m, (r) => MEMBER_RESOURCES.has(r)),
        0,
      );
    // A share of one core, so that a slow scrape (a longer window) is not held against the controller.
    const cpuShare = (next.cpu - prev.cpu) / ((next.at - prev.at) / 1000);
    const isQuiet = reconciled && writes === 0 && cpuShare < IDLE_CPU_SHARE;
    if (!isQuiet && performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      phase.log(
        `not idle yet: ${writes} writes, controller at ${(cpuShare * 100).toFixed(1)}% of a core` +
          (reconciled ? '' : `, fewer than ${objects} reconciles`),
      );
    }
    if (isQuiet) {
      if (quiet === 0) quietSince = prev.at;
      quiet++;
      if (quiet >= 2) return quietSince;
    } else quiet = 0;
    prev = next;
  }
  return undefined;
}

/** kill -9 the controller, start the same command again; until it leads, is ready and idle; what it wrote. */
async function restart(
  phase: Phase,
  controller: RunningController,
  objects: number,
): Promise<{ result: RecoveryResult; controller: RunningController }> {
  const { bench, sys, log } = phase;
  const before = await scrapeAll(bench);
  log('restart: kill -9 and start again');
  const t0 = performance.now();
  await controller.kill();
  const next = await sys.start(phase.startOpts);
  await waitUntil(
    'the restarted controller to lead and be ready',
    () => leadsAndReady(next),
    bench.timeoutMs,
  );
  const readySeconds = (performance.now() - t0) / 1000;
  const idleAt = await untilIdle(phase, next, objects, bench.timeoutMs);
  const writes = writesSince(sys.frontEnd, before, await scrapeAll(bench));
  const result: RecoveryResult = {
    kind: 'restart',
    system: sys.id,
    label: sys.label,
    members: bench.members.length,
    objects,
    readySeconds,
    idleSeconds: idleAt === undefined ? undefined : (idleAt - t0) / 1000,
    hostWrites: writes.host,
    memberWrites: writes.members,
  };
  log(
    `restart: ready after ${readySeconds.toFixed(1)} s, idle after ${result.idleSeconds?.toFixed(1) ?? '–'} s; ` +
      `${total(writes.host)} host writes, ${total(writes.members)} member writes`,
  );
  return { result, controller: next };
}

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string };
}

/** A second replica as standby, kill -9 the leader; until the Lease moves, the standby is ready and idle. */
async function failover(
  phase: Phase,
  leader: RunningController,
  objects: number,
): Promise<{ result: RecoveryResult; controller: RunningController }> {
  const { bench, sys, log } = phase;
  const dir = join(bench.fed.dir, `standby-${sys.id}`);
  mkdirSync(dir, { recursive: true });
  log('failover: starting a standby replica');
  const standby = await sys.start({ ...phase.startOpts, dir });
  try {
    return await takeOver(phase, leader, standby, objects);
  } catch (e) {
    // The caller stops the controller it knows of, the leader: the standby must not outlive the run.
    await standby.stop();
    throw e;
  }
}

async function takeOver(
  phase: Phase,
  leader: RunningController,
  standby: RunningController,
  objects: number,
): Promise<{ result: RecoveryResult; controller: RunningController }> {
  const { bench, sys, log } = phase;
  const holder = async () =>
    (await bench.host.get<Lease>(CoreTypes.leases, LEASE, KUBEFED_NAMESPACE).catch(() => undefined))?.spec
      ?.holderIdentity ?? '';
  const holderBefore = await holder();
  if (standby.readyUrl)
    await waitUntil(
      'the standby to run as standby',
      async () =>
        (await fetch(standby.readyUrl ?? '', { signal: AbortSignal.timeout(2000) })).ok &&
        // A standby reports the gauge only once it has led (ha.test.ts): anything but 1 is not leading.
        (await metric(standby.metricsUrl, 'leader_election_master_status', { name: LEASE })) !== 1,
      bench.timeoutMs,
    );
  const before = await scrapeAll(bench);
  log('failover: kill -9 the leader');
  const t0 = performance.now();
  await leader.kill();
  await waitUntil(
    'the Lease to name another holder',
    async () => {
      const h = await holder();
      return h !== '' && h !== holderBefore;
    },
    bench.timeoutMs,
  );
  const leaseChangedSeconds = (performance.now() - t0) / 1000;
  await waitUntil('the standby to lead and be ready', () => leadsAndReady(standby), bench.timeoutMs);
  const readySeconds = (performance.now() - t0) / 1000;
  const idleAt = await untilIdle(phase, standby, objects, bench.timeoutMs);
  const writes = writesSince(sys.frontEnd, before, await scrapeAll(bench));
  const result: RecoveryResult = {
    kind: 'failover',
    system: sys.id,
    label: sys.label,
    members: bench.members.length,
    objects,
    leaseChangedSeconds,
    readySeconds,
    idleSeconds: idleAt === undefined ? undefined : (idleAt - t0) / 1000,
    hostWrites: writes.host,
    memberWrites: writes.members,
  };
  log(
    `failover: lease moved after ${leaseChangedSeconds.toFixed(1)} s, ready after ${readySeconds.toFixed(1)} s, ` +
      `idle after ${result.idleSeconds?.toFixed(1) ?? '–'} s; ${total(writes.host)} host writes, ` +
      `${total(writes.members)} member writes`,
  );
  return { result, controller: standby };
}

/**
 * The controller's live heap, or nothing when it has no inspector or the probe fails: one figure missing from
 * a row, said in the log, rather than a run of half an hour lost.
 */
async function liveHeapOf(
  inspectPort: number | undefined,
  log: (m: string) => void,
): Promise<number | undefined> {
  if (inspectPort === undefined) return undefined;
  try {
    return await liveHeapBytes(inspectPort);
  } catch (err) {
    log(`live heap not read: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Objects [from, to) created 32 in flight, timed until every member holds them; then settled and measured. */
async function scaleStep(
  phase: Phase,
  controller: RunningController,
  from: number,
  to: number,
  probe: Parameters<typeof updateLatency>[1],
): Promise<ScaleStep> {
  const { bench, sys, ns, tracker, kind, log } = phase;
  const m = bench.members.length;
  const clusters = bench.members.map((x) => x.name);
  const account = new CpuAccount({ controller: controller.pids, ...phase.processes });
  const ours = (n: string) => n.startsWith('cm-') || n.startsWith('deploy-');
  const before = await scrapeAll(bench);
  const cpuBefore = account.sample();
  const t0 = performance.now();
  await pool(
    Array.from({ length: to - from }, (_, k) => from + k),
    32,
    async (i) => {
      const name = objectName(kind, i);
      if (sys.frontEnd === 'native') await bench.host.create(kind.target, plainObject(kind, ns, name, i));
      else await bench.host.create(kind.fedType, federatedObject(kind, ns, name, i, clusters));
    },
  );
  let lastLog = performance.now();
  await tracker.until(
    `${to * m} ${kind.id} in the members`,
    () => {
      const n = tracker.count(ours);
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`N ${to}: ${n}/${to * m} in the members`);
      }
      return n >= to * m;
    },
    bench.timeoutMs,
  );
  const seconds = (performance.now() - t0) / 1000;
  const arrivedCpu = account.sample();
  // CPU until the last scrape that still saw writes: the quiet scrapes that prove it settled are not the step's.
  const settled = await settle(bench.host, sys.frontEnd, log, Math.min(bench.timeoutMs, 180_000), {
    intervalMs: bench.opts.settleIntervalMs,
    account,
  });
  const cpuAfter = settled.lastBusy ?? arrivedCpu;
  const writes = writesSince(sys.frontEnd, before, await scrapeAll(bench));
  const cpu = Object.fromEntries(
    Object.keys(cpuAfter).map((k) => [k, (cpuAfter[k] ?? 0) - (cpuBefore[k] ?? 0)]),
  );
  const added = to - from;
  const update = await updateLatency(bench, probe);
  const rss = controller.pids.reduce((s, pid) => s + procSample(pid).rssBytes, 0);
  const step: ScaleStep = {
    system: sys.id,
    label: sys.label,
    frontEnd: sys.frontEnd,
    members: m,
    objects: to,
    added,
    seconds,
    objectsPerSecond: (added * m) / seconds,
    cpu,
    cpuMsPerMemberObject: cpuMsPerMemberObject(cpu, added * m) ?? 0,
    hostWrites: writes.host,
    hostWritesPerObject: total(writes.host) / added,
    memberWrites: writes.members,
    memberWritesPerMemberObject: total(writes.members) / (added * m),
    update,
    rssBytes: rss,
    heapBytes: await scrapeGauge(controller.metricsUrl, controller.heapMetric),
    liveHeapBytes: await liveHeapOf(controller.inspectPort, log),
  };
  log(
    `N ${to}: +${added} in ${seconds.toFixed(1)} s (${step.objectsPerSecond.toFixed(0)} member objects/s), ` +
      `${step.cpuMsPerMemberObject.toFixed(2)} CPU ms per member object, ${step.hostWritesPerObject.toFixed(2)} host ` +
      `writes per object, ${step.memberWritesPerMemberObject.toFixed(2)} member writes per member object, update ` +
      `p50 ${update.p50Ms.toFixed(0)} ms`,
  );
  return step;
}

/** One system with the first m members: install, start, every step; after the largest phase the recoveries. */
async function scalePhase(
  base: Omit<Bench, 'members' | 'opts'> & { opts: BenchOptions; allMembers: Bench['members'] },
  sys: SystemUnderTest,
  m: number,
  opts: ScaleOptions,
  last: boolean,
): Promise<{ steps: ScaleStep[]; recoveries: RecoveryResult[] }> {
  const members = base.allMembers.slice(0, m);
  const bench: Bench = { ...base, members, opts: { ...base.opts, members: m } };
  const log = (msg: string) => opts.log(`${sys.label}, ${m} members: ${msg}`);
  // A namespace per phase: a phase never meets what the previous one's cleanup has not removed yet.
  const ns = `bench-${sys.id}-m${m}`;
  const kind = KINDS[opts.kind];
  log('installing CRDs and FederatedTypeConfigs, registering the members');
  await prepareHost(bench, sys, ns);
  const probeTracker =
    kind.id === 'configmaps'
      ? undefined
      : new MemberTracker(members, KINDS.configmaps.target, ns, KINDS.configmaps.generationOf);
  const tracker = new MemberTracker(members, kind.target, ns, kind.generationOf);
  await tracker.start();
  await probeTracker?.start();
  const processes = {
    hostApiserver: pidsWithArg(`--secure-port=${base.fed.host.api.port}`),
    memberApiservers: base.fed.members.slice(0, m).flatMap((x) => pidsWithArg(`--secure-port=${x.api.port}`)),
    etcd: pidsWithArg(`--data-dir=${join(base.fed.dir, 'etcd', 'data')}`),
  };
  // The inspector lets each step read the controller's live heap (Node systems; KubeFed ignores it).
  const startOpts = {
    kubeconfig: base.fed.kubeconfigPath,
    dir: base.fed.dir,
    args: [] as string[],
    inspect: true,
  };
  const quietWindowMs = opts.quietWindowMs ?? 2000;
  const phase: Phase = { bench, sys, ns, tracker, kind, startOpts, quietWindowMs, processes, log };
  const steps: ScaleStep[] = [];
  const recoveries: RecoveryResult[] = [];
  let controller: RunningController | undefined;
  try {
    log('starting the controller manager');
    controller = await sys.start(startOpts);
    await applyUserObjects(bench, sys, ns);
    await waitUntil('the members to be Ready', () => ready(bench, ns, sys.frontEnd), bench.timeoutMs);
    const probe = { tracker: probeTracker ?? tracker, ns, n: 0, frontEnd: sys.frontEnd };
    let from = 0;
    for (const to of opts.objects) {
      steps.push(await scaleStep(phase, controller, from, to, probe));
      from = to;
    }
    if (last && (opts.restart || opts.failover)) {
      await settle(bench.host, sys.frontEnd, log, Math.min(bench.timeoutMs, 180_000), {
        intervalMs: opts.settleIntervalMs,
      });
      const n = from + 1; // the probe is an object too
      if (opts.restart) {
        const r = await restart(phase, controller, n);
        controller = r.controller;
        recoveries.push(r.result);
      }
      if (opts.failover) {
        const r = await failover(phase, controller, n);
        controller = r.controller;
        recoveries.push(r.result);
      }
    }
    return { steps, recoveries };
  } finally {
    log('stopping the controller manager and cleaning up');
    await controller?.stop();
    // failurePolicy Fail: with the webhook gone, the cleanup's finalizer strips would be refused.
    await deleteWebhookConfigurations(base.host);
    await tracker.stop();
    await probeTracker?.stop();
    await cleanup(base.host, members, ns, [kind], sys.frontEnd, bench.timeoutMs).catch((e) =>
      log(`cleanup failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  }
}

export async function runScale(opts: ScaleOptions): Promise<ScaleReport> {
  const members = [...opts.members].sort((a, b) => a - b);
  const objects = [...opts.objects].sort((a, b) => a - b);
  return withBaseline(opts.baseline, opts.systems, opts.log, (baseline) =>
    scaleRun(opts, members, objects, baseline),
  );
}

async function scaleRun(
  opts: ScaleOptions,
  members: number[],
  objects: number[],
  baseline: BaselineTree | undefined,
): Promise<ScaleReport> {
  const started = Date.now();
  const most = members.at(-1) ?? 1;
  opts.log(`starting a federation: host + ${most} bare members`);
  const fed = await startFederation({
    members: most,
    memberControllers: 'none',
    dir: opts.dir,
    keep: opts.keep,
  });
  const clients: KubeClient[] = [];
  const mk = (name: string, connections?: number) => {
    const c = fastClient(fed, name, connections);
    clients.push(c);
    return c;
  };
  try {
    const host = mk(fed.host.name, 64);
    const allMembers = fed.members.map((m) => ({ name: m.name, client: mk(m.name, 64) }));
    const version = await host.request<{ gitVersion: string }>('GET', '/version');
    const machine = machineFacts(version.gitVersion);
    const benchOpts: BenchOptions = {
      members: most,
      objects: objects.at(-1) ?? 0,
      kinds: [opts.kind],
      systems: opts.systems,
      idleSeconds: 0,
      updateSamples: opts.updateSamples,
      ceilingConcurrency: [],
      ceilingRounds: 0,
      syncWorkers: opts.syncWorkers,
      timeoutSeconds: opts.timeoutSeconds,
      settleIntervalMs: opts.settleIntervalMs,
      leaderElect: opts.leaderElect,
      log: opts.log,
    };
    const base = {
      opts: benchOpts,
      fed,
      host,
      allMembers,
      kinds: [KINDS[opts.kind]],
      processes: {},
      timeoutMs: opts.timeoutSeconds * 1000,
    };
    const { log: _log, ...options } = opts;
    const report: ScaleReport = {
      options: { ...options, members, objects },
      machine,
      steps: [],
      recoveries: [],
      wallSeconds: 0,
    };
    for (const id of opts.systems) {
      const sys = await systemFor(id, baseline);
      for (const m of members) {
        const r = await scalePhase(base, sys, m, { ...opts, objects }, m === most);
        report.steps.push(...r.steps);
        report.recoveries.push(...r.recoveries);
      }
    }
    machine.loadAfter = loadavg();
    report.wallSeconds = (Date.now() - started) / 1000;
    return report;
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await fed.stop();
  }
}
