// A small reader of the Prometheus text exposition format (what /metrics serves), for tests and the benchmark
// that read metric values rather than match regular expressions over the text.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const UNESCAPE: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' };

/** Parses every sample line; comments (# HELP, # TYPE) and blank lines are skipped. */
export function parsePrometheusText(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    if (!m?.[1]) throw new Error(`not a sample line: ${line}`);
    const name = m[1];
    let i = name.length;
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      for (;;) {
        while (line[i] === ' ' || line[i] === ',') i++;
        if (line[i] === '}') {
          i++;
          break;
        }
        const eq = line.indexOf('=', i);
        if (eq < 0 || line[eq + 1] !== '"') throw new Error(`bad label in: ${line}`);
        const key = line.slice(i, eq).trim();
        let value = '';
        i = eq + 2;
        for (; i < line.length && line[i] !== '"'; i++) {
          if (line[i] === '\\') {
            const next = line[++i] ?? '';
            value += UNESCAPE[next] ?? `\\${next}`;
          } else value += line[i];
        }
        if (line[i] !== '"') throw new Error(`unterminated label value in: ${line}`);
        i++;
        labels[key] = value;
      }
    }
    const [valueText = ''] = line.slice(i).trim().split(/\s+/);
    const value = parseValue(valueText);
    if (value === undefined) throw new Error(`bad value in: ${line}`);
    out.push({ name, labels, value });
  }
  return out;
}

/** Go's ParseFloat, as Prometheus reads values: NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string): number | undefined {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  const n = Number(text);
  return text === '' || Number.isNaN(n) ? undefined : n;
}

/** Samples named `name` whose labels include every pair in `match`. */
export function samples(all: Sample[], name: string, match: Record<string, string> = {}): Sample[] {
  return all.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
}

/** The sum over the matching samples; undefined when none matches (the series is absent). */
export function value(all: Sample[], name: string, match: Record<string, string> = {}): number | undefined {
  const found = samples(all, name, match);
  return found.length === 0 ? undefined : found.reduce((a, s) => a + s.value, 0);
}

/** Scrapes `<url>/metrics`. */
export async function scrape(metricsUrl: string): Promise<Sample[]> {
  const res = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`GET ${metricsUrl}/metrics: HTTP ${res.status}`);
  return parsePrometheusText(await res.text());
}
