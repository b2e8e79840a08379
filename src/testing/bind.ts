import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { binary } from './binaries.ts';
import { querySoaSerial } from './dns-query.ts';
import { freeTcpUdpPort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

export interface BindOptions {
  /** State, config, zone file, journal and named.log go here (created if missing). */
  dir: string;
  /** The one primary zone this server is authoritative for, e.g. `example.test`. */
  zone: string;
  /** Port on 127.0.0.1 for UDP and TCP; a free one by default. */
  port?: number;
  /** TSIG key name; ExternalDNS's tutorial's by default. */
  keyName?: string;
  /**
   * The zone's NS name. By default `ns.<zone>` with an A record 127.0.0.1 in the zone; a name outside the
   * zone (e.g. `ns.invalid`) leaves the zone without any A record of its own, for an ExternalDNS that owns
   * every record (`--registry=noop --policy=sync`), which would otherwise try to delete that one.
   */
  nameServer?: string;
}

export interface BindServer {
  port: number;
  zone: string;
  keyName: string;
  /** The TSIG secret, base64 (what `--rfc2136-tsig-secret` takes). */
  secret: string;
  algorithm: 'hmac-sha256';
  process: ManagedProcess;
  /** The whole zone by AXFR with the key, as dig prints it: for test failure messages. */
  axfr(): Promise<string>;
  stop(): Promise<void>;
}

/** named.conf strings are double-quoted; a temp path never needs more than this. */
const q = (s: string) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/**
 * A real BIND9 named on loopback, authoritative for one zone that a TSIG key may update (RFC 2136) and
 * transfer (AXFR) — what ExternalDNS's rfc2136 provider needs. Configured as ExternalDNS's rfc2136 tutorial
 * says, minus everything that would touch the host: no rndc control channel, no IPv6, no recursion, and
 * every file under dir. Runs in the foreground (`-g`), so it is a ManagedProcess cleaned up with the test.
 */
export async function startBind(opts: BindOptions): Promise<BindServer> {
  const dir = resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  const zone = opts.zone.replace(/\.$/, '');
  const keyName = opts.keyName ?? 'externaldns-key';
  const algorithm = 'hmac-sha256';
  const secret = randomBytes(32).toString('base64');
  const port = opts.port ?? (await freeTcpUdpPort());
  const conf = join(dir, 'named.conf');
  const zoneFile = join(dir, `db.${zone}`);

  writeFileSync(
    conf,
    `options {
  directory ${q(dir)};
  pid-file ${q(join(dir, 'named.pid'))};
  // The defaults are under /run/named and /var/cache/bind: shared with a system named, maybe not writable.
  session-keyfile ${q(join(dir, 'session.key'))};
  managed-keys-directory ${q(dir)};
  dump-file ${q(join(dir, 'named_dump.db'))};
  statistics-file ${q(join(dir, 'named.stats'))};
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
};
// No rndc channel: its default port 953 would clash between servers (and with a system named).
controls { };
key ${q(keyName)} {
  algorithm ${algorithm};
  secret ${q(secret)};
};
zone ${q(zone)} {
  type primary;
  file ${q(zoneFile)};
  allow-transfer { key ${q(keyName)}; };
  update-policy { grant ${q(keyName)} zonesub ANY; };
};
`,
    { mode: 0o600 },
  );
  // A short negative TTL (SOA minimum) so that a caching client would forget a deleted name quickly.
  const ns = opts.nameServer?.replace(/\.$/, '');
  writeFileSync(
    zoneFile,
    ns === undefined
      ? `$TTL 60
@   IN SOA ns.${zone}. hostmaster.${zone}. ( 1 60 60 600 5 )
@   IN NS  ns.${zone}.
ns  IN A   127.0.0.1
`
      : `$TTL 60
@   IN SOA ${ns}. hostmaster.${zone}. ( 1 60 60 600 5 )
@   IN NS  ${ns}.
`,
  );

  // As root named keeps running as root without -u (it only drops privileges when asked), so the same
  // command works for root on CI and for a developer; dir is ours either way, so updates can write journals.
  const proc = ManagedProcess.start('named', binary('named'), ['-g', '-4', '-c', conf], {
    logFile: join(dir, 'named.log'),
    cwd: dir,
  });
  const stop = () => proc.stop();
  try {
    await waitFor(
      `named to serve ${zone} on 127.0.0.1:${port}`,
      async () => {
        if (!proc.running) throw new Error(`named exited:\n${proc.tail()}`);
        return (await querySoaSerial(port, zone, { timeoutMs: 500 })) >= 1;
      },
      { timeoutMs: 30_000, describe: () => proc.tail() },
    );
  } catch (e) {
    await stop();
    throw e;
  }

  const axfr = () =>
    new Promise<string>((res) => {
      execFile(
        binary('dig'),
        [
          '@127.0.0.1',
          '-p',
          String(port),
          '-y',
          `${algorithm}:${keyName}:${secret}`,
          'AXFR',
          zone,
          '+nocmd',
          '+nostats',
        ],
        { timeout: 10_000 },
        (err, stdout, stderr) => res(err ? `dig AXFR failed: ${err.message}\n${stderr}` : stdout),
      );
    });

  return { port, zone, keyName, secret, algorithm, process: proc, axfr, stop };
}
