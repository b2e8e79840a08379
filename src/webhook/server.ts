// The HTTPS server of the admission webhooks. It serves the certificate in --cert-dir and picks up a new
// one when the files change (a rotated kubernetes.io/tls Secret is swapped in place by the kubelet), so
// rotation needs no restart. Connections already open keep the certificate they were set up with.

import { type FSWatcher, readFileSync, watch } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../runtime/logger.ts';
import { type AdmissionContext, type AdmissionResult, admit, isWebhookPath } from './admission.ts';
import { admitOcm, isOcmWebhookPath, type OcmAdmissionOptions } from './ocm-admission.ts';

export const TLS_CERT_FILE = 'tls.crt';
export const TLS_KEY_FILE = 'tls.key';
/** An AdmissionReview is bounded by the apiserver's request limit (3 MiB objects); leave room for two. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface WebhookServerOptions {
  certDir: string;
  /** Address to listen on; empty for every IPv4 and IPv6 address. */
  host: string;
  port: number;
  logger: Logger;
  /** How often the certificate files are re-read even without a file-system event. Default 10 s. */
  reloadIntervalMs?: number;
  /**
   * OCM's work webhooks: the manifest limit and how to ask the hub a SubjectAccessReview. Without it an
   * executor cannot be checked, and a work naming one is denied with the reason.
   */
  ocm?: OcmAdmissionOptions;
  /** The control plane as the webhook's informers see it, for the sync finalizer at admission. */
  controlPlane?: AdmissionContext['controlPlane'];
  /** The propagation policies as the webhook's informers see them, for the claim of a template at admission. */
  policies?: AdmissionContext['policies'];
}

/** Used when no API access was configured: the executor check fails closed, as OCM's does on a SAR error. */
const NO_API_ACCESS: OcmAdmissionOptions = {
  reviewAccess: () =>
    Promise.reject(
      new Error('the webhook has no API access to check the executor (run it with --kubeconfig)'),
    ),
};

interface KeyPair {
  cert: string;
  key: string;
}

function readFiles(certDir: string): KeyPair {
  const read = (name: string) => {
    const file = join(certDir, name);
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  return { cert: read(TLS_CERT_FILE), key: read(TLS_KEY_FILE) };
}

function checkPair(certDir: string, pair: KeyPair): KeyPair {
  try {
    // Fails when the key does not belong to the certificate or either is not PEM.
    createSecureContext(pair);
  } catch (e) {
    throw new Error(`invalid serving certificate in ${certDir}: ${(e as Error).message}`);
  }
  return pair;
}

/** Reads and checks the key pair; throws with a message naming the file on failure. */
export function readKeyPair(certDir: string): KeyPair {
  return checkPair(certDir, readFiles(certDir));
}

export class WebhookServer {
  readonly #server: Server;
  readonly #opts: WebhookServerOptions;
  readonly #log: Logger;
  #current: KeyPair;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(opts: WebhookServerOptions, pair: KeyPair) {
    this.#opts = opts;
    this.#log = opts.logger;
    this.#current = pair;
    this.#server = createServer({ ...pair, minVersion: 'TLSv1.2' }, (req, res) => this.#handle(req, res));
    // A client that stalls must not hold a socket forever; the apiserver's own timeout is 10 s by default.
    this.#server.requestTimeout = 60_000;
    // The apiserver keeps idle connections to a webhook for 90 s (client-go's transport IdleConnTimeout).
    // Node closes them after 5 s by default, racing the apiserver's next request on the same connection:
    // "write: broken pipe", a failed call, and with failurePolicy Fail a create refused (seen under a burst
    // of 1,000 creates). Idle connections are the client's to close.
    this.#server.keepAliveTimeout = 120_000;
  }

  /** Loads the certificate (failing if it is missing or broken) and starts listening. */
  static async start(opts: WebhookServerOptions): Promise<WebhookServer> {
    const server = new WebhookServer(opts, readKeyPair(opts.certDir));
    await server.#listen();
    server.#watchCertificates();
    return server;
  }

  get address(): AddressInfo {
    return this.#server.address() as AddressInfo;
  }

  #listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#opts.port, this.#opts.host || undefined, () => {
        this.#server.off('error', reject);
        this.#server.on('error', (e) => this.#log.error({ err: e.message }, 'webhook server error'));
        resolve();
      });
    });
  }

  #watchCertificates(): void {
    const check = () => this.reloadCertificates();
    try {
      // Secret volumes change by swapping a symlink: watch the directory, not the files.
      this.#watcher = watch(this.#opts.certDir, () => {
        // An event already queued when close() ran must not start a timer that outlives the server.
        if (this.#closed) return;
        clearTimeout(this.#debounce);
        this.#debounce = setTimeout(check, 100);
      });
      this.#watcher.on('error', (e) =>
        this.#log.warn({ err: e.message }, 'cannot watch the cert dir; polling only'),
      );
    } catch (e) {
      this.#log.warn({ err: (e as Error).message }, 'cannot watch the cert dir; polling only');
    }
    this.#timer = setInterval(check, this.#opts.reloadIntervalMs ?? 10_000);
    this.#timer.unref();
  }

  /**
   * Re-reads the certificate files and serves them to new connections if they changed and are valid.
   * Returns whether the certificate was replaced. A half-written pair is skipped and retried later.
   */
  reloadCertificates(): boolean {
    let pair: KeyPair;
    try {
      pair = readFiles(this.#opts.certDir);
      if (pair.cert === this.#current.cert && pair.key === this.#current.key) return false;
      checkPair(this.#opts.certDir, pair);
    } catch (e) {
      this.#log.warn({ err: (e as Error).message }, 'keeping the current serving certificate');
      return false;
    }
    this.#server.setSecureContext({ ...pair, minVersion: 'TLSv1.2' });
    this.#current = pair;
    this.#log.info({ certDir: this.#opts.certDir }, 'serving a new certificate');
    return true;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/readyz' || path === '/readyz/' || path === '/healthz' || path === '/healthz/') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (!isWebhookPath(path) && !isOcmWebhookPath(path)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'POST' });
      res.end('method not allowed\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' });
        res.end('request body too large\n');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      const body = Buffer.concat(chunks).toString('utf8');
      if (isOcmWebhookPath(path)) {
        admitOcm(path, body, this.#opts.ocm ?? NO_API_ACCESS).then(
          (result) => this.#answer(path, result, res),
          // admitOcm does not throw; a failure here is a bug: answer rather than leave the apiserver waiting.
          (e: unknown) => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`internal error: ${(e as Error).message}\n`);
          },
        );
        return;
      }
      if (isWebhookPath(path)) {
        this.#answer(
          path,
          admit(path, body, { controlPlane: this.#opts.controlPlane, policies: this.#opts.policies }),
          res,
        );
      }
    });
    req.on('error', (e) => this.#log.debug({ err: e.message, path }, 'request aborted'));
  }

  #answer(path: string, result: AdmissionResult, res: ServerResponse): void {
    const { review, decision, request } = result;
    const what = request && {
      uid: request.uid,
      operation: request.operation,
      resource: [request.resource.resource, request.subResource].filter(Boolean).join('/'),
      namespace: request.namespace || undefined,
      name: request.name || undefined,
    };
    if (decision.allowed) {
      this.#log.debug({ path, ...what, patched: Boolean(decision.patch?.length) }, 'allowed');
    } else {
      this.#log.info({ path, ...what, code: decision.code, message: decision.message }, 'denied');
    }
    const json = JSON.stringify(review);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#debounce);
    this.#watcher?.close();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
