// The pure part of the command line: lists, counts and which systems run in which order.
import type { SystemId } from './systems.ts';
import type { BenchKind } from './workload.ts';

/** A mistake on the command line (or a baseline that cannot run): run.ts prints it as one line. */
export class BenchUsageError extends Error {}

const SYSTEM_IDS: readonly SystemId[] = ['kubefed-ts', 'baseline', 'kubefed-ts-native', 'kubefed'];
const KIND_IDS: ReadonlyArray<BenchKind['id']> = ['configmaps', 'deployments'];

export function parseList(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseCount(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new BenchUsageError(`not a non-negative integer: ${v}`);
  return n;
}

export function parseKinds(v: string): Array<BenchKind['id']> {
  return parseList(v).map((k) => {
    const kind = KIND_IDS.find((id) => id === k);
    if (!kind) throw new BenchUsageError(`unknown type ${k} (${KIND_IDS.join(', ')})`);
    return kind;
  });
}

/**
 * The systems to measure, in order. Without --systems: kubefed-ts, then (with --baseline) kubefed-ts at the
 * baseline right after it, so the two are measured on the apiservers in the most similar state, then the
 * native front end of this tree (plain objects + one PropagationPolicy), then KubeFed.
 * With --systems exactly those, `baseline` only together with --baseline.
 */
export function resolveSystems(systems: string | undefined, baseline: string | undefined): SystemId[] {
  if (systems === undefined)
    return baseline === undefined
      ? ['kubefed-ts', 'kubefed-ts-native', 'kubefed']
      : ['kubefed-ts', 'baseline', 'kubefed-ts-native', 'kubefed'];
  const ids = parseList(systems).map((s) => {
    const id = SYSTEM_IDS.find((x) => x === s);
    if (!id) throw new BenchUsageError(`unknown system ${s} (${SYSTEM_IDS.join(', ')})`);
    return id;
  });
  if (ids.length === 0) throw new BenchUsageError('--systems: no system given');
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new BenchUsageError(`--systems: ${twice} given twice`);
  if (ids.includes('baseline') && baseline === undefined)
    throw new BenchUsageError('--systems baseline needs --baseline <git-rev>');
  return ids;
}
