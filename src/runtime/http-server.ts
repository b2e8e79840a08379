import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type Check = () => true | string;

/**
 * Parses Go-style listen addresses: ":8080", "127.0.0.1:9090", "[::1]:8080". An empty host (":8080") means
 * every IPv4 and IPv6 address, as in Go; it is returned as undefined, which Node's listen reads the same way.
 */
export function parseListenAddress(addr: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(addr);
  if (!m) throw new Error(`invalid listen address "${addr}": want host:port or :port`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`invalid listen address "${addr}": port out of range`);
  return { host: m[1] ?? (m[2] || undefined), port };
}

/**
 * Serves /healthz (process alive: KubeFed answers "OK"), /readyz (all readiness checks pass) and, when a
 * registry is given, /metrics. Health and metrics may share one server or use two, as KubeFed's flags allow.
 */
export class ProbeServer {
  readonly #server: Server;
  readonly #readyChecks = new Map<string, Check>();
  readonly #healthChecks = new Map<string, Check>();

  constructor(opts: { registry?: Registry; serveProbes: boolean }) {
    this.#server = createServer((req, res) => {
      const url = (req.url ?? '/').split('?')[0];
      const run = (checks: Map<string, Check>) => {
        const failures: string[] = [];
        for (const [name, check] of checks) {
          const r = check();
          if (r !== true) failures.push(`${name}: ${r}`);
        }
        res.writeHead(failures.length ? 503 : 200, { 'content-type': 'text/plain' });
        res.end(failures.length ? `${failures.join('\n')}\n` : 'OK');
      };
      if (opts.serveProbes && url === '/healthz') return run(this.#healthChecks);
      if (opts.serveProbes && url === '/readyz') return run(this.#readyChecks);
      if (opts.registry && url === '/metrics') {
        opts.registry.metrics().then(
          (body) => {
            res.writeHead(200, { 'content-type': opts.registry?.contentType ?? 'text/plain' });
            res.end(body);
          },
          (e: unknown) => {
            res.writeHead(500);
            res.end(String(e));
          },
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
    });
  }

  addReadyCheck(name: string, check: Check): void {
    this.#readyChecks.set(name, check);
  }
  addHealthCheck(name: string, check: Check): void {
    this.#healthChecks.set(name, check);
  }

  listen(address: string): Promise<AddressInfo> {
    const { host, port } = parseListenAddress(address);
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}
