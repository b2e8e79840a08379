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
