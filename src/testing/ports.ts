import { createSocket } from 'node:dgram';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The first port of the kernel's ephemeral range, from which outgoing connections take their local port.
 * A port handed out from that range (listen on port 0) can be taken by any connection before the process
 * it is meant for binds it; ports below it cannot.
 */
function ephemeralRangeStart(): number {
  try {
    const first = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(first) && first > 11_000 ? first : 0;
  } catch {
    return 0;
  }
}

const EPHEMERAL_START = ephemeralRangeStart();
const handedOut = new Set<number>();

/**
 * Ports handed out by any test process on this machine: one file per port holding the owner's pid. A
 * port checked free by two processes at once (a test and the controller manager it started, or two test
 * runs) would otherwise be bound by whichever server starts first, and the other's client would talk to a
 * stranger (SELF_SIGNED_CERT_IN_CHAIN). A file whose process has gone is taken over.
 */
const RESERVATIONS = join(tmpdir(), 'kubefed-ts-test-ports');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims the port for this process across test processes; false when a live one holds it. */
export function reservePort(port: number): boolean {
  const file = join(RESERVATIONS, String(port));
  try {
    mkdirSync(RESERVATIONS, { recursive: true });
    const fd = openSync(file, 'wx');
    writeFileSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no shared directory: best effort
    // An empty file is one another process is writing its pid into right now.
    const owner = Number(readFileSync(file, 'utf8').trim());
    if (!Number.isInteger(owner) || owner <= 0 || owner === process.pid || alive(owner)) return false;
    writeFileSync(file, String(process.pid));
    return true;
  }
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      const bound = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a server process to bind. Chosen below the
 * ephemeral range (10000 and up) so that the many client connections of a test cannot take it first; never
 * the same port twice in one process, nor one another live test process holds. Falls back to an OS-chosen port where the range is unknown.
 */
export async function freePort(): Promise<number> {
  if (EPHEMERAL_START > 0) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = 10_000 + Math.floor(Math.random() * (EPHEMERAL_START - 10_000));
      if (handedOut.has(candidate)) continue;
      // Reserved before the check, so that concurrent callers never pick the same port.
      handedOut.add(candidate);
      if (reservePort(candidate) && (await tryListen(candidate)) !== undefined) return candidate;
      handedOut.delete(candidate);
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

/** A port free on both TCP and UDP (freePort() checks TCP only), for a DNS server (named, pdns_server). */
export async function freeTcpUdpPort(): Promise<number> {
  for (let i = 0; ; i++) {
    const port = await freePort();
    const ok = await new Promise<boolean>((res) => {
      const s = createSocket('udp4');
      s.once('error', () => res(false));
      s.bind(port, '127.0.0.1', () => s.close(() => res(true)));
    });
    if (ok || i >= 20) return port;
  }
}

/** Polls until check resolves true, or throws with describe()'s text after timeoutMs. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs?: number; intervalMs?: number; describe?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let lastError = '';
  for (;;) {
    try {
      if (await check()) return;
    } catch (e) {
      lastError = (e as Error).message;
    }
    if (Date.now() > deadline) {
      const detail = [lastError && `last error: ${lastError}`, opts.describe?.()].filter(Boolean).join('\n');
      throw new Error(`timed out waiting for ${what}${detail ? `\n${detail}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 200));
  }
}
