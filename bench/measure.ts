// Neutral measurements: what the kernel says about a process, what an apiserver says about the requests
// it served, and what a watch on the members sees. None of it asks the controller under test.
import { readdirSync, readFileSync } from 'node:fs';
import type { KubeClient, KubeObject, ResourceType } from '../src/kube/client/index.ts';
import { Informer } from '../src/runtime/informer/index.ts';
import { parsePrometheusText, samples, value } from '../src/testing/prometheus.ts';
import type { SystemUnderTest } from './systems.ts';
import type { BenchKind } from './workload.ts';

/** Linux USER_HZ; sysconf(_SC_CLK_TCK) is 100 on every Linux Node runs on. */
const CLOCK_TICKS = 100;

export interface ProcSample {
  cpuSeconds: number;
  rssBytes: number;
}

/** utime+stime and VmRSS of one process, from /proc. */
export function procSample(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may contain spaces and parentheses: fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { cpuSeconds: (utime + stime) / CLOCK_TICKS, rssBytes: rssKb * 1024 };
}

/** Pids of the processes whose argv contains `arg` exactly (the harness starts each with a unique one). */
export function pidsWithArg(arg: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(arg)) out.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** CPU seconds of groups of processes, read together. */
export class CpuAccount {
  readonly #groups: Record<string, number[]>;

  constructor(groups: Record<string, number[]>) {
    this.#groups = groups;
  }

  sample(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, pids] of Object.entries(this.#groups)) {
      out[name] = pids.reduce((sum, pid) => {
        try {
          return sum + procSample(pid).cpuSeconds;
        } catch {
          return sum;
        }
      }, 0);
    }
    return out;
  }

  /** CPU seconds each group used while fn ran. */
  async during<T>(fn: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
    const before = this.sample();
    const result = await fn();
    const after = this.sample();
    const cpu: Record<string, number> = {};
    for (const k of Object.keys(after)) cpu[k] = (after[k] ?? 0) - (before[k] ?? 0);
    return { result, cpu };
  }
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY', 'DELETECOLLECTION']);

/** Parses `apiserver_request_total` lines into a sum of write requests per resource (group/resource). */
export function writeCounts(metricsText: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const { labels, value } of samples(parsePrometheusText(metricsText), 'apiserver_request_total')) {
    if (!WRITE_VERBS.has(labels['verb'] ?? '')) continue;
    const group = labels['group'] ?? '';
    const key = `${group ? `${group}/` : ''}${labels['resource'] ?? ''}`;
    out.set(key, (out.get(key) ?? 0) + value);
  }
  return out;
}

/**
 * Write requests of `apiserver_request_total` per verb and resource, subresource included, and the status code
 * when it is not a success: `PUT work.karmada.io/resourcebindings/status`, `POST events 409`. What says which
 * controller wrote (the metric has no user agent), and which writes were refused (conflicts, AlreadyExists).
 */
export function writeCountsByVerb(metricsText: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const { labels, value } of samples(parsePrometheusText(metricsText), 'apiserver_request_total')) {
    const verb = labels['verb'] ?? '';
    if (!WRITE_VERBS.has(verb)) continue;
    const group = labels['group'] ?? '';
    const sub = labels['subresource'] ?? '';
    const code = labels['code'] ?? '';
    const failed = code !== '' && !code.startsWith('2') ? ` ${code}` : '';
    const key = `${verb} ${group ? `${group}/` : ''}${labels['resource'] ?? ''}${sub ? `/${sub}` : ''}${failed}`;
    out.set(key, (out.get(key) ?? 0) + value);
  }
  return out;
}

async function scrapeMetrics(client: KubeClient): Promise<string> {
  const res = await client.requestRaw('GET', '/metrics');
  if (res.statusCode !== 200) throw new Error(`${client.name}: /metrics answered ${res.statusCode}`);
  return res.body;
}

export async function scrapeWrites(client: KubeClient): Promise<Map<string, number>> {
  return writeCounts(await scrapeMetrics(client));
}

export async function scrapeWritesByVerb(client: KubeClient): Promise<Map<string, number>> {
  return writeCountsByVerb(await scrapeMetrics(client));
}

/** The growth of each matching counter between two scrapes, the ones that did not grow left out. */
export function countsBetween(
  before: Map<string, number>,
  after: Map<string, number>,
  match: (key: string) => boolean,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (match(k) && d > 0) out[k] = d;
  }
  return out;
}

/** Writes counted between two scrapes, for the resources that match. */
export function writesBetween(
  before: Map<string, number>,
  after: Map<string, number>,
  match: (resource: string) => boolean,
): number {
  let n = 0;
  for (const [k, v] of after) if (match(k)) n += v - (before.get(k) ?? 0);
  return n;
}

/** The q-quantile (0..1) of samples, nearest-rank. */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/**
 * Watches one type in one namespace of every member and knows, per member and object, which content
 * generation it holds. Waiters resolve as soon as the watch shows what they wait for.
 */
export class MemberTracker {
  readonly #informers: Array<{ cluster: string; informer: Informer }> = [];
  readonly #gen: (o: KubeObject) => number | undefined;
  /** cluster -> name -> generation */
  readonly #seen = new Map<string, Map<string, number>>();
  #waiters: Array<() => void> = [];

  constructor(
    members: Array<{ name: string; client: KubeClient }>,
    type: ResourceType,
    namespace: string,
    generationOf: (o: KubeObject) => number | undefined,
  ) {
    this.#gen = generationOf;
    for (const m of members) {
      const informer = new Informer({ client: m.client, type, namespace, inactivityMs: 300_000 });
      const seen = new Map<string, number>();
      this.#seen.set(m.name, seen);
      const on = (o: KubeObject) => {
        const g = this.#gen(o);
        if (g === undefined) seen.delete(o.metadata.name ?? '');
        else seen.set(o.metadata.name ?? '', g);
        this.#notify();
      };
      informer.addHandlers({
        onAdd: on,
        onUpdate: (_, o) => on(o),
        onDelete: (o) => {
          seen.delete(o.metadata.name ?? '');
          this.#notify();
        },
      });
      this.#informers.push({ cluster: m.name, informer });
    }
  }

  async start(): Promise<void> {
    for (const { informer } of this.#informers) informer.start();
    await Promise.all(this.#informers.map(({ informer }) => informer.waitForSync()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.map(({ informer }) => informer.stop()));
  }

  #notify(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Objects (over all members) whose names satisfy `names` and that hold generation >= gen. */
  count(names: (n: string) => boolean, gen = 0): number {
    let n = 0;
    for (const seen of this.#seen.values()) for (const [k, g] of seen) if (names(k) && g >= gen) n++;
    return n;
  }

  /** Resolves once `check` holds, re-evaluated on every watch event; rejects after timeoutMs. */
  async until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

/** Write counts of several apiservers (the members) added up per key. */
export function addCounts(counts: Array<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of counts) for (const [k, v] of Object.entries(c)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/**
 * Member writes that happen whatever the workload: each member's own leader-election leases (its kube-controller-
 * manager's, the apiserver's identity lease). Keys as writeCountsByVerb makes them.
 */
export const PERIODIC_MEMBER_WRITE = (key: string): boolean =>
  / coordination\.k8s\.io\/leases( \d+)?$/.test(key);

/**
 * What one member object cost the machine: the CPU milliseconds of every process that serves it — the
 * controller group (controller-manager and webhook), the host and member apiservers and etcd — divided by the
 * member objects (N × members). The benchmark's own client is left out: it is the user, and the ceiling's.
 */
export function cpuMsPerMemberObject(cpu: Record<string, number>, memberObjects: number): number | undefined {
  if (memberObjects <= 0) return undefined;
  const served = Object.entries(cpu)
    .filter(([group]) => group !== 'bench')
    .reduce((sum, [, seconds]) => sum + seconds, 0);
  return (served * 1000) / memberObjects;
}

/**
 * The reconcile counter (`controller_runtime_reconcile_total{controller}`) of the controller that looks at each
 * object of `kind`: the type's sync controller, or the native front end's binding controller. KubeFed has none.
 */
export function reconcileCounter(
  sys: Pick<SystemUnderTest, 'id' | 'frontEnd'>,
  kind: Pick<BenchKind, 'fedKind'>,
): string | undefined {
  if (sys.id === 'kubefed') return undefined;
  return sys.frontEnd === 'native' ? 'policy-binding' : kind.fedKind.toLowerCase();
}

export async function metric(
  url: string,
  name: string,
  labels: Record<string, string> = {},
  /** The value of a series not exported yet (a counter nothing has counted): undefined unless given. */
  absent?: number,
): Promise<number | undefined> {
  try {
    const text = await (await fetch(url, { signal: AbortSignal.timeout(5000) })).text();
    return value(parsePrometheusText(text), name, labels) ?? absent;
  } catch {
    return undefined;
  }
}
