import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
import { sleep } from '../../util/backoff.ts';
import { TokenBucket } from '../../util/token-bucket.ts';
import type { RestConfig } from '../kubeconfig/index.ts';
import { CredentialSource } from './auth.ts';
import { ApiError, TransportError } from './errors.ts';
import { type ResourceType, resourcePath, withQuery } from './paths.ts';
import { joinServerUrl } from './server-url.ts';
import type { KubeObject, ObjectList, WatchEvent } from './types.ts';

export interface KubeClientOptions {
  /** A short name for logs and metrics, usually the cluster name. */
  name?: string;
  /** Per-request timeout for ordinary (non-watch) calls. */
  timeoutMs?: number;
  qps?: number;
  burst?: number;
  /** How often a 429 (API priority and fairness) is retried after its Retry-After before giving up. */
  maxThrottleRetries?: number;
  userAgent?: string;
  /**
   * Connections kept open to this server. Requests and watches are HTTP/2 streams (undici negotiates h2 on
   * TLS, as client-go does), so a watch does not hold a connection of its own.
   */
  connections?: number;
  /**
   * How often each HTTP/2 connection is PINGed. A PING still unanswered at the next one resets the connection
   * and fails every request and watch on it, so a server that hung or a path that silently dropped is found
   * within two intervals, as client-go finds it with its HTTP/2 health check (30 s read idle, 15 s PING
   * timeout). Default 30 s.
   */
  pingIntervalMs?: number;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface RawResponse {
  statusCode: number;
  body: string;
}

/** Observes every request: the metrics layer plugs in here. */
export type RequestObserver = (info: {
  cluster: string;
  method: string;
  statusCode: number | undefined;
  seconds: number;
}) => void;

let requestObserver: RequestObserver | undefined;
export function setRequestObserver(observer: RequestObserver | undefined): void {
  requestObserver = observer;
}

/**
 * A raw-JSON client for one cluster. It owns one keep-alive connection pool (client-node opens a new TLS
 * connection per request), client-side throttling, request timeouts and 429 handling.
 */
export class KubeClient {
  readonly name: string;
  readonly config: RestConfig;
  readonly #options: Required<Omit<KubeClientOptions, 'name'>>;
  readonly #credentials: CredentialSource;
  /** Client-side QPS/burst like client-go's; absent when qps <= 0 (no limit). */
  readonly #limiter: TokenBucket | undefined;
  #dispatcher: Dispatcher | undefined;
  #dispatcherCertKey: string | undefined;

  constructor(config: RestConfig, options: KubeClientOptions = {}) {
    this.config = config;
    this.name = options.name ?? config.contextName;
    this.#options = {
      timeoutMs: options.timeoutMs ?? 30_000,
      qps: options.qps ?? 50,
      burst: options.burst ?? 100,
      maxThrottleRetries: options.maxThrottleRetries ?? 3,
      userAgent: options.userAgent ?? 'kubefed-ts',
      connections: options.connections ?? 16,
      pingIntervalMs: options.pingIntervalMs ?? 30_000,
    };
    this.#credentials = new CredentialSource(config);
    this.#limiter =
      this.#options.qps > 0
        ? new TokenBucket(this.#options.qps, Math.max(1, this.#options.burst))
        : undefined;
  }

  /** This client's client-side rate limit (qps <= 0: none). */
  get rateLimit(): { qps: number; burst: number } {
    return { qps: this.#options.qps, burst: this.#options.burst };
  }

  /**
   * A client for the same server and options with its own rate limiter and connection pool, as client-go
   * gives every clientset built from one rest.Config: KubeFed's controllers each build their own, so one
   * busy controller does not spend the others' QPS.
   */
  fork(options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(this.config, { name: this.name, ...this.#options, ...options });
  }

  #getDispatcher(certData?: Buffer, keyData?: Buffer): Dispatcher {
    const cert = certData ?? this.config.certData;
    const key = keyData ?? this.config.keyData;
    const certKey = cert ? cert.toString('base64').slice(-32) : '';
    if (this.#dispatcher && this.#dispatcherCertKey === certKey) return this.#dispatcher;
    void this.#dispatcher?.close();
    const c = this.config;
    const connect = {
      ca: c.caData,
      cert,
      key,
      rejectUnauthorized: !c.insecureSkipTLSVerify,
      servername: c.tlsServerName,
      keepAlive: true,
      ...(c.skipServerNameCheck ? { checkServerIdentity: () => undefined } : {}),
    };
    const common = {
      connections: this.#options.connections,
      keepAliveTimeout: 30_000,
      // Watches are long-lived; ordinary calls get their own timeout through an AbortSignal.
      headersTimeout: 0,
      bodyTimeout: 0,
      h2Options: { pingInterval: this.#options.pingIntervalMs },
    };
    this.#dispatcher = c.proxyUrl
      ? new ProxyAgent({ uri: c.proxyUrl, requestTls: connect, ...common })
      : new Agent({ connect, ...common });
    this.#dispatcherCertKey = certKey;
    return this.#dispatcher;
  }

  async #send(
    method: string,
    path: string,
    opts: RequestOptions & { accept?: string },
  ): Promise<{
    statusCode: number;
    headers: Record<string, string | string[] | undefined>;
    body: Dispatcher.ResponseData['body'];
  }> {
    const creds = await this.#credentials.resolve();
    const dispatcher = this.#getDispatcher(creds.certData, creds.keyData);
    const headers: Record<string, string> = {
      accept: opts.accept ?? 'application/json',
      'user-agent': this.#options.userAgent,
      ...creds.headers,
    };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    // The server's path (a proxy's /k8s/clusters/<id>) prefixes every request, as in client-go.
    const url = joinServerUrl(this.config.server, path);
    try {
      const res = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher,
        signal: opts.signal,
      });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    } catch (e) {
      throw this.#tag(new TransportError(method, url, e));
    }
  }

  /** Sends one request and returns the parsed JSON body; non-2xx answers throw ApiError. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.requestRaw(method, path, opts);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw this.#tag(ApiError.fromResponse(method, path, res.statusCode, res.body));
    }
    return (res.body ? JSON.parse(res.body) : {}) as T;
  }

  /** Like request, but returns any status code with the body text (for /healthz and /version probes). */
  async requestRaw(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    const start = performance.now();
    let statusCode: number | undefined;
    try {
      for (let attempt = 0; ; attempt++) {
        await this.#throttle();
        // Not AbortSignal.timeout: its timer cannot be cancelled, so every request would still fire an abort
        // (and build a DOMException) long after it finished — CPU spent at idle after each burst.
        const timeoutMs = opts.timeoutMs ?? this.#options.timeoutMs;
        const timeoutCtl = new AbortController();
        const timer = setTimeout(
          () =>
            timeoutCtl.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
          timeoutMs,
        );
        const signal = opts.signal ? AbortSignal.any([opts.signal, timeoutCtl.signal]) : timeoutCtl.signal;
        const { res, text } = await (async () => {
          const res = await this.#send(method, path, { ...opts, signal });
          const text = await res.body.text().catch((e: unknown) => {
            throw this.#tag(new TransportError(method, joinServerUrl(this.config.server, path), e));
          });
          return { res, text };
        })().finally(() => clearTimeout(timer));
        statusCode = res.statusCode;
        if (res.statusCode === 429 && attempt < this.#options.maxThrottleRetries) {
          // API priority and fairness: the server asks us to come back later; honour it, bounded.
          const retryAfter = Number(res.headers['retry-after'] ?? 1);
          await sleep(Math.min(Math.max(retryAfter, 1), 10) * 1000, opts.signal);
          continue;
        }
        return { statusCode: res.statusCode, body: text };
      }
    } finally {
      requestObserver?.({
        cluster: this.name,
        method,
        statusCode,
        seconds: (performance.now() - start) / 1000,
      });
    }
  }

  get<T extends KubeObject>(type: ResourceType, name: string, namespace?: string): Promise<T> {
    return this.request<T>('GET', resourcePath(type, { namespace, name }));
  }

  list<T extends KubeObject>(
    type: ResourceType,
    opts: {
      namespace?: string;
      labelSelector?: string;
      fieldSelector?: string;
      limit?: number;
      continue?: string;
    } = {},
  ): Promise<ObjectList<T>> {
    const { namespace, ...query } = opts;
    return this.request<ObjectList<T>>('GET', withQuery(resourcePath(type, { namespace }), query));
  }

  /** Lists every page of a collection into one list. */
  async listAll<T extends KubeObject>(
    type: ResourceType,
    opts: { namespace?: string; labelSelector?: string; fieldSelector?: string; pageSize?: number } = {},
  ): Promise<ObjectList<T>> {
    const items: T[] = [];
    let cont: string | undefined;
    let last: ObjectList<T>;
    do {
      last = await this.list<T>(type, {
        namespace: opts.namespace,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.pageSize ?? 500,
        continue: cont,
      });
      items.push(...last.items);
      cont = last.metadata.continue || undefined;
    } while (cont);
    return { ...last, items };
  }

  create<T extends KubeObject>(
    type: ResourceType,
    obj: T,
    opts: { namespace?: string; fieldManager?: string } = {},
  ): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata.namespace;
    return this.request<T>(
      'POST',
      withQuery(resourcePath(type, { namespace }), { fieldManager: opts.fieldManager }),
      {
        body: obj,
      },
    );
  }

  update<T extends KubeObject>(
    type: ResourceType,
    obj: T,
    opts: { subresource?: string; fieldManager?: string } = {},
  ): Promise<T> {
    const path = resourcePath(type, {
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
      subresource: opts.subresource,
    });
    return this.request<T>('PUT', withQuery(path, { fieldManager: opts.fieldManager }), { body: obj });
  }

  patch<T extends KubeObject>(
    type: ResourceType,
    name: string,
    patch: unknown,
    opts: {
      namespace?: string;
      patchType?: PatchType;
      subresource?: string;
      fieldManager?: string;
      force?: boolean;
    } = {},
  ): Promise<T> {
    const path = resourcePath(type, { namespace: opts.namespace, name, subresource: opts.subresource });
    return this.request<T>('PATCH', withQuery(path, { fieldManager: opts.fieldManager, force: opts.force }), {
      body: patch,
      contentType: PATCH_CONTENT_TYPES[opts.patchType ?? 'merge'],
    });
  }

  delete(
    type: ResourceType,
    name: string,
    opts: {
      namespace?: string;
      propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
      preconditions?: { uid?: string; resourceVersion?: string };
      gracePeriodSeconds?: number;
    } = {},
  ): Promise<KubeObject> {
    const body =
      opts.propagationPolicy || opts.preconditions || opts.gracePeriodSeconds !== undefined
        ? {
            apiVersion: 'v1',
            kind: 'DeleteOptions',
            propagationPolicy: opts.propagationPolicy,
            preconditions: opts.preconditions,
            gracePeriodSeconds: opts.gracePeriodSeconds,
          }
        : undefined;
    return this.request<KubeObject>('DELETE', resourcePath(type, { namespace: opts.namespace, name }), {
      body,
    });
  }

  /**
   * Opens a watch and feeds each event to onEvent until the server ends the stream, the signal aborts, or no
   * byte (not even a bookmark) arrives for inactivityMs — a watch that stalls silently is treated as ended.
   * Resolves with why it ended; a non-200 answer throws ApiError (410 Gone included).
   */
  async watch<T extends KubeObject>(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (event: WatchEvent<T>) => void,
    opts: { signal?: AbortSignal; inactivityMs?: number } = {},
  ): Promise<'closed' | 'stalled' | 'aborted'> {
    await this.#throttle();
    const stall = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stall.signal]) : stall.signal;
    const inactivityMs = opts.inactivityMs ?? 120_000;
    // One timer for the watch's life, not one per chunk: a chunk only notes the time, and the timer, when
    // it fires, waits again for whatever is left of the window since the last byte.
    let lastByte = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const quiet = performance.now() - lastByte;
      if (quiet >= inactivityMs) stall.abort(new Error('watch stalled'));
      else {
        timer = setTimeout(check, inactivityMs - quiet);
        timer.unref();
      }
    };
    timer = setTimeout(check, inactivityMs);
    timer.unref();
    const fullPath = withQuery(path, { ...query, watch: true });
    try {
      const res = await this.#send('GET', fullPath, { signal });
      if (res.statusCode !== 200) {
        const text = await res.body.text().catch(() => '');
        throw this.#tag(ApiError.fromResponse('GET', fullPath, res.statusCode, text));
      }
      let buffered = '';
      for await (const chunk of res.body) {
        lastByte = performance.now();
        buffered += (chunk as Buffer).toString('utf8');
        // Lines are cut by index and the rest kept once per chunk, not copied again after every event.
        let start = 0;
        let nl = buffered.indexOf('\n');
        while (nl >= 0) {
          const line = buffered.slice(start, nl).trim();
          start = nl + 1;
          if (line) {
            const event = JSON.parse(line) as WatchEvent<T>;
            if (event.type === 'ERROR') {
              const status = event.object as unknown as { code?: number; reason?: string; message?: string };
              throw this.#tag(
                new ApiError({
                  statusCode: status.code ?? 500,
                  reason: status.reason ?? '',
                  message: status.message ?? 'watch error',
                  method: 'WATCH',
                  path,
                }),
              );
            }
            onEvent(event);
          }
          nl = buffered.indexOf('\n', start);
        }
        buffered = buffered.slice(start);
      }
      return 'closed';
    } catch (e) {
      if (stall.signal.aborted) return 'stalled';
      if (opts.signal?.aborted) return 'aborted';
      // The stream broke mid-way (the member went away: a socket or system error code): a transport
      // failure like any other. Anything else (a handler's bug) goes up as it is.
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && (code.startsWith('UND_ERR_') || /^E[A-Z]+$/.test(code))) {
        throw this.#tag(new TransportError('GET', joinServerUrl(this.config.server, fullPath), e));
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Names this client's cluster on an error, so that whoever logs it can say which member failed. */
  #tag<E extends ApiError | TransportError>(e: E): E {
    e.cluster = this.name;
    return e;
  }

  /** Waits for this request's token: the bucket reserves it, so concurrent callers queue in order. */
  async #throttle(): Promise<void> {
    const wait = this.#limiter?.take() ?? 0;
    if (wait > 0) await sleep(wait);
  }

  async close(): Promise<void> {
    const d = this.#dispatcher;
    this.#dispatcher = undefined;
    await d?.destroy().catch(() => undefined);
  }
}
