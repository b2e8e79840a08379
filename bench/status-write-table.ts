// The pure half of bench/status-write.ts: CPU per request from the rounds it measured, and the table.
import { num, ratio } from './format.ts';

export type WriteKind = 'create' | 'status PUT' | 'status merge PATCH';

/** One round: `requests` writes of one kind at one client rate, and the host apiserver's CPU seconds. */
export interface WriteRound {
  write: WriteKind;
  /** Client-side QPS limit; 0 = none (a burst at the round's concurrency). */
  qps: number;
  requests: number;
  cpuSeconds: number;
}

/** CPU ms per request of every round of one kind and rate together (rounds of a kind alternate, for order). */
export function msPerRequest(rounds: WriteRound[], write: WriteKind, qps: number): number | undefined {
  const mine = rounds.filter((r) => r.write === write && r.qps === qps);
  const requests = mine.reduce((n, r) => n + r.requests, 0);
  if (requests === 0) return undefined;
  return (mine.reduce((s, r) => s + r.cpuSeconds, 0) * 1000) / requests;
}

/**
 * One row per write kind: CPU ms per request at each rate, the kind against the create at the first rate,
 * and the first rate against each other one (how much a trickle costs per request next to a burst).
 */
export function renderStatusWriteTable(rounds: WriteRound[], rates: number[]): string {
  const rateLabel = (q: number) => (q === 0 ? 'burst' : `${q} QPS`);
  const [first, ...others] = rates;
  if (first === undefined) return '';
  const writes: WriteKind[] = ['create', 'status PUT', 'status merge PATCH'];
  const header = [
    'Write',
    ...rates.map((q) => `host apiserver CPU ms per request, ${rateLabel(q)}`),
    `÷ create (${rateLabel(first)})`,
    ...others.map((q) => `${rateLabel(q)} ÷ ${rateLabel(first)}`),
  ];
  const create = msPerRequest(rounds, 'create', first);
  const rows = writes.map((w) => {
    const base = msPerRequest(rounds, w, first);
    return [
      w,
      ...rates.map((q) => num(msPerRequest(rounds, w, q), 2)),
      ratio(base, create),
      ...others.map((q) => ratio(msPerRequest(rounds, w, q), base)),
    ];
  });
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}
