// The benchmark itself: one federation of real apiservers; the ceiling, then each system in turn on the
// same clusters (kubefed-ts, optionally kubefed-ts at a baseline commit, KubeFed), with everything the
// previous phase left removed in between. Only one controller runs at a time, and the benchmark's own
// clients only read (watches) while a controller is measured.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { PropagatedVersionType } from '../src/api/core/v1alpha1/index.ts';
import {
  API_VERSION,
  FederatedTypeConfigType,
  KUBEFED_CONFIG_KIND,
  KubeFedClusterType,
  KubeFedConfigType,
} from '../src/api/core/v1beta1/index.ts';
import { defaultKubeFedConfigSpec } from '../src/config/index.ts';
import { defaultFederatedTypes } from '../src/federation-types/default-types.ts';
import { applyCrds } from '../src/install/control-plane.ts';
import {
  ApiError,
  CoreTypes,
  errorMessage,
  isAlreadyExists,
  isNotFound,
  KubeClient,
  type KubeObject,
  type ResourceType,
  resourcePath,
  withQuery,
} from '../src/kube/client/index.ts';
import { MANAGED_LABEL } from '../src/propagation/constants.ts';
import { propagatedVersionName } from '../src/sources/federated/version-store.ts';
import { bindingName } from '../src/sources/policy/binding-name.ts';
import { BindingTypes } from '../src/sources/policy/bindings.ts';
import { PolicyTypes } from '../src/sources/policy/policies.ts';
import { type Federation, startFederation } from '../src/testing/federation.ts';
import { parsePrometheusText, value } from '../src/testing/prometheus.ts';
import { sleep } from '../src/util/backoff.ts';
import { BenchUsageError } from './args.ts';
import { withBaseline } from './baseline.ts';
import { burstEnd, CpuTrail, LastWriteClock } from './burst-end.ts';
import {
  addCounts,
  CpuAccount,
  countsBetween,
  cpuMsPerMemberObject,
  MemberTracker,
  metric,
  PERIODIC_MEMBER_WRITE,
  type ProcSample,
  pidsWithArg,
  procSample,
  quantile,
  reconcileCounter,
  scrapeWrites,
  scrapeWritesByVerb,
  total,
  writesBetween,
} from './measure.ts';
import { bracketedMedianRound, medianRound } from './median.ts';
import type { LeaderElectDurations } from './scale-types.ts';
import {
  deleteWebhookConfigurations,
  type FrontEnd,
  KUBEFED_NAMESPACE,
  type RunningController,
  type SystemId,
  type SystemUnderTest,
  systemFor,
} from './systems.ts';
import {
  type BenchKind,
  FED_API,
  FEDERATED_NAMESPACES,
  federatedObject,
  KINDS,
  memberObject,
  objectName,
  plainObject,
  propagationPolicy,
} from './workload.ts';

export interface BenchOptions {
  members: number;
  objects: number;
  kinds: Array<BenchKind['id']>;
  systems: SystemId[];
  /** The git revision the `baseline` system checks out (kubefed-ts before a change). */
  baseline?: string;
  /**
   * The length of each of the two idle windows after a system's bursts: the one right after them, then the steady
   * state (see IdleCounts).
   */
  idleSeconds: number;
  updateSamples: number;
  ceilingConcurrency: number[];
  /** How often each fair ceiling runs; the round with the median CPU per member object is reported. */
  ceilingRounds: number;
  /**
   * Run every fair ceiling's rounds again after the systems, on the apiservers and etcd as the systems left them,
   * and report the median of the rounds of both sides. Unset: before the systems only.
   */
  ceilingAfter?: boolean;
  /**
   * How often each system's cold burst runs per kind (the objects deleted and every copy gone between rounds);
   * the round with the median CPU per member object is reported, as for the fair ceilings. Unset: 1.
   */
  rounds?: number;
  /**
   * One unmeasured burst of the first kind before each system's measured rounds, its objects deleted after it:
   * a controller that has just started runs its code unoptimized (Node's JIT), and in three runs kubefed-ts's
   * first burst cost up to a third more than the next ones, which a median of three then carried. Its CPU is
   * listed beside the rounds, so a step shows when there is one. Unset: none.
   */
  warmUp?: boolean;
  /** KubeFedConfig spec.syncController.maxConcurrentReconciles for both systems; unset = each one's default. */
  syncWorkers?: number;
  /** --rest-config-qps / --rest-config-burst for both controller managers; unset = each one's default. */
  restConfigQps?: number;
  restConfigBurst?: number;
  /** Write kubefed-ts's CPU profile (node --cpu-prof) into this directory. */
  cpuProfDir?: string;
  /** Give up on one wait (a propagation, a cleanup) after this long. */
  timeoutSeconds: number;
  /**
   * Time between the host write scrapes that decide it settled (two quiet ones in a row); 5 s by default. The
   * smoke test's tiny N settles within a second, and twelve settles at 5 s made up most of its run.
   */
  settleIntervalMs?: number;
  /** KubeFedConfig spec.leaderElect durations (shortened for the scale smoke's failover); unset = defaults. */
  leaderElect?: LeaderElectDurations;
  /** Where logs and state go (a temp dir by default, removed unless keep). */
  dir?: string;
  keep?: boolean;
  log(msg: string): void;
}

export const DEFAULT_OPTIONS: Omit<BenchOptions, 'log'> = {
  members: 3,
  objects: 1000,
  kinds: ['configmaps', 'deployments'],
  systems: ['kubefed-ts', 'kubefed'],
  idleSeconds: 300,
  updateSamples: 30,
  ceilingConcurrency: [8, 32, 128],
  ceilingRounds: 3,
  ceilingAfter: true,
  rounds: 3,
  warmUp: true,
  timeoutSeconds: 900,
};

export interface Throughput {
  seconds: number;
  /** Member objects (N × members) per second. */
  objectsPerSecond: number;
  arrived: number;
  expected: number;
  /** CPU seconds per process group while it ran (controller, host/member apiservers, etcd, bench). */
  cpu?: Record<string, number>;
  /**
   * Host writes (the host apiserver's apiserver_request_total, by verb and resource[/subresource]) from the
   * first create until the host settled after the last arrival: the user's creates and everything the
   * controller wrote for them. Leader-election leases and KubeFedCluster health are left out (periodic, not per
   * object).
   */
  hostWrites?: Record<string, number>;
  /** The sum of hostWrites per object (N, not N × members). */
  hostWritesPerObject?: number;
  /**
   * Member writes over the same span, every member's apiserver_request_total added up (by verb and
   * resource[/subresource]), leader-election leases left out: the copies and whatever else the controller wrote.
   */
  memberWrites?: Record<string, number>;
  /** The sum of memberWrites per object (÷ N). */
  memberWritesPerObject?: number;
  /** The sum of memberWrites per member object (÷ N × members): 1 when each copy is written once. */
  memberWritesPerMemberObject?: number;
  /**
   * Reconciles per object (÷ N) over the same span, by the controller that looks at each object
   * (`reconcileCounter`): 1 when nothing but the object's creation made it look again. KubeFed counts none.
   */
  reconcilesPerObject?: number;
  /**
   * CPU seconds per process group from the first create until the burst's last write: the last arrival, or a
   * later host write of the burst (status, events, bindings, as watches on them saw it), within 100 ms; cpu
   * stops at the last arrival. Not the scrape that found the host quiet: that would add up to a settle interval
   * of idle processes the ceilings' windows do not hold (see burst-end.ts).
   */
  cpuUntilLastWrite?: Record<string, number>;
  /**
   * Seconds from the first create to the burst's last host write as the watches saw it (the creates are writes
   * too); past `seconds` when the status tail outlasted the last arrival.
   */
  lastWriteSeconds?: number;
  /**
   * CPU ms of the controller group (controller-manager + webhook), the host and member apiservers and etcd,
   * from cpuUntilLastWrite, ÷ N × members: what one member object cost the machine. The ceilings' from cpu.
   */
  cpuMsPerMemberObject?: number;
  /**
   * The same, counted to the settle scrape that last saw a write (the window before burst-end.ts), so that
   * every report shows what that rule would have said of the same burst.
   */
  cpuMsToBusyScrape?: number;
  /**
   * The Events behind the `events` writes over the same span: occurrences (Event.count) per involved kind and
   * reason (`ConfigMap ApplyPolicySucceed`), read from the host after it settled.
   */
  hostEvents?: Record<string, number>;
  /** With more than one round (`--ceiling-rounds`, `--rounds`): every round's cpuMsPerMemberObject, in order. */
  roundsCpuMs?: number[];
  /** Every round's objectsPerSecond, in order (systems' rounds). */
  roundsObjectsPerSecond?: number[];
  /** The unmeasured warm-up burst's CPU per member object, when one ran before the rounds (`warmUp`). */
  warmUpCpuMs?: number;
}

export interface Latency {
  p50Ms: number;
  p99Ms: number;
  samples: number;
}

/**
 * What one idle window counted. Two windows of `idleSeconds` run back to back once the host has settled after the
 * bursts: the first holds whatever the bursts left to the controller's runtime (V8's memory reducer runs a full GC
 * once the process goes quiet after an allocation-heavy burst), the second is the steady state.
 */
export interface IdleCounts {
  /** Writes to member apiservers (configmaps, deployments, namespaces). */
  memberWrites: number;
  /**
   * Writes to the front end's own host objects: federated objects and PropagatedVersions; for the native front
   * end templates, policies and bindings.
   */
  hostWrites: number;
  /** CPU seconds of the controller group (controller-manager + webhook). */
  cpuSeconds: number;
}

export interface SystemResult {
  system: SystemId;
  label: string;
  frontEnd?: FrontEnd;
  cold: Partial<Record<BenchKind['id'], Throughput>>;
  updateIdle: Latency;
  updateLoaded: Latency;
  /** memberWrites, hostWrites and cpuSeconds: the first idle window, right after the bursts (IdleCounts). */
  memberWrites: number;
  hostWrites: number;
  idleSeconds: number;
  cpuSeconds: number;
  /**
   * The second idle window, of the same length, from the end of the first: the steady state. Absent in reports
   * from before it was measured.
   */
  steady?: IdleCounts;
  /** The controller-manager's, at the end of the last idle window (the steady one, when it ran). */
  rssBytes: number;
  /** Heap in use as the controller's own runtime reports it (V8 / Go), at the same moment. */
  heapBytes?: number;
  /** CPU seconds the controller used from start to the end of the last idle window. */
  totalCpuSeconds: number;
}

export interface CeilingResult {
  kind: BenchKind['id'];
  /** The member-only ceiling: N × members creates, straight into the members. */
  best: Throughput & { concurrency: number };
  tried: Array<{ concurrency: number; seconds: number; objectsPerSecond: number }>;
  /**
   * The fair ceiling: what a federation must at least write, done directly — N Federated<Kind>s into the host
   * (kubefed-ts's CRDs, 32 in flight as the systems' burst) concurrently with the N × members member creates at
   * the best member-only concurrency, clocked until both are done.
   */
  fair?: FairCeiling;
  /** The same with N plain objects into the host (the native front end's input). */
  fairNative?: FairCeiling;
}

/**
 * A fair ceiling: the median round (by CPU per member object) of `--ceiling-rounds`, and every round's CPU; with
 * `ceilingAfter`, of the rounds before the systems and those after them together.
 */
export type FairCeiling = FairCeilingRound & {
  /** How many of the rounds (the first ones) ran before the systems; the rest ran after them. */
  roundsBefore?: number;
};

/** One round of a fair ceiling. */
type FairCeilingRound = Throughput & { concurrency: number };

export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  go: string;
  kubernetes: string;
  loadBefore: number[];
  loadAfter: number[];
}

export interface BenchReport {
  options: Omit<BenchOptions, 'log'>;
  machine: MachineFacts;
  ceiling: CeilingResult[];
  systems: SystemResult[];
  /** Which commit the `baseline` system ran, when it ran. */
  baseline?: { rev: string; commit: string; label: string };
  wallSeconds: number;
}

/** Member write counters that belong to propagation (the same resources for both systems). */
export const MEMBER_RESOURCES = new Set(['configmaps', 'apps/deployments', 'namespaces']);
/** The host objects a front end writes for its objects (group/resource as writeCounts keys them). */
export const HOST_RESOURCES: Record<FrontEnd, (r: string) => boolean> = {
  federated: (r) => r.startsWith('types.kubefed.io/') || r === 'core.kubefed.io/propagatedversions',
  native: (r) =>
    r.startsWith('policy.karmada.io/') ||
    r.startsWith('work.karmada.io/') ||
    r === 'configmaps' ||
    r === 'apps/deployments',
};
export const EVENTS = (r: string) => r === 'events' || r === 'events.k8s.io/events';
/** Host writes that happen whatever the workload (leader election, cluster health): not per object. */
export const PERIODIC_HOST_WRITE = (key: string) =>
  / coordination\.k8s\.io\/leases( \d+)?$/.test(key) ||
  / core\.kubefed\.io\/kubefedclusters(\/status)?( \d+)?$/.test(key);
/**
 * The same for one front end. The federated front end writes no host ConfigMap for an object, but KubeFed's
 * leader election renews a ConfigMap lock (KubeFedConfig leaderElect.resourceLock, default `configmaps`).
 */
export const periodicHostWrite = (frontEnd: FrontEnd) => (key: string) =>
  PERIODIC_HOST_WRITE(key) || (frontEnd === 'federated' && /^PUT configmaps( \d+)?$/.test(key));

/** Keys of writeCountsByVerb for one resource type, whatever the verb and status code. */
const writesTo = (t: ResourceType) => {
  const resource = `${t.group ? `${t.group}/` : ''}${t.plural}`;
  return (key: string) => key.split(' ')[1] === resource;
};

/** Every member's writes by verb, in member order. */
const scrapeMembers = (members: Member[]) => Promise.all(members.map((m) => scrapeWritesByVerb(m.client)));

/** The members' writes between two scrapes of each, added up, leases left out. */
function memberWritesBetween(
  before: Array<Map<string, number>>,
  after: Array<Map<string, number>>,
): Record<string, number> {
  return addCounts(
    after.map((a, i) => countsBetween(before[i] ?? new Map(), a, (k) => !PERIODIC_MEMBER_WRITE(k))),
  );
}

/** Runs fn over items with at most n in flight. */
export async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

export function fastClient(fed: Federation, name: string, connections = 32): KubeClient {
  return new KubeClient(fed.cluster(name).api.restConfig, {
    name: `bench-${name}`,
    qps: 0,
    connections,
    timeoutMs: 60_000,
    userAgent: 'kubefed-ts-bench',
  });
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

async function deleteCollection(
  c: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  q: Record<string, string> = {},
) {
  // 10,000 objects take the apiserver longer than a request's usual 30 s: it keeps deleting after a timeout
  // anyway, and deleteAll waits for them to be gone.
  const res = await c.requestRaw('DELETE', withQuery(resourcePath(type, { namespace }), q), {
    timeoutMs: 600_000,
  });
  if (res.statusCode >= 300 && res.statusCode !== 404)
    throw new Error(`deletecollection ${type.plural}: ${res.statusCode} ${res.body.slice(0, 300)}`);
}

export async function createNamespace(c: KubeClient, name: string): Promise<void> {
  try {
    await c.create(CoreTypes.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

export function machineFacts(kubernetes: string): MachineFacts {
  let go = 'n/a';
  try {
    go = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
  } catch {
    // no Go on PATH: KubeFed came from KUBEFED_TS_CACHE
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    go,
    kubernetes,
    loadBefore: loadavg(),
    loadAfter: [],
  };
}

/** What every phase of one run shares: the options, the federation and the benchmark's own clients. */
export interface Bench {
  opts: BenchOptions;
  fed: Federation;
  host: KubeClient;
  members: Member[];
  kinds: BenchKind[];
  /** The host/member apiservers', etcd's and the benchmark's own pids, for the CPU split. */
  processes: Record<string, number[]>;
  timeoutMs: number;
}

export type Member = { name: string; client: KubeClient };

export async function runBenchmark(opts: BenchOptions): Promise<BenchReport> {
  const started = Date.now();
  const log = opts.log;
  if (opts.systems.includes('baseline') && opts.baseline === undefined)
    throw new BenchUsageError('the baseline system needs a git revision (--baseline <git-rev>)');
  return withBaseline(opts.baseline, opts.systems, log, async (baseline) => {
    const systems: SystemUnderTest[] = [];
    for (const id of opts.systems) systems.push(await systemFor(id, baseline));
    log(`starting a federation: host + ${opts.members} members`);
    const fed = await startFederation({ members: opts.members, dir: opts.dir, keep: opts.keep });
    const clients: KubeClient[] = [];
    const mk = (name: string, connections?: number) => {
      const c = fastClient(fed, name, connections);
      clients.push(c);
      return c;
    };
    try {
      const host = mk(fed.host.name, 64);
      const members = fed.members.map((m) => ({ name: m.name, client: mk(m.name, 160) }));
      const version = await host.request<{ gitVersion: string }>('GET', '/version');
      const machine = machineFacts(version.gitVersion);
      const { log: _log, ...options } = opts;
      const report: BenchReport = { options, machine, ceiling: [], systems: [], wallSeconds: 0 };
      if (baseline) report.baseline = { rev: baseline.rev, commit: baseline.commit, label: baseline.label };
      const bench: Bench = {
        opts,
        fed,
        host,
        members,
        kinds: opts.kinds.map((k) => KINDS[k]),
        processes: {
          hostApiserver: pidsWithArg(`--secure-port=${fed.host.api.port}`),
          memberApiservers: fed.members.flatMap((m) => pidsWithArg(`--secure-port=${m.api.port}`)),
          etcd: pidsWithArg(`--data-dir=${join(fed.dir, 'etcd', 'data')}`),
          bench: [process.pid],
        },
        timeoutMs: opts.timeoutSeconds * 1000,
      };

      await applyFederatedCrds(host, bench.kinds);
      const ceilings: MeasuredCeiling[] = [];
      for (const kind of bench.kinds)
        ceilings.push(await ceiling(bench, kind, new CpuAccount(bench.processes)));
      report.ceiling = ceilings.map((c) => c.result);

      for (const sys of systems) report.systems.push(await measureSystem(bench, sys));
      if (opts.ceilingAfter && systems.length > 0) await fairCeilingsAfter(bench, ceilings);
      machine.loadAfter = loadavg();
      report.wallSeconds = (Date.now() - started) / 1000;
      return report;
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await fed.stop();
    }
  });
}

/**
 * kubefed-ts's own Federated<Kind> CRDs for the benchmark's kinds: for the fair ceiling's host objects, and the
 * micro-benchmarks' federated objects on a bare apiserver.
 */
export async function applyFederatedCrds(host: KubeClient, kinds: BenchKind[]): Promise<void> {
  const names = new Set(kinds.map((k) => `${k.fedType.plural}.${k.fedType.group}`));
  await applyCrds(
    host,
    defaultFederatedTypes(KUBEFED_NAMESPACE)
      .crds.filter((c) => names.has(c.metadata.name ?? ''))
      .map((c) => ({ ...c })),
  );
}

/**
 * One kind's ceilings as reported, and every round of its two fair ceilings (Federated<Kind>s into the host, and
 * plain objects), which the rounds after the systems join.
 */
interface MeasuredCeiling {
  kind: BenchKind;
  result: CeilingResult;
  fairRounds: { federated: FairCeilingRound[]; native: FairCeilingRound[] };
}

/** The namespace of a kind's ceilings, in the host and in every member. */
const ceilingNamespace = (kind: BenchKind) => `bench-ceiling-${kind.id}`;

/**
 * The physical limits: the same N × members creates, done directly by a client at several concurrencies (the
 * member-only ceiling); then the fair ceilings, which also write the N host objects a user writes.
 */
async function ceiling(bench: Bench, kind: BenchKind, account: CpuAccount): Promise<MeasuredCeiling> {
  const { opts, members } = bench;
  const ns = ceilingNamespace(kind);
  await Promise.all(members.map((m) => createNamespace(m.client, ns)));
  const expected = opts.objects * members.length;
  const tried: Array<CeilingResult['tried'][number] & { cpu: Record<string, number> }> = [];
  for (const concurrency of opts.ceilingConcurrency) {
    const t0 = performance.now();
    const { cpu } = await account.during(() =>
      Promise.all(
        members.map((m) =>
          pool(
            Array.from({ length: opts.objects }, (_, i) => i),
            concurrency,
            async (i) => {
              await m.client.create(kind.target, memberObject(kind, ns, i));
            },
          ),
        ),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    tried.push({ concurrency, seconds, objectsPerSecond: expected / seconds, cpu });
    opts.log(
      `ceiling ${kind.id}: ${expected} creates at concurrency ${concurrency}/member in ${seconds.toFixed(2)} s ` +
        `(${(expected / seconds).toFixed(0)}/s)`,
    );
    await Promise.all(
      members.map((m) =>
        deleteCollection(m.client, kind.target, ns, { fieldSelector: 'metadata.name!=kube-root-ca.crt' }),
      ),
    );
  }
  const best = tried.reduce((a, b) => (b.objectsPerSecond > a.objectsPerSecond ? b : a));
  const run = { bench, kind, account, ns, concurrency: best.concurrency };
  const fairRounds: MeasuredCeiling['fairRounds'] = {
    federated: await fairCeilingRounds({ ...run, frontEnd: 'federated' }),
    native: await fairCeilingRounds({ ...run, frontEnd: 'native' }),
  };
  const result: CeilingResult = {
    kind: kind.id,
    best: {
      ...best,
      arrived: expected,
      expected,
      memberWritesPerMemberObject: 1,
      cpuMsPerMemberObject: cpuMsPerMemberObject(best.cpu, expected),
    },
    tried: tried.map(({ concurrency, seconds, objectsPerSecond }) => ({
      concurrency,
      seconds,
      objectsPerSecond,
    })),
    fair: medianRound(fairRounds.federated),
    fairNative: medianRound(fairRounds.native),
  };
  return { kind, result, fairRounds };
}

/**
 * The fair ceilings once more after the systems, at the concurrency chosen before them: an apiserver and etcd
 * that have served the systems' bursts (etcd's history, the host's Events, grown caches) are not the fresh ones
 * the first rounds met, so each ceiling becomes the median of the rounds of both sides (bracketedMedianRound).
 */
async function fairCeilingsAfter(bench: Bench, ceilings: MeasuredCeiling[]): Promise<void> {
  const { host, members, kinds } = bench;
  // A system may have replaced the Federated<Kind> CRDs with its own (KubeFed's) or left them removed.
  await applyFederatedCrds(host, kinds);
  for (const { kind, result: c, fairRounds: rounds } of ceilings) {
    const ns = ceilingNamespace(kind);
    await Promise.all(members.map((m) => createNamespace(m.client, ns)));
    bench.opts.log(`fair ceilings ${kind.id} again, after the systems`);
    const run = {
      bench,
      kind,
      account: new CpuAccount(bench.processes),
      ns,
      concurrency: c.best.concurrency,
    };
    c.fair = bracketedMedianRound(
      rounds.federated,
      await fairCeilingRounds({ ...run, frontEnd: 'federated' }),
    );
    c.fairNative = bracketedMedianRound(
      rounds.native,
      await fairCeilingRounds({ ...run, frontEnd: 'native' }),
    );
  }
}

/** One fair ceiling to run: the front end's host objects, at the best member-only `concurrency`. */
interface FairCeilingRun {
  bench: Bench;
  kind: BenchKind;
  account: CpuAccount;
  ns: string;
  concurrency: number;
  frontEnd: FrontEnd;
}

/** `--ceiling-rounds` fair ceilings of one front end, in the order they ran. */
async function fairCeilingRounds(run: FairCeilingRun): Promise<FairCeilingRound[]> {
  const rounds: FairCeilingRound[] = [];
  for (let i = 0; i < Math.max(1, run.bench.opts.ceilingRounds); i++) rounds.push(await fairCeiling(run));
  return rounds;
}

/**
 * The fair ceiling of one front end: N host objects (Federated<Kind>s, or plain objects), 32 in flight as the
 * systems' burst, concurrently with the N × members member creates at `concurrency` per member; timed until both
 * are done, with the writes each apiserver counted (one per object in the host, one per member object).
 */
async function fairCeiling({
  bench,
  kind,
  account,
  ns,
  concurrency,
  frontEnd,
}: FairCeilingRun): Promise<FairCeilingRound> {
  const { opts, host, members } = bench;
  const clusters = members.map((m) => m.name);
  const expected = opts.objects * members.length;
  const indexes = Array.from({ length: opts.objects }, (_, i) => i);
  const hostType = frontEnd === 'native' ? kind.target : kind.fedType;
  await createNamespace(host, ns);
  // The benchmark's own watches, as a system's burst has them: the apiservers send the tracker every member
  // copy and the clock every host write, and that CPU is counted for the system, so the ceiling pays it too.
  const { hostBefore, membersBefore, cpu, seconds } = await whileObserved(
    bench,
    kind,
    ns,
    hostType,
    async () => {
      const hostBefore = await scrapeWritesByVerb(host);
      const membersBefore = await scrapeMembers(members);
      const t0 = performance.now();
      const { cpu } = await account.during(() =>
        Promise.all([
          pool(indexes, 32, async (i) => {
            const name = objectName(kind, i);
            if (frontEnd === 'native') await host.create(kind.target, plainObject(kind, ns, name, i));
            else await host.create(kind.fedType, federatedObject(kind, ns, name, i, clusters));
          }),
          ...members.map((m) =>
            pool(indexes, concurrency, async (i) => {
              await m.client.create(kind.target, memberObject(kind, ns, i));
            }),
          ),
        ]),
      );
      return { hostBefore, membersBefore, cpu, seconds: (performance.now() - t0) / 1000 };
    },
  );
  // Only the objects' own resources: the host's controllers (kube-root-ca.crt, the default ServiceAccount) may
  // still be filling the namespace created just before.
  const hostWrites = countsBetween(hostBefore, await scrapeWritesByVerb(host), writesTo(hostType));
  const memberWrites = addCounts(
    (await scrapeMembers(members)).map((after, i) =>
      countsBetween(membersBefore[i] ?? new Map(), after, writesTo(kind.target)),
    ),
  );
  const result = {
    concurrency,
    seconds,
    objectsPerSecond: expected / seconds,
    arrived: expected,
    expected,
    cpu,
    hostWrites,
    hostWritesPerObject: total(hostWrites) / opts.objects,
    memberWrites,
    memberWritesPerObject: total(memberWrites) / opts.objects,
    memberWritesPerMemberObject: total(memberWrites) / expected,
    cpuMsPerMemberObject: cpuMsPerMemberObject(cpu, expected),
  };
  opts.log(
    `fair ceiling ${kind.id} (${frontEnd === 'native' ? 'plain' : 'federated'} objects in the host): ` +
      `${opts.objects} host + ${expected} member creates in ${seconds.toFixed(2)} s ` +
      `(${result.objectsPerSecond.toFixed(0)} member objects/s, ${result.cpuMsPerMemberObject?.toFixed(2)} CPU ms each)`,
  );
  await deleteCollection(host, hostType, ns, {
    fieldSelector: 'metadata.name!=kube-root-ca.crt',
  });
  await Promise.all(
    members.map((m) =>
      deleteCollection(m.client, kind.target, ns, { fieldSelector: 'metadata.name!=kube-root-ca.crt' }),
    ),
  );
  return result;
}

/**
 * Runs `fn` under what watches the host and the members during a system's cold burst: the member tracker of the
 * burst's kind (its arrivals) and the last-write clock on the host (burst-end.ts); they stop however it ends.
 */
async function whileObserved<T>(
  bench: Bench,
  kind: BenchKind,
  ns: string,
  hostType: ResourceType,
  fn: () => Promise<T>,
): Promise<T> {
  const tracker = new MemberTracker(bench.members, kind.target, ns, kind.generationOf);
  // The host objects and events, the types a ceiling writes: a system's clock also watches its own records
  // (bindings, PropagatedVersions), which a ceiling does not write and whose CRDs may not be installed yet.
  const clock = new LastWriteClock(bench.host, [hostType, CoreTypes.events], ns);
  try {
    await Promise.all([tracker.start(), clock.start()]);
    return await fn();
  } finally {
    await Promise.all([tracker.stop(), clock.stop()]);
  }
}

/** Removes the previous system's control-plane objects, so that the next one starts from nothing. */
export async function resetControlPlane(host: KubeClient, timeoutMs: number): Promise<void> {
  for (const t of [FederatedTypeConfigType, KubeFedConfigType, KubeFedClusterType]) {
    try {
      await deleteAll(host, t, KUBEFED_NAMESPACE, timeoutMs);
    } catch (e) {
      // The CRD does not exist before the first system installs it.
      if (!(e instanceof ApiError && e.statusCode === 404)) throw e;
    }
  }
  await ignoreNotFound(
    host.delete(CoreTypes.configMaps, 'kubefed-controller-manager', { namespace: KUBEFED_NAMESPACE }),
  );
  await ignoreNotFound(
    host.delete(CoreTypes.leases, 'kubefed-controller-manager', { namespace: KUBEFED_NAMESPACE }),
  );
  await deleteWebhookConfigurations(host);
}

/**
 * Deletes every object of a type in a namespace and waits until they are gone. No controller runs at this
 * point, so the finalizers it would have removed are stripped here.
 */
async function deleteAll(c: KubeClient, t: ResourceType, ns: string, timeoutMs: number): Promise<void> {
  const list = await c.listAll(t, { namespace: ns });
  await pool(list.items, 32, async (o) => {
    if ((o.metadata.finalizers ?? []).length === 0) return;
    await ignoreNotFound(
      c.patch(t, o.metadata.name ?? '', { metadata: { finalizers: null } }, { namespace: ns }),
    );
  });
  await deleteCollection(c, t, ns);
  await waitUntil(
    `${t.plural} in ${ns} to be deleted`,
    async () => {
      const left = await c.list(t, { namespace: ns, limit: 1 });
      if (left.items.length === 0) return true;
      // Finalizers added after the list above (a controller that was still stopping): strip again.
      for (const o of left.items)
        if ((o.metadata.finalizers ?? []).length > 0)
          await ignoreNotFound(
            c.patch(t, o.metadata.name ?? '', { metadata: { finalizers: null } }, { namespace: ns }),
          );
      return false;
    },
    timeoutMs,
  );
}

/** Registers the members the way `kubefedctl join` would leave them: a token Secret and a KubeFedCluster. */
export async function registerMembers(
  fed: Federation,
  host: KubeClient,
  names: readonly string[] = fed.members.map((m) => m.name),
): Promise<void> {
  for (const m of fed.members.filter((x) => names.includes(x.name))) {
    const secretName = `${m.name}-bench-token`;
    await ignoreNotFound(host.delete(CoreTypes.secrets, secretName, { namespace: KUBEFED_NAMESPACE }));
    await host.create(CoreTypes.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: KUBEFED_NAMESPACE },
      data: { token: Buffer.from(m.api.adminToken).toString('base64') },
    } as KubeObject);
    await host.create(KubeFedClusterType, {
      apiVersion: API_VERSION,
      kind: 'KubeFedCluster',
      metadata: { name: m.name, namespace: KUBEFED_NAMESPACE },
      spec: {
        apiEndpoint: m.server,
        caBundle: m.api.caData.toString('base64'),
        secretRef: { name: secretName },
      },
    } as KubeObject);
  }
}

/** One system from nothing: install, start, cold propagation, update latency, the idle windows; then cleanup. */
async function measureSystem(bench: Bench, sys: SystemUnderTest): Promise<SystemResult> {
  const { opts, host, members, kinds, timeoutMs } = bench;
  const log = (m: string) => opts.log(`${sys.label}: ${m}`);
  const ns = `bench-${sys.id}`;

  log('installing CRDs and FederatedTypeConfigs');
  await prepareHost(bench, sys, ns);

  const trackers = new Map<BenchKind['id'], MemberTracker>();
  const allKinds = kinds.some((k) => k.id === 'configmaps') ? kinds : [KINDS.configmaps, ...kinds];
  for (const k of allKinds) {
    const t = new MemberTracker(members, k.target, ns, k.generationOf);
    await t.start();
    trackers.set(k.id, t);
  }
  const cmTracker = trackers.get('configmaps') as MemberTracker;

  let controller: RunningController | undefined;
  try {
    log('starting the controller manager');
    const t0 = performance.now();
    controller = await sys.start({
      kubeconfig: bench.fed.kubeconfigPath,
      dir: bench.fed.dir,
      cpuProfDir: opts.cpuProfDir,
      args: [
        ...(opts.restConfigQps ? [`--rest-config-qps=${opts.restConfigQps}`] : []),
        ...(opts.restConfigBurst ? [`--rest-config-burst=${opts.restConfigBurst}`] : []),
      ],
    });
    await applyUserObjects(bench, sys, ns);
    const controllerCpu = new CpuAccount({ controller: controller.pids });
    const cpuAtStart = controllerCpu.sample()['controller'] ?? 0;
    const account = new CpuAccount({ controller: controller.pids, ...bench.processes });
    await waitUntil(
      sys.frontEnd === 'native'
        ? 'the members to be Ready'
        : 'the members to be Ready and the namespace propagated',
      () => ready(bench, ns, sys.frontEnd),
      timeoutMs,
    );
    log(`ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const probe = { tracker: cmTracker, ns, n: 0, frontEnd: sys.frontEnd };
    const updateIdle = await updateLatency(bench, probe);
    log(
      `update latency at idle: p50 ${updateIdle.p50Ms.toFixed(0)} ms, p99 ${updateIdle.p99Ms.toFixed(0)} ms`,
    );

    const cold: SystemResult['cold'] = {};
    const metricsUrl = controller.metricsUrl;
    for (const [i, kind] of kinds.entries())
      cold[kind.id] = await coldRounds(bench, Boolean(opts.warmUp) && i === 0, {
        kind,
        reconciles: async () => {
          const counter = reconcileCounter(sys, kind);
          if (counter === undefined) return undefined;
          // Before the first object of its kind the counter has no series yet: 0.
          return metric(metricsUrl, 'controller_runtime_reconcile_total', { controller: counter }, 0);
        },
        tracker: trackers.get(kind.id) as MemberTracker,
        ns,
        account,
        frontEnd: sys.frontEnd,
        log,
      });

    const updateLoaded = await updateLatency(bench, probe);
    log(
      `update latency with N federated: p50 ${updateLoaded.p50Ms.toFixed(0)} ms, p99 ${updateLoaded.p99Ms.toFixed(0)} ms`,
    );

    await settle(host, sys.frontEnd, log, Math.min(timeoutMs, 180_000), {
      intervalMs: opts.settleIntervalMs,
    });
    const idle = await idleWindows(bench, controller, sys.frontEnd, log);
    const result: SystemResult = {
      system: sys.id,
      label: sys.label,
      frontEnd: sys.frontEnd,
      cold,
      updateIdle,
      updateLoaded,
      memberWrites: idle.afterBursts.memberWrites,
      hostWrites: idle.afterBursts.hostWrites,
      idleSeconds: opts.idleSeconds,
      cpuSeconds: idle.afterBursts.cpuSeconds,
      steady: idle.steady,
      rssBytes: idle.end.rssBytes,
      heapBytes: idle.heapBytes,
      totalCpuSeconds: idle.cpuAtEnd - cpuAtStart,
    };
    const counted = (w: IdleCounts) =>
      `${w.memberWrites} member writes, ${w.hostWrites} host writes, ${w.cpuSeconds.toFixed(2)} CPU s`;
    log(
      `idle right after the bursts: ${counted(idle.afterBursts)}; steady state: ${counted(idle.steady)}; ` +
        `RSS ${(idle.end.rssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
    return result;
  } finally {
    log('stopping the controller manager and cleaning up');
    await controller?.stop();
    // Before cleanup: its deletes and finalizer patches would meet a webhook that no longer runs.
    await deleteWebhookConfigurations(host).catch((e) =>
      log(`deleting the webhook configurations failed: ${errorMessage(e)}`),
    );
    await Promise.all([...trackers.values()].map((t) => t.stop()));
    await cleanup(host, members, ns, kinds, sys.frontEnd, timeoutMs).catch((e) =>
      log(`cleanup failed: ${errorMessage(e)}`),
    );
  }
}

/**
 * The control plane as the system's users install it, plus the same KubeFedConfig, members and namespace;
 * then (applyUserObjects) the namespace federated with a FederatedNamespace, or for the native front end the one
 * PropagationPolicy (its namespace then goes to the members with its first binding, by the policy source's
 * namespace controller).
 */
export async function prepareHost(bench: Bench, sys: SystemUnderTest, ns: string): Promise<void> {
  const { opts, host } = bench;
  await resetControlPlane(host, bench.timeoutMs);
  await sys.install(host, bench.fed.host.api.restConfig);
  const spec = defaultKubeFedConfigSpec({ scope: 'Cluster' });
  spec.syncController.maxConcurrentReconciles = opts.syncWorkers ?? sys.defaultSyncWorkers;
  if (opts.leaderElect) spec.leaderElect = { ...spec.leaderElect, ...opts.leaderElect };
  await host.create(KubeFedConfigType, {
    apiVersion: API_VERSION,
    kind: KUBEFED_CONFIG_KIND,
    metadata: { name: 'kubefed', namespace: KUBEFED_NAMESPACE },
    spec,
  } as KubeObject);
  await registerMembers(
    bench.fed,
    host,
    bench.members.map((m) => m.name),
  );
  await createNamespace(host, ns);
}

/**
 * What the user applies once the control plane runs (and its admission webhook: a PropagationPolicy stored
 * without the webhook's permanent-id label is refused on every later update): the policy, or the
 * FederatedNamespace.
 */
export async function applyUserObjects(bench: Bench, sys: SystemUnderTest, ns: string): Promise<void> {
  const { host } = bench;
  const clusters = bench.members.map(({ name }) => name);
  if (sys.frontEnd === 'native') {
    const kinds = bench.kinds.some((k) => k.id === 'configmaps')
      ? bench.kinds
      : [KINDS.configmaps, ...bench.kinds];
    await host.create(PolicyTypes.PropagationPolicy, propagationPolicy(ns, kinds, clusters));
    return;
  }
  await host.create(FEDERATED_NAMESPACES, {
    apiVersion: FED_API,
    kind: FEDERATED_NAMESPACES.kind,
    metadata: { name: ns, namespace: ns },
    spec: { placement: { clusters: bench.members.map(({ name }) => ({ name })) } },
  } as KubeObject);
}

/** Every member Ready in the host, and (federated) the benchmark's namespace propagated to every member. */
export async function ready(bench: Bench, ns: string, frontEnd: FrontEnd): Promise<boolean> {
  const list = await bench.host.list<
    KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
  >(KubeFedClusterType, { namespace: KUBEFED_NAMESPACE });
  const readyClusters = list.items.filter((c) =>
    c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'),
  ).length;
  if (readyClusters < bench.members.length) return false;
  if (frontEnd === 'native') return true;
  for (const m of bench.members) {
    const n = await m.client.get(CoreTypes.namespaces, ns).catch(() => undefined);
    if (n?.metadata.labels?.[MANAGED_LABEL] !== 'true') return false;
  }
  return true;
}

/** One system's cold burst of one kind. */
interface ColdPhase {
  kind: BenchKind;
  tracker: MemberTracker;
  ns: string;
  account: CpuAccount;
  frontEnd: FrontEnd;
  /** The controller's reconcile counter for this kind, if it has one. */
  reconciles(): Promise<number | undefined>;
  log(m: string): void;
}

/** The burst's own objects (`cm-00042`), not the latency probe. */
function burstNames(kind: BenchKind): (name: string) => boolean {
  const prefix = `${objectName(kind, 0).split('-')[0] as string}-`;
  return (n) => n.startsWith(prefix);
}

/**
 * `--rounds` cold bursts of one kind, the objects deleted and every copy gone between them, and the round with
 * the median CPU per member object reported whole, with every round's CPU and rate beside it: one burst's CPU
 * varied by a quarter between runs of one afternoon, as single fair-ceiling rounds did.
 */
async function coldRounds(bench: Bench, warmUp: boolean, phase: ColdPhase): Promise<Throughput> {
  const n = Math.max(1, bench.opts.rounds ?? 1);
  let warmUpCpuMs: number | undefined;
  if (warmUp) {
    phase.log(`${phase.kind.id}: a warm-up burst, not counted`);
    warmUpCpuMs = (await coldPropagation(bench, phase)).cpuMsPerMemberObject;
    await removeBurst(bench, phase);
  }
  const rounds: Throughput[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) await removeBurst(bench, phase);
    rounds.push(await coldPropagation(bench, phase));
  }
  const reported = medianRound(rounds);
  return warmUpCpuMs === undefined ? reported : { ...reported, warmUpCpuMs };
}

/**
 * Deletes one burst's host objects as a user would and waits until the system has removed every copy from the
 * members and its own host objects are gone; then until the host settled. The latency probe stays. The
 * benchmark's host runs no garbage collector, so what it would delete with their owners is deleted here, by
 * name: the native front end's bindings (their finalizer still makes the binding controller remove the copies)
 * and KubeFed's PropagatedVersions.
 */
async function removeBurst(bench: Bench, phase: ColdPhase): Promise<void> {
  const { opts, host, timeoutMs } = bench;
  const { kind, tracker, ns, frontEnd, log } = phase;
  const names = Array.from({ length: opts.objects }, (_, i) => objectName(kind, i));
  const ours = burstNames(kind);
  // A template's binding is `<name>-<kind>` (bindingName), so the burst's bindings share its prefix too.
  const hostTypes = frontEnd === 'native' ? [kind.target, BindingTypes.ResourceBinding] : [kind.fedType];
  const nameIn = (t: ResourceType, name: string) =>
    t === BindingTypes.ResourceBinding ? bindingName(kind.target.kind ?? '', name) : name;
  for (const t of hostTypes)
    await pool(names, 32, (name) => ignoreNotFound(host.delete(t, nameIn(t, name), { namespace: ns })));
  await tracker.until(`${kind.id} gone from the members`, () => tracker.count(ours) === 0, timeoutMs);
  for (const t of hostTypes)
    await waitUntil(
      `the burst's ${t.plural} gone from the host`,
      async () => !(await host.listAll(t, { namespace: ns })).items.some((o) => ours(o.metadata.name ?? '')),
      timeoutMs,
    );
  // KubeFed's PropagatedVersions, owned by their federated objects, go once they are gone,
  // as the garbage collector would take them: with them left behind, KubeFed's next rounds ran at a third of its
  // rate. kubefed-ts records versions in status by default (404s here).
  if (frontEnd !== 'native')
    await pool(names, 32, (name) =>
      ignoreNotFound(
        host.delete(PropagatedVersionType, propagatedVersionName(kind.target.kind ?? '', name), {
          namespace: ns,
        }),
      ),
    );
  log(`${kind.id}: the burst's objects deleted, every copy gone`);
  await settle(host, frontEnd, log, Math.min(timeoutMs, 180_000), {
    intervalMs: opts.settleIntervalMs,
    everything: true,
  });
}

/**
 * N objects of one kind created in one burst (32 in flight) — Federated<Kind>s, or plain objects the policy
 * selects — timed until every member has them all; then the host writes they cost, once the host settled.
 */
async function coldPropagation(bench: Bench, phase: ColdPhase): Promise<Throughput> {
  const { opts, host } = bench;
  const { kind, tracker, ns, account, frontEnd, log } = phase;
  const clusterNames = bench.members.map((m) => m.name);
  const expected = opts.objects * bench.members.length;
  const ours = burstNames(kind);
  // The start-up tail (FederatedTypeConfig status, the probe's status) is not this burst's.
  await settle(host, frontEnd, log, Math.min(bench.timeoutMs, 180_000), {
    intervalMs: bench.opts.settleIntervalMs,
    everything: true,
  });
  const writesBefore = await scrapeWritesByVerb(host);
  const memberWritesBefore = await scrapeMembers(bench.members);
  const eventsBefore = await eventCounts(host, ns);
  const reconcilesBefore = await phase.reconciles();
  const clock = new LastWriteClock(host, burstHostTypes(kind, frontEnd), ns);
  const trail = new CpuTrail(account);
  await clock.start();
  // However the burst ends (a timeout too), the clock's watches and the trail's timer stop with it.
  const stopWatching = async () => {
    trail.stop();
    await clock.stop();
  };
  const start = performance.now();
  const before = account.sample();
  try {
    await pool(
      Array.from({ length: opts.objects }, (_, i) => i),
      32,
      async (i) => {
        const name = objectName(kind, i);
        if (frontEnd === 'native') await host.create(kind.target, plainObject(kind, ns, name, i));
        else await host.create(kind.fedType, federatedObject(kind, ns, name, i, clusterNames));
      },
    );
    log(
      `${kind.id}: ${opts.objects} ${frontEnd === 'native' ? 'plain' : 'federated'} objects created in ${((performance.now() - start) / 1000).toFixed(1)} s`,
    );
    let lastLog = performance.now();
    await tracker.until(
      `${expected} ${kind.id} in the members`,
      () => {
        const n = tracker.count(ours);
        if (performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(`${kind.id}: ${n}/${expected} in the members`);
        }
        return n >= expected;
      },
      bench.timeoutMs,
    );
  } catch (e) {
    await stopWatching();
    throw e;
  }
  const arrivedAt = performance.now();
  const seconds = (arrivedAt - start) / 1000;
  const after = account.sample();
  trail.start();
  const cpu = cpuBetween(before, after);
  const arrived = tracker.count(ours);
  log(
    `${kind.id}: ${arrived}/${expected} propagated in ${seconds.toFixed(2)} s (${(expected / seconds).toFixed(0)}/s)`,
  );
  const settled = await settle(host, frontEnd, log, Math.min(bench.timeoutMs, 180_000), {
    intervalMs: bench.opts.settleIntervalMs,
    account,
  }).finally(stopWatching);
  const endCpu = burstEnd({
    arrival: { at: arrivedAt, cpu: after },
    lastWriteAt: clock.lastAt,
    trail: trail.samples,
    lastBusy: settled.lastBusy,
  });
  const cpuUntilLastWrite = cpuBetween(before, endCpu);
  const lastWriteSeconds = clock.lastAt === undefined ? undefined : (clock.lastAt - start) / 1000;
  const hostWrites = countsBetween(
    writesBefore,
    await scrapeWritesByVerb(host),
    (k) => !periodicHostWrite(frontEnd)(k),
  );
  const memberWrites = memberWritesBetween(memberWritesBefore, await scrapeMembers(bench.members));
  const hostWritesPerObject = total(hostWrites) / opts.objects;
  const hostEvents = countsBetween(eventsBefore, await eventCounts(host, ns), () => true);
  const reconcilesAfter = await phase.reconciles();
  const result: Throughput = {
    seconds,
    objectsPerSecond: expected / seconds,
    arrived,
    expected,
    cpu,
    hostWrites,
    hostWritesPerObject,
    memberWrites,
    memberWritesPerObject: total(memberWrites) / opts.objects,
    memberWritesPerMemberObject: total(memberWrites) / expected,
    reconcilesPerObject:
      reconcilesBefore === undefined || reconcilesAfter === undefined
        ? undefined
        : (reconcilesAfter - reconcilesBefore) / opts.objects,
    cpuUntilLastWrite,
    lastWriteSeconds,
    cpuMsPerMemberObject: cpuMsPerMemberObject(cpuUntilLastWrite, expected),
    cpuMsToBusyScrape: cpuMsPerMemberObject(cpuBetween(before, settled.lastBusy ?? after), expected),
    hostEvents,
  };
  log(
    `${kind.id}: ${hostWritesPerObject.toFixed(2)} host writes per object, ` +
      `${result.memberWritesPerMemberObject?.toFixed(2)} member writes per member object, ` +
      `${result.cpuMsPerMemberObject?.toFixed(2)} CPU ms per member object`,
  );
  return result;
}

/**
 * The host types a front end writes for a burst in its namespace, watched for its last write: the objects and
 * their status, Events, and KubeFed's PropagatedVersions; for the native front end the claimed templates, their
 * ResourceBindings and the policy's status.
 */
function burstHostTypes(kind: BenchKind, frontEnd: FrontEnd): ResourceType[] {
  return frontEnd === 'native'
    ? [kind.target, BindingTypes.ResourceBinding, PolicyTypes.PropagationPolicy, CoreTypes.events]
    : [kind.fedType, PropagatedVersionType, CoreTypes.events];
}

/** Event occurrences in a host namespace per involved kind and reason (a repeated Event counts each time). */
async function eventCounts(host: KubeClient, ns: string): Promise<Map<string, number>> {
  const list = await host.listAll<
    KubeObject & { involvedObject?: { kind?: string }; reason?: string; count?: number }
  >(CoreTypes.events, { namespace: ns });
  const out = new Map<string, number>();
  for (const e of list.items) {
    const key = `${e.involvedObject?.kind ?? ''} ${e.reason ?? ''}`;
    out.set(key, (out.get(key) ?? 0) + (e.count ?? 1));
  }
  return out;
}

/** The counters an idle window is the difference of: every member's and the host's writes, the controller's CPU. */
interface IdleReading {
  members: Array<Map<string, number>>;
  host: Map<string, number>;
  cpu: number;
}

/**
 * The two idle windows of IdleCounts, back to back: writes counted by the apiservers themselves, the controller
 * group's CPU; then the controller-manager's RSS and heap at the end of the second. The windows meet at one
 * reading, so nothing falls between them, and the controller's /metrics is read only after the last CPU sample.
 */
async function idleWindows(
  bench: Bench,
  controller: RunningController,
  frontEnd: FrontEnd,
  log: (m: string) => void,
): Promise<{
  afterBursts: IdleCounts;
  steady: IdleCounts;
  /** The controller group's CPU reading at the end. */
  cpuAtEnd: number;
  /** The controller-manager's own. */
  end: ProcSample;
  heapBytes?: number;
}> {
  const { host, members, opts } = bench;
  const group = new CpuAccount({ controller: controller.pids });
  const cpu = () => group.sample()['controller'] ?? 0;
  const writes = async () => ({
    members: await Promise.all(members.map((m) => scrapeWrites(m.client))),
    host: await scrapeWrites(host),
  });
  const between = (before: IdleReading, after: IdleReading): IdleCounts => ({
    memberWrites: after.members.reduce(
      (sum, counts, i) =>
        sum + writesBetween(before.members[i] as Map<string, number>, counts, (r) => MEMBER_RESOURCES.has(r)),
      0,
    ),
    hostWrites: writesBetween(before.host, after.host, HOST_RESOURCES[frontEnd]),
    cpuSeconds: after.cpu - before.cpu,
  });
  const windowMs = opts.idleSeconds * 1000;
  // Writes before CPU at the start, CPU before writes afterwards: the writes' windows hold the CPU's.
  const start: IdleReading = { ...(await writes()), cpu: cpu() };
  const t0 = performance.now();
  log(`idle for ${opts.idleSeconds} s right after the bursts, then ${opts.idleSeconds} s of steady state`);
  await sleep(windowMs);
  const boundaryCpu = cpu();
  const boundary: IdleReading = { ...(await writes()), cpu: boundaryCpu };
  // Timed from the start, so that the boundary's scrapes do not lengthen the steady window's CPU.
  await sleep(Math.max(0, t0 + 2 * windowMs - performance.now()));
  const end = procSample(controller.pid);
  const cpuAtEnd = cpu();
  const heapBytes = await scrapeGauge(controller.metricsUrl, controller.heapMetric);
  const last: IdleReading = { ...(await writes()), cpu: cpuAtEnd };
  return {
    afterBursts: between(start, boundary),
    steady: between(boundary, last),
    cpuAtEnd,
    end,
    heapBytes,
  };
}

/** One unlabelled gauge from a Prometheus text endpoint; undefined when it cannot be read. */
export async function scrapeGauge(url: string, name: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(url, { signal: AbortSignal.timeout(5000) })).text();
    return value(parsePrometheusText(text), name);
  } catch {
    return undefined;
  }
}

export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

function cpuBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)]));
}

/**
 * Waits until the host sees no writes to the front end's objects, nor events, for two scrapes in a row (status
 * catching up). With an account: its sample at the last scrape that still saw writes (none: it was quiet at once).
 */
export async function settle(
  host: KubeClient,
  frontEnd: FrontEnd,
  log: (m: string) => void,
  timeoutMs: number,
  opts: { intervalMs?: number | undefined; account?: CpuAccount; everything?: boolean } = {},
): Promise<{ lastBusy?: Record<string, number> }> {
  // everything: any host write but the periodic ones (leases, cluster health, KubeFed's ConfigMap lock), not only
  // the front end's.
  const ours = opts.everything
    ? (r: string) => !periodicHostWrite(frontEnd)(`PUT ${r}`)
    : (r: string) => HOST_RESOURCES[frontEnd](r) || EVENTS(r);
  const deadline = Date.now() + timeoutMs;
  let prev = await scrapeWrites(host);
  let quiet = 0;
  let lastBusy: Record<string, number> | undefined;
  while (quiet < 2 && Date.now() < deadline) {
    await sleep(opts.intervalMs ?? 5000);
    const sample = opts.account?.sample();
    const next = await scrapeWrites(host);
    if (writesBetween(prev, next, ours) === 0) quiet++;
    else {
      quiet = 0;
      lastBusy = sample;
    }
    prev = next;
  }
  if (quiet < 2) log('host writes did not settle; measuring the idle window anyway');
  return lastBusy ? { lastBusy } : {};
}

/**
 * Template change → visible in every member, for one ConfigMap named `probe`: a FederatedConfigMap, or for the
 * native front end a plain ConfigMap the policy selects (created on the first call; probe.n is the generation
 * it carries, kept across calls).
 */
export async function updateLatency(
  bench: Bench,
  probe: { tracker: MemberTracker; ns: string; n: number; frontEnd: FrontEnd },
): Promise<Latency> {
  const { opts, host, timeoutMs } = bench;
  const { tracker, ns } = probe;
  const clusters = bench.members.map((m) => m.name);
  const kind = KINDS.configmaps;
  const isProbe = (n: string) => n === 'probe';
  const native = probe.frontEnd === 'native';
  if (probe.n === 0) {
    if (native) await host.create(kind.target, plainObject(kind, ns, 'probe', -1));
    else await host.create(kind.fedType, federatedObject(kind, ns, 'probe', -1, clusters, 0));
    await tracker.until(
      'the probe in every member',
      () => tracker.count(isProbe, 0) >= clusters.length,
      timeoutMs,
    );
  }
  const samples: number[] = [];
  for (let s = 0; s < opts.updateSamples; s++) {
    const gen = ++probe.n;
    const t0 = performance.now();
    if (native) await host.patch(kind.target, 'probe', kind.template(-1, gen), { namespace: ns });
    else
      await host.patch(
        kind.fedType,
        'probe',
        { spec: { template: kind.template(-1, gen) } },
        { namespace: ns },
      );
    await tracker.until(
      `probe generation ${gen} in every member`,
      () => tracker.count(isProbe, gen) >= clusters.length,
      timeoutMs,
    );
    samples.push(performance.now() - t0);
    await sleep(50);
  }
  return { p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99), samples: samples.length };
}

/**
 * Deletes a phase's host objects (federated objects; or policy, bindings and templates) with finalizers
 * stripped, as no controller runs now, and the member copies.
 */
export async function cleanup(
  host: KubeClient,
  members: Array<{ name: string; client: KubeClient }>,
  ns: string,
  kinds: BenchKind[],
  frontEnd: FrontEnd,
  timeoutMs: number,
): Promise<void> {
  const allKinds = [...new Set([KINDS.configmaps, ...kinds])];
  const hostTypes =
    frontEnd === 'native'
      ? [PolicyTypes.PropagationPolicy, BindingTypes.ResourceBinding, ...allKinds.map((k) => k.target)]
      : [...allKinds.map((k) => k.fedType), FEDERATED_NAMESPACES];
  for (const t of hostTypes) await deleteAll(host, t, ns, timeoutMs);
  try {
    await deleteCollection(host, PropagatedVersionType, ns);
  } catch {
    // KubeFed's CRDs may not include it in this API version; nothing to delete then.
  }
  for (const m of members) {
    for (const k of allKinds) {
      await deleteCollection(m.client, k.target, ns, { labelSelector: `${MANAGED_LABEL}=true` });
    }
  }
}
