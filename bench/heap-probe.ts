// The live heap of a Node process the benchmark started with `--inspect` on loopback: a full collection through
// the inspector protocol (`HeapProfiler.collectGarbage`), then `Runtime.getHeapUsage`. What the process keeps,
// without the garbage that `nodejs_heap_size_used_bytes` also counts at whatever moment it is scraped, so that
// memory per 1,000 objects is a slope of retained memory, not of how long ago V8 last collected.

/** The inspector's answer to one command, or its error. */
interface Reply {
  id: number;
  result?: { usedSize?: number };
  error?: { message?: string };
}

/** `--inspect=127.0.0.1:<port>` for NODE_OPTIONS: the inspector on loopback only. */
export const inspectOption = (port: number) => `--inspect=127.0.0.1:${port}`;

/** Collects the process's garbage and returns the V8 heap still in use, in bytes. */
export async function liveHeapBytes(inspectPort: number, timeoutMs = 30_000): Promise<number> {
  const signal = AbortSignal.timeout(timeoutMs);
  const targets = (await (
    await fetch(`http://127.0.0.1:${inspectPort}/json/list`, { signal })
  ).json()) as Array<{
    webSocketDebuggerUrl?: string;
  }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`the inspector on port ${inspectPort} lists no target`);
  const ws = new WebSocket(url);
  const pending = new Map<number, (r: Reply) => void>();
  const failed = new Promise<never>((_, reject) => {
    ws.addEventListener('error', () => reject(new Error(`inspector ${url}: connection failed`)));
    // A socket closed before the answers came (the process exited, say) fails now, not at the timeout.
    ws.addEventListener('close', () => reject(new Error(`inspector ${url}: connection closed`)));
    signal.addEventListener('abort', () =>
      reject(new Error(`inspector ${url}: no answer in ${timeoutMs} ms`)),
    );
  });
  // Raced against every step; once the probe is done (or the timeout fires late) nobody waits on it.
  failed.catch(() => undefined);
  ws.addEventListener('message', (e) => {
    const reply = JSON.parse(String(e.data)) as Reply;
    pending.get(reply.id)?.(reply);
  });
  let next = 0;
  const call = (method: string): Promise<Reply> => {
    const id = ++next;
    const answered = new Promise<Reply>((resolve) => pending.set(id, resolve));
    ws.send(JSON.stringify({ id, method }));
    return Promise.race([answered, failed]).then((r) => {
      if (r.error) throw new Error(`inspector ${method}: ${r.error.message ?? 'failed'}`);
      return r;
    });
  };
  try {
    await Promise.race([
      new Promise((resolve) => ws.addEventListener('open', resolve, { once: true })),
      failed,
    ]);
    await call('HeapProfiler.collectGarbage');
    const used = (await call('Runtime.getHeapUsage')).result?.usedSize;
    if (typeof used !== 'number') throw new Error('inspector Runtime.getHeapUsage: no usedSize');
    return used;
  } finally {
    ws.close();
  }
}
