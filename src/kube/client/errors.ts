/** A non-2xx answer from a Kubernetes API server, with the fields of its `Status` body. */
export class ApiError extends Error {
  readonly statusCode: number;
  /** `Status.reason`, e.g. NotFound, AlreadyExists, Conflict, Expired; empty when the body was not a Status. */
  readonly reason: string;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds: number | undefined;
  /** The name of the client (cluster) that got this answer, set by KubeClient; for logs. */
  cluster: string | undefined;

  constructor(opts: {
    statusCode: number;
    reason: string;
    message: string;
    method: string;
    path: string;
    retryAfterSeconds?: number;
  }) {
    super(opts.message);
    this.name = 'ApiError';
    this.statusCode = opts.statusCode;
    this.reason = opts.reason;
    this.method = opts.method;
    this.path = opts.path;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  static fromResponse(
    method: string,
    path: string,
    statusCode: number,
    bodyText: string,
    retryAfterSeconds?: number,
  ): ApiError {
    let reason = '';
    let message = bodyText.trim().slice(0, 500) || `HTTP ${statusCode}`;
    try {
      const status = JSON.parse(bodyText) as { kind?: string; reason?: string; message?: string };
      if (status && status.kind === 'Status') {
        reason = status.reason ?? '';
        message = status.message || message;
      }
    } catch {
      // Not JSON (e.g. a proxy error page): keep the raw text as the message.
    }
    return new ApiError({ statusCode, reason, message, method, path, retryAfterSeconds });
  }
}

/** A request that never got an HTTP answer: refused, reset, timed out, TLS failure. */
export class TransportError extends Error {
  readonly method: string;
  readonly url: string;
  /** The name of the client (cluster) whose request failed, set by KubeClient; for logs. */
  cluster: string | undefined;
  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url}: ${describeCause(cause)}`, { cause });
    this.name = 'TransportError';
    this.method = method;
    this.url = url;
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    return code && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
  }
  return String(cause);
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.statusCode === 404;
export const isAlreadyExists = (e: unknown): boolean =>
  e instanceof ApiError && e.statusCode === 409 && e.reason === 'AlreadyExists';
export const isConflict = (e: unknown): boolean =>
  e instanceof ApiError && e.statusCode === 409 && e.reason !== 'AlreadyExists';
export const isGone = (e: unknown): boolean =>
  e instanceof ApiError && (e.statusCode === 410 || e.reason === 'Expired' || e.reason === 'Gone');
export const isForbidden = (e: unknown): boolean => e instanceof ApiError && e.statusCode === 403;
export const isUnauthorized = (e: unknown): boolean => e instanceof ApiError && e.statusCode === 401;
/**
 * The 403 the NamespaceLifecycle admission plugin answers to a create in a namespace being deleted ("unable
 * to create new content in namespace x because it is being terminated"): expected, unlike an RBAC denial.
 */
export const isNamespaceTerminating = (e: unknown): boolean =>
  isForbidden(e) && /because it is being terminated/.test((e as ApiError).message);

/** One readable line for logs, events and CLI errors. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
