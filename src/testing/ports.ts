import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

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
 * the same port twice in one process. Falls back to an OS-chosen port where the range is unknown.
 */
export async function freePort(): Promise<number> {
  if (EPHEMERAL_START > 0) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = 10_000 + Math.floor(Math.random() * (EPHEMERAL_START - 10_000));
      if (handedOut.has(candidate)) continue;
      // Reserved before the check, so that concurrent callers never pick the same port.
      handedOut.add(candidate);
      if ((await tryListen(candidate)) !== undefined) return candidate;
      handedOut.delete(candidate);
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
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
