// The pure half of bench/cache-memory.ts: heap retained per cached object from the rounds it measured, and
// the table.
import { num, ratio } from './format.ts';
import { medianBy } from './median.ts';

/** What a cache keeps of each object. */
export type CacheVariant = 'as served' | 'without managedFields';
export const CACHE_VARIANTS: readonly CacheVariant[] = ['as served', 'without managedFields'];

/** One round: an informer of one variant loaded `objects` objects, and the heap grew by `heapBytes` after a full GC. */
export interface CacheRound {
  /** The row: which objects, e.g. `ConfigMap (member copy)`. */
  objects: string;
  variant: CacheVariant;
  count: number;
  heapBytes: number;
}

/** Heap bytes per cached object: the median round of that row and variant. */
export function bytesPerObject(rounds: readonly CacheRound[], objects: string, variant: CacheVariant) {
  const mine = rounds.filter((r) => r.objects === objects && r.variant === variant && r.count > 0);
  if (mine.length === 0) return undefined;
  const per = mine.map((r) => r.heapBytes / r.count);
  return { median: medianBy(per, (b) => b), rounds: per };
}

/** One row per kind of object: bytes per object as served and without managedFields, and their ratio. */
export function renderCacheMemoryTable(rounds: readonly CacheRound[]): string {
  const rows = [...new Set(rounds.map((r) => r.objects))];
  const header = [
    'Cached objects',
    'heap bytes per object, as served',
    'heap bytes per object, without managedFields',
    'without ÷ as served',
    'rounds (as served; without)',
  ];
  const lines = rows.map((row) => {
    const served = bytesPerObject(rounds, row, 'as served');
    const stripped = bytesPerObject(rounds, row, 'without managedFields');
    const list = (b: typeof served) => (b ? b.rounds.map((v) => num(v)).join(', ') : num(undefined));
    return [
      row,
      num(served?.median),
      num(stripped?.median),
      ratio(stripped?.median, served?.median),
      `${list(served)}; ${list(stripped)}`,
    ];
  });
  return [header, header.map((_, i) => (i === 0 ? '---' : '---:')), ...lines]
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n');
}
