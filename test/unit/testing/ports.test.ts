import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { freePort } from '../../../src/testing/ports.ts';

test('freePort hands out distinct bindable ports outside the ephemeral range that client connections use', async () => {
  const ephemeralStart = Number(
    readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
  );
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length, 'no port twice');
  for (const port of ports) {
    assert.ok(port >= 10_000 && port < ephemeralStart, `${port} below ${ephemeralStart}`);
    await new Promise<void>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
    });
  }
});

test('a port reserved by a live test process is not handed to another; one whose owner exited is taken over', async () => {
  const { spawnSync } = await import('node:child_process');
  const { reservePort } = await import('../../../src/testing/ports.ts');
  const port = 10_000 + Math.floor(Math.random() * 1_000) + (process.pid % 1_000);
  const claimIn = (p: number) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { reservePort } from ${JSON.stringify(new URL('../../../src/testing/ports.ts', import.meta.url).href)}; process.stdout.write(String(reservePort(${p})));`,
      ],
      { encoding: 'utf8' },
    ).stdout;
  // Held by this (live) process: another process is refused.
  assert.equal(reservePort(port), true);
  assert.equal(claimIn(port), 'false');
  // Claimed by a process that has exited: the next one takes it over.
  const other = port + 2_000;
  assert.equal(claimIn(other), 'true');
  assert.equal(reservePort(other), true);
});
