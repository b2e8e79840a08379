// Logs an operator can read. A member that is down, slow, throttling or answering 5xx is normal for a
// federation: each such failure is a warning without a stack trace, naming the cluster, and rate-limited per
// cluster and kind of failure so that a dead member cannot flood the log. A stack trace is for a bug: an
// exception nothing expected.

import { ApiError, errorMessage, TransportError } from '../kube/client/errors.ts';
import { ClusterConfigError, KubeconfigError } from '../kube/kubeconfig/errors.ts';

/** What went wrong, as far as an operator cares; `undefined` from classifyFailure means a bug. */
export type FailureKind =
  /** No HTTP answer: refused, reset, closed, DNS, TLS. */
  | 'unreachable'
  /** No answer in time. */
  | 'timeout'
  /** 429 after the client's bounded retries. */
  | 'throttled'
  /** 409: a conflict or an object that already exists. */
  | 'conflict'
  /** 5xx: an overloaded or dying API server, or a failing webhook on it. */
  | 'server-error'
  /** 404: an object or a type that is not there (a member without a CRD). */
  | 'not-found'
  /** 401 or 403: credentials or RBAC. */
  | 'denied'
  /** Any other answer the server refused with (400, 410, 422, ...). */
  | 'rejected'
  /** The cluster's KubeFedCluster, Secret or kubeconfig cannot be used. */
  | 'config'
  /** Failures that were already reported one by one (see ReportedFailure). */
  | 'reported';

/**
 * An error that sums up failures which were each logged, evented and written to status where they happened
 * (e.g. "member operations failed: cluster2: UpdateFailed"); it makes a reconcile retry, but is no bug.
 */
export class ReportedFailure extends Error {
  readonly clusters: readonly string[];
  constructor(message: string, clusters: readonly string[] = []) {
    super(message);
    this.name = 'ReportedFailure';
    this.clusters = clusters;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function isTimeout(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return e.name === 'TimeoutError' || (typeof code === 'string' && TIMEOUT_CODES.has(code));
}

function isNetworkError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_'));
}

/** Classifies an error (pure): the kind of an expected failure, or undefined for a bug. */
export function classifyFailure(e: unknown): FailureKind | undefined {
  if (e instanceof ApiError) {
    const s = e.statusCode;
    if (s === 429) return 'throttled';
    if (s === 409) return 'conflict';
    if (s === 404) return 'not-found';
    if (s === 401 || s === 403) return 'denied';
    if (s >= 500) return 'server-error';
    return 'rejected';
  }
  if (e instanceof TransportError) return isTimeout(e.cause) ? 'timeout' : 'unreachable';
  if (e instanceof ReportedFailure) return 'reported';
  if (e instanceof ClusterConfigError || e instanceof KubeconfigError) return 'config';
  // Raw transport errors from a stream that broke mid-way (a watch body), before anything wrapped them.
  if (isTimeout(e)) return 'timeout';
  if (isNetworkError(e)) return 'unreachable';
  return undefined;
}

/** The cluster an error came from, when the client that made the request named it. */
export function failureCluster(e: unknown): string | undefined {
  if (e instanceof ApiError || e instanceof TransportError) return e.cluster;
  if (e instanceof ReportedFailure && e.clusters.length > 0) return [...e.clusters].sort().join(',');
  return undefined;
}

export interface FailureLimit {
  /** Lines logged per key in one window; the rest are counted and logged at debug only. */
  burst: number;
  windowMs: number;
}

/** Three warnings per cluster and kind of failure every five minutes. */
export const DEFAULT_FAILURE_LIMIT: FailureLimit = { burst: 3, windowMs: 5 * 60_000 };

/**
 * Fixed-window limiter per key (cluster + kind): the first `burst` failures of a window are logged, the
 * others only counted; the first line of the next window says how many were left out.
 */
export class FailureLogLimiter {
  readonly limit: FailureLimit;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; logged: number; suppressed: number }>();

  constructor(limit: FailureLimit = DEFAULT_FAILURE_LIMIT, now: () => number = () => performance.now()) {
    this.limit = limit;
    this.#now = now;
  }

  /** Whether to log this failure, and how many of its key were left out since the last line logged. */
  admit(key: string): { log: boolean; suppressed: number } {
    const now = this.#now();
    let w = this.#windows.get(key);
    if (!w || now - w.start >= this.limit.windowMs) {
      const suppressed = w?.suppressed ?? 0;
      if (this.#windows.size >= 10_000) this.#evict(now);
      w = { start: now, logged: 1, suppressed: 0 };
      this.#windows.set(key, w);
      return { log: true, suppressed };
    }
    if (w.logged < this.limit.burst) {
      w.logged++;
      return { log: true, suppressed: 0 };
    }
    w.suppressed++;
    return { log: false, suppressed: 0 };
  }

  /** Keeps the map bounded when clusters come and go: windows that ended are dropped. */
  #evict(now: number): void {
    for (const [key, w] of this.#windows) {
      if (now - w.start >= this.limit.windowMs) this.#windows.delete(key);
    }
  }
}

/** The process-wide limiter: every controller's failures for one cluster share one budget. */
export const failureLogLimiter = new FailureLogLimiter();

export interface FailureLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface FailureReport {
  /** The member (or host) the failure came from; taken from the error when the client named it. */
  cluster?: string;
  err: unknown;
  /** The kind when the caller knows better than the error (an operation that hit its own deadline). */
  kind?: FailureKind;
  /** Context: object, op, resource, key... */
  fields?: Record<string, unknown>;
  /** A state change (reachable → not), logged once by its caller: never left out, and not counted. */
  transition?: boolean;
  /** The logger's own bindings already name the cluster: do not repeat the field. */
  clusterBound?: boolean;
}

/**
 * Logs one failure: expected ones as a rate-limited warning with the error's message (`err`), the cluster and
 * the kind (`failure`); unexpected ones as an error with the stack (`err.stack`), rate-limited as well so a
 * bug in a hot loop cannot flood the log either. What the limiter leaves out is still logged at debug.
 */
export function logFailure(
  log: FailureLogger,
  msg: string,
  report: FailureReport,
  limiter: FailureLogLimiter = failureLogLimiter,
): void {
  const kind = report.kind ?? classifyFailure(report.err);
  const cluster = report.cluster ?? failureCluster(report.err);
  const named = cluster !== undefined && !report.clusterBound;
  const base = { ...(named ? { cluster } : {}), ...report.fields };
  const expected = kind !== undefined;
  const fields = expected
    ? { ...base, failure: kind, err: errorMessage(report.err) }
    : { ...base, err: report.err instanceof Error ? report.err : new Error(String(report.err)) };
  const admitted = report.transition
    ? { log: true, suppressed: 0 }
    : limiter.admit(`${cluster ?? ''}\u0000${kind ?? 'unexpected'}`);
  try {
    if (!admitted.log) {
      log.debug(expected ? fields : { ...base, err: errorMessage(report.err) }, msg);
    } else {
      const line = admitted.suppressed > 0 ? { ...fields, suppressed: admitted.suppressed } : fields;
      if (expected) log.warn(line, msg);
      else log.error(line, msg);
    }
  } catch {
    // A broken logger must not turn a logged failure into a crash.
  }
}
