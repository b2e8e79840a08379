// What `npm run bench -- --scale` measures and reports (bench/scale.ts runs it, bench/scale-table.ts renders it).
import type { Latency, MachineFacts } from './benchmark.ts';
import type { FrontEnd, SystemId } from './systems.ts';
import type { BenchKind } from './workload.ts';

/** KubeFedConfig spec.leaderElect durations (Go duration strings, `4s`); unset ones keep the defaults. */
export interface LeaderElectDurations {
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
}

export interface ScaleOptions {
  /** Member counts, each a phase of its own (ascending): the first m members of the federation registered. */
  members: number[];
  /** Cumulative object counts: each step creates objects up to this N (1000, 5000, 10000 = +1k, +4k, +5k). */
  objects: number[];
  kind: BenchKind['id'];
  systems: SystemId[];
  /** The git revision of the `baseline` system: kubefed-ts at that commit, in a temporary worktree. */
  baseline?: string;
  /** After the last step of the largest phase: kill -9 the controller and start it again. */
  restart: boolean;
  /** After that: a second replica as standby, kill -9 the leader. */
  failover: boolean;
  updateSamples: number;
  syncWorkers?: number;
  leaderElect?: LeaderElectDurations;
  /** Time between the scrapes that decide the host settled (two quiet ones in a row). */
  settleIntervalMs?: number;
  /** The window of the idle check after a restart: two quiet windows in a row are idle. */
  quietWindowMs?: number;
  timeoutSeconds: number;
  dir?: string;
  keep?: boolean;
  log(msg: string): void;
}

/** One step of one phase: the objects it added, and the state after everything settled. */
export interface ScaleStep {
  system: SystemId;
  label: string;
  frontEnd: FrontEnd;
  members: number;
  /** Objects in the host after this step (cumulative). */
  objects: number;
  /** Objects this step created. */
  added: number;
  /** From the first create of the step until every member holds every object of it. */
  seconds: number;
  /** Member objects (added × members) per second. */
  objectsPerSecond: number;
  /** CPU seconds per group from the first create until settled (controller, apiservers, etcd). */
  cpu: Record<string, number>;
  /** (controller + host + members + etcd CPU) ÷ (added × members), in ms. */
  cpuMsPerMemberObject: number;
  /** Host writes by verb and resource over the step, periodic ones (leases, cluster health) left out. */
  hostWrites: Record<string, number>;
  hostWritesPerObject: number;
  /** Member writes by verb and resource over the step, summed over the members, leases left out. */
  memberWrites: Record<string, number>;
  memberWritesPerMemberObject: number;
  /** Template change → every member, after the step settled. */
  update: Latency;
  rssBytes: number;
  /** V8 heap in use when scraped (`nodejs_heap_size_used_bytes`), garbage included; Go heap for KubeFed. */
  heapBytes?: number;
  /** V8 heap still in use after a full collection (`bench/heap-probe.ts`): what the controller keeps. */
  liveHeapBytes?: number;
}

/** After a kill -9: how long until the controller (or the standby) was back at work, and what it wrote. */
export interface RecoveryResult {
  kind: 'restart' | 'failover';
  system: SystemId;
  label: string;
  members: number;
  objects: number;
  /** Failover: kill → the Lease names another holder. */
  leaseChangedSeconds?: number;
  /** Kill → the controller that now leads answers /readyz (or leads, for a system without readyUrl). */
  readySeconds: number;
  /** Kill → the first of two consecutive quiet windows; undefined when it never got quiet before the timeout. */
  idleSeconds?: number;
  /** Host writes by verb from before the kill until idle, periodic ones left out. */
  hostWrites: Record<string, number>;
  /** Member writes by verb, summed over the members, leases left out. */
  memberWrites: Record<string, number>;
}

export interface ScaleReport {
  options: Omit<ScaleOptions, 'log'>;
  machine: MachineFacts;
  steps: ScaleStep[];
  recoveries: RecoveryResult[];
  wallSeconds: number;
}
