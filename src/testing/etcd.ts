import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { binary } from './binaries.ts';
import { freePort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';

export interface Etcd {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** One etcd on loopback, shared by every apiserver of a federation (each under its own key prefix). */
export async function startEtcd(dir: string): Promise<Etcd> {
  mkdirSync(dir, { recursive: true });
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const proc = ManagedProcess.start(
    'etcd',
    binary('etcd'),
    [
      '--name=etcd',
      `--data-dir=${join(dir, 'data')}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=etcd=${peer}`,
      // Test data is disposable: skipping fsync makes every write much cheaper.
      '--unsafe-no-fsync=true',
      '--log-level=warn',
      '--quota-backend-bytes=4294967296',
    ],
    { logFile: join(dir, 'etcd.log') },
  );
  await waitFor(
    'etcd to report healthy',
    async () => {
      if (!proc.running) throw new Error(`etcd exited:\n${proc.tail()}`);
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      return res.ok && ((await res.json()) as { health?: string }).health === 'true';
    },
    { timeoutMs: 30_000, describe: () => proc.tail() },
  );
  return { url, process: proc, stop: () => proc.stop() };
}
