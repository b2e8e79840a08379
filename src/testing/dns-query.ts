import { Resolver } from 'node:dns/promises';

/** c-ares error codes that mean "no such record", not "the server did not answer". */
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * A resolver that asks only the given server. A new one per query: c-ares (since 1.23) caches answers per
 * resolver, and a test that watches records change must never see a cached one.
 */
function resolverFor(port: number, timeoutMs: number): Resolver {
  const r = new Resolver({ timeout: timeoutMs, tries: 2 });
  r.setServers([`127.0.0.1:${port}`]);
  return r;
}

async function query(
  port: number,
  name: string,
  ask: (r: Resolver, name: string) => Promise<string[]>,
  timeoutMs: number,
): Promise<string[]> {
  try {
    return (await ask(resolverFor(port, timeoutMs), name)).sort();
  } catch (e) {
    if (NO_RECORDS.has((e as NodeJS.ErrnoException).code ?? '')) return [];
    throw e;
  }
}

/**
 * The IPv4 addresses the DNS server on 127.0.0.1:port answers for name, sorted; [] on NXDOMAIN or NODATA.
 * A CNAME inside the server's zone is followed (the authoritative answer carries the chain).
 */
export function queryA(port: number, name: string, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  return query(port, name, (r, n) => r.resolve4(n), opts.timeoutMs ?? 1000);
}

/** The CNAME targets (without the trailing dot) for name, sorted; [] on NXDOMAIN or NODATA. */
export function queryCname(port: number, name: string, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  return query(port, name, (r, n) => r.resolveCname(n), opts.timeoutMs ?? 1000);
}

/** The TXT strings for name (each record's chunks joined), sorted; [] on NXDOMAIN or NODATA. */
export function queryTxt(port: number, name: string, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  return query(
    port,
    name,
    async (r, n) => (await r.resolveTxt(n)).map((c) => c.join('')),
    opts.timeoutMs ?? 1000,
  );
}

/** The zone's SOA serial as the server on 127.0.0.1:port reports it; throws when it does not answer. */
export async function querySoaSerial(
  port: number,
  zone: string,
  opts: { timeoutMs?: number } = {},
): Promise<number> {
  return (await resolverFor(port, opts.timeoutMs ?? 1000).resolveSoa(zone)).serial;
}

/** The IPv6 addresses for name, sorted; [] on NXDOMAIN or NODATA. */
export function queryAaaa(port: number, name: string, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  return query(port, name, (r, n) => r.resolve6(n), opts.timeoutMs ?? 1000);
}

/** The SRV records for name as `<priority> <weight> <port> <target>` strings, sorted; [] on NXDOMAIN or NODATA. */
export function querySrv(port: number, name: string, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  return query(
    port,
    name,
    async (r, n) => (await r.resolveSrv(n)).map((s) => `${s.priority} ${s.weight} ${s.port} ${s.name}`),
    opts.timeoutMs ?? 1000,
  );
}

/**
 * What the server answers for name and type: `NXDOMAIN` (c-ares ENOTFOUND: the name does not exist),
 * `NODATA` (the name exists, without records of that type) or `ok`. The spec tells NXDOMAIN apart.
 */
export async function queryRcode(
  port: number,
  name: string,
  rrtype: 'A' | 'AAAA' | 'SRV' | 'TXT',
  opts: { timeoutMs?: number } = {},
): Promise<'NXDOMAIN' | 'NODATA' | 'ok'> {
  try {
    await resolverFor(port, opts.timeoutMs ?? 1000).resolve(name, rrtype);
    return 'ok';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND') return 'NXDOMAIN';
    if (code === 'ENODATA') return 'NODATA';
    throw e;
  }
}
