// `npm run bench -- --scale ...`: the scale mode's flags (run.ts declares them) to ScaleOptions, then the run,
// the JSON, the PNG and the markdown table.
import { writeFileSync } from 'node:fs';
import { BenchUsageError, parseCount, parseKinds, parseList, resolveSystems } from './args.ts';
import { encodePng, renderChart } from './plot.ts';
import { runScale } from './scale.ts';
import { renderScaleReport, scalePanels } from './scale-table.ts';
import type { ScaleOptions } from './scale-types.ts';

export interface ScaleFlags {
  scaleMembers: string;
  scaleObjects: string;
  /** --types as given, or undefined when left at its default. */
  types?: string;
  /** --systems as given, or undefined. */
  systems?: string;
  /** --baseline <git-rev>: kubefed-ts at that commit, measured right after this tree's. */
  baseline?: string;
  restart?: boolean;
  failover?: boolean;
  updateSamples: number;
  syncWorkers?: number;
  timeout: number;
  dir?: string;
}

export const SCALE_DEFAULTS = { members: '3,10', objects: '1000,5000,10000' } as const;

/** A positive, strictly ascending list of counts: `3,10`, `1000,5000,10000`. */
function ascending(flag: string, v: string): number[] {
  const out = parseList(v).map(parseCount);
  if (out.length === 0 || out.some((n) => n === 0))
    throw new BenchUsageError(`${flag}: positive counts, e.g. 3,10`);
  if (out.some((n, i) => i > 0 && n <= (out[i - 1] ?? 0)))
    throw new BenchUsageError(`${flag}: ascending, e.g. 3,10`);
  return out;
}

/**
 * The scale mode's options: one type (configmaps by default), kubefed-ts and its native front end by default,
 * with `--baseline` kubefed-ts at that commit between them.
 */
export function scaleOptionsFrom(f: ScaleFlags, log: (m: string) => void): ScaleOptions {
  const kinds = parseKinds(f.types ?? 'configmaps');
  if (kinds.length !== 1)
    throw new BenchUsageError('--scale measures one type at a time (--types configmaps)');
  const defaults =
    f.baseline === undefined ? 'kubefed-ts,kubefed-ts-native' : 'kubefed-ts,baseline,kubefed-ts-native';
  const systems = resolveSystems(f.systems ?? defaults, f.baseline);
  return {
    members: ascending('--scale-members', f.scaleMembers),
    objects: ascending('--scale-objects', f.scaleObjects),
    kind: kinds[0] as ScaleOptions['kind'],
    systems,
    baseline: systems.includes('baseline') ? f.baseline : undefined,
    restart: Boolean(f.restart),
    failover: Boolean(f.failover),
    updateSamples: f.updateSamples,
    syncWorkers: f.syncWorkers,
    timeoutSeconds: f.timeout,
    dir: f.dir,
    keep: Boolean(f.dir),
    log,
  };
}

export async function runScaleCommand(
  opts: ScaleOptions,
  out: { json?: string; plot?: string; command: string },
): Promise<void> {
  const report = await runScale(opts);
  if (out.json) writeFileSync(out.json, JSON.stringify(report, null, 2));
  if (out.plot) writeFileSync(out.plot, encodePng(renderChart(scalePanels(report))));
  process.stdout.write(renderScaleReport(report, out.command));
}
