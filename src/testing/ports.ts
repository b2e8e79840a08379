import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
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
