import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { binary } from './binaries.ts';
import { querySoaSerial } from './dns-query.ts';
import { freePort, freeTcpUdpPort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

export interface PowerDnsOptions {
  /** Config, SQLite database, control socket and pdns.log go here (created if missing). */
  dir: string;
  /** The one Native zone this server is authoritative for, e.g. `clusterset.local`. */
  zone: string;
  /** Port on 127.0.0.1 for UDP and TCP; a free one by default. */
  port?: number;
  /**
   * The zone's NS (and SOA primary) name; `ns.<zone>` by default, with no address record: nothing here
   * resolves it, and an ExternalDNS owning every A record (`--registry=noop`) would delete one.
   */
  nameServer?: string;
}

export interface PowerDnsServer {
  /** DNS, UDP and TCP, on 127.0.0.1. */
  port: number;
  zone: string;
  /** `http://127.0.0.1:<port>`: what ExternalDNS's `--pdns-server` takes. */
  apiUrl: string;
  apiKey: string;
  process: ManagedProcess;
  /** The zone's rrsets from the API, one `name ttl type content` line per record: for failure messages. */
  records(): Promise<string>;
  stop(): Promise<void>;
}

/** Where Debian's pdns-backend-sqlite3 puts the schema of a fresh database (the doc copy is older layouts'). */
const SCHEMA_FILES = [
  '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
  '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
];

interface ApiRrset {
  name: string;
  type: string;
  ttl: number;
  records: Array<{ content: string; disabled: boolean }>;
}

/**
 * A real PowerDNS Authoritative (Debian's pdns-server, 4.7) on loopback with the gsqlite3 backend and its
 * HTTP API: what ExternalDNS's pdns provider drives. Unlike the rfc2136 provider, that one reads every
 * rrset back (SRV included), so records that leave the source are deleted. Every cache is off, since tests
 * watch records change; no setuid, no guardian, no syslog, no security polling, every file under dir. Runs in
 * the foreground, so it is a ManagedProcess cleaned up with the test.
 */
export async function startPowerDns(opts: PowerDnsOptions): Promise<PowerDnsServer> {
  const dir = resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  const zone = opts.zone.replace(/\.$/, '');
  const nameServer = `${(opts.nameServer ?? `ns.${zone}`).replace(/\.$/, '')}.`;
  const port = opts.port ?? (await freeTcpUdpPort());
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const apiKey = randomBytes(24).toString('hex');
  const database = join(dir, 'pdns.sqlite3');

  const schema = SCHEMA_FILES.find((f) => existsSync(f));
  if (!schema)
    throw new Error('no gsqlite3 schema (hack/install-dns-tools.sh installs pdns-backend-sqlite3)');
  rmSync(database, { force: true });
  const db = new DatabaseSync(database);
  try {
    db.exec(readFileSync(schema, 'utf8'));
  } finally {
    db.close();
  }

  // pdns.conf in our own config-dir (it holds the API key, so not on argv); nothing of /etc/powerdns is read.
  writeFileSync(
    join(dir, 'pdns.conf'),
    `${[
      'launch=gsqlite3',
      `gsqlite3-database=${database}`,
      'local-address=127.0.0.1',
      `local-port=${port}`,
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${apiPort}`,
      'webserver-allow-from=127.0.0.1',
      // Tests watch records change: no packet, query, negative or metadata cache (SOA-EDIT-API is metadata).
      'cache-ttl=0',
      'negquery-cache-ttl=0',
      'query-cache-ttl=0',
      'domain-metadata-cache-ttl=0',
      'daemon=no',
      'guardian=no',
      'disable-syslog=yes',
      'log-timestamp=yes',
      'loglevel=4',
      `socket-dir=${dir}`,
      'write-pid=no',
      // No DNS query to secpoll.powerdns.com at start-up.
      'security-poll-suffix=',
      // Serial 1, and a 5 s negative TTL (SOA minimum) so a caching client forgets a deleted name quickly.
      `default-soa-content=${nameServer} hostmaster.@ 1 60 60 600 5`,
    ].join('\n')}\n`,
    { mode: 0o600 },
  );

  const proc = ManagedProcess.start('pdns_server', binary('pdns_server'), [`--config-dir=${dir}`], {
    logFile: join(dir, 'pdns.log'),
    cwd: dir,
  });
  const stop = () => proc.stop();
  const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${apiUrl}/api/v1/servers/localhost${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`PowerDNS API ${method} ${path}: ${res.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const running = () => {
    if (!proc.running) throw new Error(`pdns_server exited:\n${proc.tail()}`);
  };

  try {
    await waitFor(
      `the PowerDNS API on ${apiUrl}`,
      async () => {
        running();
        await api('GET', '');
        return true;
      },
      { timeoutMs: 30_000, describe: () => proc.tail() },
    );
    await api('POST', '/zones', {
      name: `${zone}.`,
      kind: 'Native',
      nameservers: [nameServer],
      // Every API change bumps the serial by one: a serial that stays put means nobody wrote.
      soa_edit_api: 'INCREASE',
      // Rectified after every change, so empty non-terminals answer NODATA and vanish with their last child.
      api_rectify: true,
    });
    await waitFor(
      `pdns_server to serve ${zone} on 127.0.0.1:${port}`,
      async () => {
        running();
        return (await querySoaSerial(port, zone, { timeoutMs: 500 })) >= 1;
      },
      { timeoutMs: 30_000, describe: () => proc.tail() },
    );
  } catch (e) {
    await stop();
    throw e;
  }

  const records = async () => {
    try {
      const z = (await api('GET', `/zones/${encodeURIComponent(`${zone}.`)}`)) as { rrsets: ApiRrset[] };
      return z.rrsets
        .flatMap((r) =>
          r.records.map((c) => `${r.name} ${r.ttl} ${r.type} ${c.content}${c.disabled ? ' (disabled)' : ''}`),
        )
        .sort()
        .join('\n');
    } catch (e) {
      return `reading the zone from the PowerDNS API failed: ${(e as Error).message}`;
    }
  };

  return { port, zone, apiUrl, apiKey, process: proc, records, stop };
}
