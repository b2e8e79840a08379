// `kubefedctl plan`: explains how an RSP would spread replicas, without touching any cluster. The
// candidate clusters, current replicas and capacity come from a PlanSource: today the command-line
// flags (offlineSource); a live source reading the federation can supply the same three things.

import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { RSP_KIND } from '../api/scheduling/v1alpha1/index.ts';
import { errorMessage, type KubeObject } from '../kube/client/index.ts';
import { isPlainObject, setOwn } from '../propagation/json.ts';
import {
  explainPlan,
  type PlanExplanation,
  type PlannerInput,
  type PlanResult,
  plan,
} from '../scheduling/planner.ts';
import { preferencesOf, validateRsp } from '../scheduling/preferences.ts';
import { CommandError } from './errors.ts';

export type PlanOutput = 'json' | 'table';

/** What the planner needs to know about the federation, wherever it comes from. */
export interface PlanSource {
  /** Candidate clusters (KubeFed: the ready ones). */
  clusters: string[];
  /** Replicas running per cluster. */
  current: Record<string, number>;
  /** Estimated capacity per cluster (where pods are unschedulable). */
  capacity: Record<string, number>;
}

export interface PlanOptions {
  /** The RSP file, `-` for stdin. */
  filename: string;
  source: PlanSource;
  /** The tie-break key; undefined means the RSP's `namespace/name`. `''` is a valid key. */
  key?: string;
  output: PlanOutput;
  out: (text: string) => void;
  warn?: (line: string) => void;
  /** Reads the -f input; the default reads the file, or stdin for `-`. */
  readInput?: (filename: string) => string;
}

export function parsePlanOutput(value: string | undefined): PlanOutput {
  if (value === undefined || value === 'table') return 'table';
  if (value === 'json') return 'json';
  throw new CommandError(`invalid output format ${JSON.stringify(value)}: valid values are json, table`);
}

/**
 * Parses `--current`/`--capacity` values (`A=3,B=2`, the flag possibly repeated) into counts per
 * cluster. Every cluster must be one of `clusters`, at most once, with a non-negative integer.
 */
export function parseReplicaFlag(
  flag: string,
  values: readonly string[],
  clusters: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  const known = new Set(clusters);
  const entries = values.flatMap((v) => v.split(',')).map((s) => s.trim());
  for (const entry of entries) {
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    const cluster = eq < 0 ? '' : entry.slice(0, eq).trim();
    const count = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (cluster === '')
      throw new CommandError(`${flag}: invalid entry ${JSON.stringify(entry)}: want CLUSTER=N`);
    if (!/^\d+$/.test(count) || !Number.isSafeInteger(Number(count)))
      throw new CommandError(
        `${flag}: invalid count ${JSON.stringify(count)} for cluster ${JSON.stringify(cluster)}: want a non-negative integer`,
      );
    if (Object.hasOwn(out, cluster))
      throw new CommandError(`${flag}: cluster ${JSON.stringify(cluster)} is given more than once`);
    if (!known.has(cluster))
      throw new CommandError(`${flag}: cluster ${JSON.stringify(cluster)} is not in --clusters`);
    setOwn(out, cluster, Number(count));
  }
  return out;
}

/** The source the flags describe: `--clusters`, `--current`, `--capacity`. */
export function offlineSource(flags: {
  clusters?: readonly string[];
  current?: readonly string[];
  capacity?: readonly string[];
}): PlanSource {
  if (flags.clusters === undefined) throw new CommandError('--clusters is required');
  const clusters: string[] = [];
  for (const name of flags.clusters) {
    if (name === '*') throw new CommandError('--clusters: "*" is not a cluster name');
    if (clusters.includes(name))
      throw new CommandError(`--clusters: cluster ${JSON.stringify(name)} is given more than once`);
    clusters.push(name);
  }
  return {
    clusters,
    current: parseReplicaFlag('--current', flags.current ?? [], clusters),
    capacity: parseReplicaFlag('--capacity', flags.capacity ?? [], clusters),
  };
}

export function readInput(filename: string): string {
  return readFileSync(filename === '-' ? 0 : filename, 'utf8');
}

/** The single RSP of a YAML (or JSON) text. */
export function parseRspDocument(text: string, filename: string): KubeObject {
  const docs: unknown[] = [];
  for (const doc of parseAllDocuments(text)) {
    const [err] = doc.errors;
    if (err) throw new CommandError(`${filename}: ${err.message.split('\n')[0]}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) docs.push(value);
  }
  if (docs.length !== 1)
    throw new CommandError(`${filename}: expected one ${RSP_KIND}, found ${docs.length} documents`);
  const [rsp] = docs;
  if (!isPlainObject(rsp)) throw new CommandError(`${filename}: not an object`);
  if (rsp['kind'] !== undefined && rsp['kind'] !== RSP_KIND)
    throw new CommandError(`${filename}: kind ${JSON.stringify(rsp['kind'])} is not ${RSP_KIND}`);
  if (!isPlainObject(rsp['metadata'])) rsp['metadata'] = {};
  return rsp as KubeObject;
}

/**
 * The tie-break key the controller would use: the RSP's (= the federated object's) `namespace/name`.
 * Exactly `metadata.namespace + "/" + metadata.name`, with namespace `''` when the file has none.
 */
export function defaultPlanKey(rsp: KubeObject): string {
  return `${rsp.metadata.namespace ?? ''}/${rsp.metadata.name ?? ''}`;
}

/** Checks the RSP and builds the planner input; invalid specs are one CommandError. */
export function plannerInputFor(rsp: KubeObject, source: PlanSource, key: string): PlannerInput {
  const spec = rsp['spec'];
  const errors = validateRsp(spec);
  if (errors.length > 0) {
    const what = rsp.metadata.name ? `${RSP_KIND} ${JSON.stringify(rsp.metadata.name)}` : RSP_KIND;
    throw new CommandError(
      `${what} is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`,
    );
  }
  const s = spec as { totalReplicas: number; rebalance?: boolean; clusters?: unknown };
  return {
    preferences: preferencesOf(s),
    totalReplicas: s.totalReplicas,
    rebalance: s.rebalance === true,
    clusters: source.clusters,
    current: source.current,
    capacity: source.capacity,
    key,
  };
}

/** `-o json`: one object, every candidate cluster in `plan`. */
export function renderPlanJson(result: PlanResult): string {
  return `${JSON.stringify({ plan: result.plan, overflow: result.overflow }, null, 2)}\n`;
}

const HEADERS = ['CLUSTER', 'WEIGHT', 'MIN', 'MAX', 'CURRENT', 'CAPACITY', 'PLANNED', 'OVERFLOW', 'REASON'];

/** The table form: one row per candidate cluster, then a total row. */
export function renderPlanTable(rows: readonly PlanExplanation[], totalReplicas: number): string {
  const opt = (v: number | undefined) => (v === undefined ? '-' : String(v));
  const table = rows.map((r) => [
    r.cluster,
    String(r.weight),
    String(r.min),
    opt(r.max),
    opt(r.current),
    opt(r.capacity),
    String(r.planned),
    String(r.overflow),
    r.reason,
  ]);
  const planned = rows.reduce((sum, r) => sum + r.planned, 0);
  const overflow = rows.reduce((sum, r) => sum + r.overflow, 0);
  let summary = `${planned} of ${totalReplicas} replicas planned`;
  if (planned < totalReplicas) summary += `, ${totalReplicas - planned} not placed`;
  if (overflow > 0) summary += `; overrides sum to ${planned + overflow} (planned + overflow)`;
  table.push(['TOTAL', '', '', '', '', '', String(planned), String(overflow), summary]);

  const all = [HEADERS, ...table];
  const widths = HEADERS.map((_, col) => Math.max(...all.map((row) => row[col]!.length)));
  return all
    .map(
      (row) =>
        `${row
          .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]! + 2)))
          .join('')
          .trimEnd()}\n`,
    )
    .join('');
}

/** Runs `kubefedctl plan`: reads the RSP, plans, prints. Returns the plan for callers and tests. */
export function runPlan(opts: PlanOptions): PlanResult {
  let text: string;
  try {
    text = (opts.readInput ?? readInput)(opts.filename);
  } catch (e) {
    throw new CommandError(`Failed to read file "${opts.filename}": ${errorMessage(e)}`);
  }
  const rsp = parseRspDocument(text, opts.filename);
  let key = opts.key;
  if (key === undefined) {
    if (!rsp.metadata.name) throw new CommandError(`${opts.filename}: metadata.name is missing; pass --key`);
    key = defaultPlanKey(rsp);
    if (!rsp.metadata.namespace)
      opts.warn?.(
        `the RSP has no metadata.namespace, so the tie-break key is ${JSON.stringify(key)}; ` +
          'pass --key NAMESPACE/NAME to match the controller',
      );
  }
  const input = plannerInputFor(rsp, opts.source, key);
  const result = plan(input);
  opts.out(
    opts.output === 'json'
      ? renderPlanJson(result)
      : renderPlanTable(explainPlan(input), input.totalReplicas),
  );
  return result;
}
