import { spawn } from 'node:child_process';
import { KubeconfigError } from './errors.ts';
import type { ExecConfig } from './types.ts';

/**
 * The cluster a plugin with provideClusterInfo is told about. A RestConfig is structurally one, so
 * `resolveExecCredential(rc.exec, rc)` works.
 */
export type ExecClusterInfo = {
  server: string;
  caData?: Buffer;
  tlsServerName?: string;
  insecureSkipTLSVerify?: boolean;
  proxyUrl?: string;
};

export type ExecCredential = {
  token?: string;
  certData?: Buffer;
  keyData?: Buffer;
  /** Epoch milliseconds; absent means valid until the server rejects it. */
  expiresAt?: number;
};

export type ResolveExecCredentialOptions = {
  /** Base environment for the plugin; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Kill the plugin after this long; default 120 s (browser-based logins can be slow). */
  timeoutMs?: number;
};

const SUPPORTED_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
// Refresh a little early so a token does not expire while a request is in flight.
const EXPIRY_SKEW_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 120_000;

type CacheEntry = { promise: Promise<ExecCredential>; settled: boolean; expiresAt?: number };

// Keyed by the plugin invocation (not the user name), so identically named users in different kubeconfigs
// never share credentials, and concurrent callers share one running plugin.
const cache = new Map<string, CacheEntry>();

/**
 * Runs a client.authentication.k8s.io (v1 or v1beta1) exec plugin and returns its credential. Results are
 * cached per (apiVersion, command, args, env, cluster info) until they expire; concurrent calls share one
 * plugin run. Plugins run non-interactively (stdin closed).
 */
export function resolveExecCredential(
  exec: ExecConfig,
  clusterInfo?: ExecClusterInfo,
  opts: ResolveExecCredentialOptions = {},
): Promise<ExecCredential> {
  const key = cacheKey(exec, clusterInfo);
  const hit = cache.get(key);
  if (hit && (!hit.settled || hit.expiresAt === undefined || hit.expiresAt - EXPIRY_SKEW_MS > Date.now())) {
    return hit.promise;
  }
  const entry: CacheEntry = { promise: Promise.resolve({}), settled: false };
  entry.promise = runPlugin(exec, clusterInfo, opts).then(
    (cred) => {
      entry.settled = true;
      entry.expiresAt = cred.expiresAt;
      return cred;
    },
    (err: unknown) => {
      // Failures are not cached: the next call runs the plugin again.
      if (cache.get(key) === entry) cache.delete(key);
      throw err;
    },
  );
  cache.set(key, entry);
  return entry.promise;
}

/** Drops a cached credential, e.g. after the API server answered 401 with it. */
export function invalidateExecCredential(exec: ExecConfig, clusterInfo?: ExecClusterInfo): void {
  const key = cacheKey(exec, clusterInfo);
  if (cache.get(key)?.settled) cache.delete(key);
}

export function clearExecCredentialCache(): void {
  cache.clear();
}

/** ExecCredential spec.cluster, in the kubeconfig's field names (client.authentication.k8s.io Cluster). */
function wireCluster(info: ExecClusterInfo): Record<string, unknown> {
  const cluster: Record<string, unknown> = { server: info.server };
  if (info.tlsServerName) cluster['tls-server-name'] = info.tlsServerName;
  if (info.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  if (info.caData) cluster['certificate-authority-data'] = info.caData.toString('base64');
  if (info.proxyUrl) cluster['proxy-url'] = info.proxyUrl;
  return cluster;
}

function cacheKey(exec: ExecConfig, clusterInfo: ExecClusterInfo | undefined): string {
  return JSON.stringify([
    exec.apiVersion ?? '',
    exec.command,
    exec.args ?? [],
    exec.env ?? [],
    exec.provideClusterInfo && clusterInfo ? wireCluster(clusterInfo) : null,
  ]);
}

function runPlugin(
  exec: ExecConfig,
  clusterInfo: ExecClusterInfo | undefined,
  opts: ResolveExecCredentialOptions,
): Promise<ExecCredential> {
  const plugin = `exec plugin "${exec.command}"`;
  const apiVersion = exec.apiVersion ?? '';
  if (!SUPPORTED_API_VERSIONS.includes(apiVersion)) {
    return Promise.reject(
      failed(`${plugin}: apiVersion must be client.authentication.k8s.io/v1 or v1beta1, got "${apiVersion}"`),
    );
  }
  if (exec.interactiveMode === 'Always') {
    return Promise.reject(
      new KubeconfigError('Unsupported', `${plugin} requires interactive mode, which is not supported`),
    );
  }
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo && clusterInfo) spec['cluster'] = wireCluster(clusterInfo);
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env) };
  for (const { name, value } of exec.env ?? []) env[name] = value;
  env['KUBERNETES_EXEC_INFO'] = JSON.stringify({ apiVersion, kind: 'ExecCredential', spec });
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return new Promise((resolve, reject) => {
    const child = spawn(exec.command, exec.args ?? [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') {
        const hint = exec.installHint ? `; ${oneLine(exec.installHint)}` : '';
        reject(failed(`${plugin} not found${hint}`, err));
      } else if (err.code === 'EACCES') {
        reject(failed(`${plugin} is not executable`, err));
      } else {
        reject(failed(`${plugin} could not be started: ${err.message}`, err));
      }
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const errText = oneLine(Buffer.concat(stderr).toString('utf8'));
      const detail = errText ? `: ${errText}` : '';
      if (timedOut) return reject(failed(`${plugin} timed out after ${Math.round(timeoutMs / 1000)}s`));
      if (signal) return reject(failed(`${plugin} was killed by ${signal}${detail}`));
      if (code !== 0) return reject(failed(`${plugin} failed with exit code ${code}${detail}`));
      try {
        resolve(parseCredential(Buffer.concat(stdout).toString('utf8'), apiVersion, plugin));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function parseCredential(text: string, apiVersion: string, plugin: string): ExecCredential {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw failed(`${plugin} did not print a JSON ExecCredential`);
  }
  if (!isRecord(doc) || doc['kind'] !== 'ExecCredential') {
    throw failed(`${plugin} did not print an ExecCredential`);
  }
  if (doc['apiVersion'] !== apiVersion) {
    throw failed(`${plugin} returned apiVersion "${String(doc['apiVersion'])}", expected "${apiVersion}"`);
  }
  const status = doc['status'];
  if (!isRecord(status)) throw failed(`${plugin} returned an ExecCredential without a status`);

  const cred: ExecCredential = {};
  const token = optionalString(status, 'token', plugin);
  const cert = optionalString(status, 'clientCertificateData', plugin);
  const key = optionalString(status, 'clientKeyData', plugin);
  const expiry = optionalString(status, 'expirationTimestamp', plugin);
  if (token) cred.token = token;
  if (cert && !key) throw failed(`${plugin} returned clientCertificateData without clientKeyData`);
  if (key && !cert) throw failed(`${plugin} returned clientKeyData without clientCertificateData`);
  // The status carries PEM text, not base64.
  if (cert && key) {
    cred.certData = Buffer.from(cert, 'utf8');
    cred.keyData = Buffer.from(key, 'utf8');
  }
  if (!cred.token && !cred.certData)
    throw failed(`${plugin} returned neither a token nor a client certificate`);
  if (expiry) {
    const at = Date.parse(expiry);
    if (Number.isNaN(at)) throw failed(`${plugin} returned an invalid expirationTimestamp "${expiry}"`);
    cred.expiresAt = at;
  }
  return cred;
}

function optionalString(obj: Record<string, unknown>, key: string, plugin: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw failed(`${plugin} returned a non-string status.${key}`);
  return value;
}

function oneLine(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  // Plugins print the actual error last; keep the tail.
  return line.length > 300 ? `...${line.slice(-297)}` : line;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function failed(message: string, cause?: unknown): KubeconfigError {
  return new KubeconfigError('ExecPluginFailed', message, cause === undefined ? undefined : { cause });
}
