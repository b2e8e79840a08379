// Where a system's burst ends, for its CPU: at its last write, as for the fair ceiling, whose window ends when
// its last create is answered. A system's status writes and events may trail the last member arrival, so the
// window runs on to the last of them; the settle scrapes that prove the host quiet (5 s apart) must not set
// the end, or every burst would carry up to 5 s of processes idling and collecting after their work, which
// the ceiling's window never holds.
import type { KubeClient, KubeObject, ResourceType } from '../src/kube/client/index.ts';
import { Informer } from '../src/runtime/informer/index.ts';
import type { CpuAccount } from './measure.ts';

/** One CPU sample of every group, taken at `at` (performance.now()). */
export interface TimedCpu {
  at: number;
  cpu: Record<string, number>;
}

/**
 * The first sample taken at or after `t`: the CPU of every group up to a moment when whatever happened at `t`
 * had happened. Undefined when every sample is older (the trail stopped before `t`). Samples in time order.
 */
export function sampleAtOrAfter(samples: readonly TimedCpu[], t: number): TimedCpu | undefined {
  return samples.find((s) => s.at >= t);
}

/**
 * The CPU at the end of a burst's window: at its last arrival, unless a host write of the burst came later (its
 * status tail), then at the first trail sample after that write; the settle's last busy scrape if the trail has
 * none.
 */
export function burstEnd(opts: {
  arrival: TimedCpu;
  lastWriteAt: number | undefined;
  trail: readonly TimedCpu[];
  lastBusy: Record<string, number> | undefined;
}): Record<string, number> {
  const { arrival, lastWriteAt, trail, lastBusy } = opts;
  if (lastWriteAt === undefined || lastWriteAt <= arrival.at) return arrival.cpu;
  return sampleAtOrAfter(trail, lastWriteAt)?.cpu ?? lastBusy ?? arrival.cpu;
}

/** CPU samples every `intervalMs` from start() until stop(): reading /proc, not asking any process. */
export class CpuTrail {
  readonly #account: CpuAccount;
  readonly #intervalMs: number;
  readonly samples: TimedCpu[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(account: CpuAccount, intervalMs = 100) {
    this.#account = account;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    this.#take();
    this.#timer = setInterval(() => this.#take(), this.#intervalMs);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #take(): void {
    this.samples.push({ at: performance.now(), cpu: this.#account.sample() });
  }
}

/**
 * When the last change to some host objects of one namespace was seen, by watches on their types: the burst's
 * status writes, events and bindings. What the initial list holds is not a change.
 */
export class LastWriteClock {
  readonly #informers: Informer[];
  #armed = false;
  #lastAt: number | undefined;

  constructor(host: KubeClient, types: readonly ResourceType[], namespace: string) {
    this.#informers = types.map((type) => {
      const informer = new Informer({ client: host, type, namespace, inactivityMs: 300_000 });
      const seen = () => {
        if (this.#armed) this.#lastAt = performance.now();
      };
      // A relist hands over unchanged objects as updates: only a new resourceVersion is a write.
      informer.addHandlers({
        onAdd: seen,
        onUpdate: (old: KubeObject, o: KubeObject) => {
          if (old.metadata.resourceVersion !== o.metadata.resourceVersion) seen();
        },
        onDelete: seen,
      });
      return informer;
    });
  }

  async start(): Promise<void> {
    for (const i of this.#informers) i.start();
    await Promise.all(this.#informers.map((i) => i.waitForSync()));
    this.#armed = true;
  }

  /** performance.now() of the last change seen since start(); undefined for none. */
  get lastAt(): number | undefined {
    return this.#lastAt;
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.map((i) => i.stop()));
  }
}
