import {
  apiVersionOf,
  groupQualifiedName,
  isGone,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  resourcePath,
} from '../../kube/client/index.ts';
import { Backoff, sleep } from '../../util/backoff.ts';
import { logFailure } from '../failure-log.ts';
import { type Logger, silentLogger } from '../logger.ts';
import { informerEvents } from '../metrics.ts';
import { MapStore, objectKey, type Store } from './store.ts';
import type { Transform } from './transform.ts';

export interface EventHandlers<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  client: KubeClient;
  type: ResourceType;
  /** Watch one namespace only; all namespaces when unset. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  logger?: Logger;
  /**
   * A watch that delivers nothing for this long is treated as silently dead and re-opened. By default its
   * own server-side timeout plus 30 s: the API server ends every watch at that timeout, and it sends no
   * bookmark on a watch of a resource nobody changes (the watch cache has no newer resourceVersion to
   * report), so a shorter window only re-opens healthy quiet watches. A connection that died is found
   * sooner, by the client's HTTP/2 PING (every 30 s by default, `KubeClientOptions.pingIntervalMs`: an
   * unanswered PING resets the connection and every watch on it), as client-go finds it with its HTTP/2
   * health check.
   */
  inactivityMs?: number;
  /** Bounds for the reconnect backoff after errors. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /**
   * What the cache keeps of each object (`withoutManagedFields`, say): applied to every listed and watched
   * object and to every own write's answer before the store and the handlers see it.
   */
  transform?: Transform;
}

/** What an own write wrote (`Informer.ownWrite`): the object, and the resourceVersion it replaced. */
export interface OwnWrite<T extends KubeObject> {
  object: T;
  /** Undefined for a create. */
  replaced: string | undefined;
}

/**
 * Told the watch event of an own write instead of the handlers: a cache shared by several readers tells the
 * others, which did not make the write.
 */
export type OnOwnEcho<T extends KubeObject> = (obj: T) => void;

/** An event of an object with a write of ours in flight, reported once the write is answered. */
interface HeldEvent<T extends KubeObject> {
  obj: T;
  emit: () => void;
}

/** A write of ours already in the store whose watch event has not arrived yet. */
interface AssumedWrite<T extends KubeObject> {
  resourceVersion: string;
  onEcho: OnOwnEcho<T> | undefined;
}

/**
 * A reflector plus cache, like client-go's shared informer: list, then watch from the list's
 * resourceVersion with bookmarks; relist on 410 Gone; reconnect with jittered backoff on any other error
 * (client-node's informer stops for good there); re-open watches that stall silently.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  readonly #store = new MapStore<T>();
  readonly #opts: InformerOptions;
  readonly #handlers: EventHandlers<T>[] = [];
  readonly #log: Logger;
  readonly #abort = new AbortController();
  readonly #resource: string;
  #synced = false;
  #lastError: unknown;
  #syncWaiters: Array<() => void> = [];
  /**
   * Key → the resourceVersions of our own writes already in the store (`assume`) whose watch events have not
   * arrived yet, oldest first. Events arrive in order, so an event of any other resourceVersion is someone
   * else's change, made after them: the store follows the watch again.
   */
  readonly #assumed = new Map<string, AssumedWrite<T>[]>();
  /** Key → our writes of it in flight (`ownWrite`), and the events of that key held back meanwhile. */
  readonly #inFlight = new Map<string, { writes: number; held: HeldEvent<T>[] }>();
  #running: Promise<void> | undefined;

  constructor(opts: InformerOptions) {
    this.#opts = opts;
    this.store = this.#store;
    this.#resource = groupQualifiedName(opts.type.plural, opts.type.group);
    this.#log = (opts.logger ?? silentLogger).child({ cluster: opts.client.name, resource: this.#resource });
  }

  /** Adds handlers; returns the function that removes them again. */
  addHandlers(handlers: EventHandlers<T>): () => void {
    this.#handlers.push(handlers);
    // Late subscribers see the current cache as adds, as client-go does.
    if (this.#synced) for (const obj of this.#store.list()) handlers.onAdd?.(obj);
    return () => {
      const i = this.#handlers.indexOf(handlers);
      if (i >= 0) this.#handlers.splice(i, 1);
    };
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /**
   * Records the result of this process's own write before its watch event arrives, so that a read in
   * between (the next reconcile) does not act on what the write replaced: a PUT with the old
   * resourceVersion (409) or a second POST. Only applied while the cache still holds exactly what the write
   * replaced (`previousResourceVersion`, or nothing for a create); no handler is called, and the watch
   * event of the same resourceVersion is then not reported as a change. Writes in a row (a finalizer, then
   * the status) can each be assumed: the watch events of the earlier ones then neither count as changes nor
   * put the older object back. Returns whether it was applied.
   */
  assume(written: T, previousResourceVersion: string | undefined, onEcho?: OnOwnEcho<T>): boolean {
    const rv = written.metadata.resourceVersion;
    if (!this.#synced || rv === undefined) return false;
    const key = objectKey(written);
    const current = this.#store.get(key);
    if (current?.metadata.resourceVersion !== previousResourceVersion) return false;
    this.#store.set(this.#transform(written));
    const pending = this.#assumed.get(key);
    const assumed = { resourceVersion: rv, onEcho };
    if (pending) pending.push(assumed);
    else this.#assumed.set(key, [assumed]);
    return true;
  }

  /**
   * Makes this process's own write of the object at `key` (`write`; `written` says what it wrote, and the
   * resourceVersion it replaced, or undefined when it wrote nothing), so that its watch event is never
   * reported as a change, whichever arrives first: the response (the write is then assumed, see `assume`),
   * or the watch event (it is held, with every other event of that key, until the write is answered, then
   * dropped as the write's own; the others are reported then). Over loopback the watch event often wins.
   */
  async ownWrite<R>(
    key: string,
    write: () => Promise<R>,
    written: (r: R) => OwnWrite<T> | undefined,
    onEcho?: OnOwnEcho<T>,
  ): Promise<R> {
    if (!this.#synced) return write();
    let flight = this.#inFlight.get(key);
    if (!flight) {
      flight = { writes: 0, held: [] };
      this.#inFlight.set(key, flight);
    }
    flight.writes++;
    let result: OwnWrite<T> | undefined;
    try {
      const r = await write();
      result = written(r);
      return r;
    } finally {
      this.#settle(key, flight, result, onEcho);
    }
  }

  #settle(
    key: string,
    flight: { writes: number; held: HeldEvent<T>[] },
    result: OwnWrite<T> | undefined,
    onEcho: OnOwnEcho<T> | undefined,
  ): void {
    flight.writes--;
    const rv = result?.object.metadata.resourceVersion;
    const echo = rv === undefined ? -1 : flight.held.findIndex((h) => h.obj.metadata.resourceVersion === rv);
    const [echoed] = echo >= 0 ? flight.held.splice(echo, 1) : [];
    if (echoed) this.#tellEcho(onEcho, echoed.obj);
    if (flight.writes === 0) {
      this.#inFlight.delete(key);
      for (const h of flight.held) h.emit();
    }
    // Not seen yet: the store takes the write now, and its event is recognised when it comes.
    if (result && !echoed) this.assume(result.object, result.replaced, onEcho);
  }

  #tellEcho(onEcho: OnOwnEcho<T> | undefined, obj: T): void {
    if (onEcho) this.#safely(() => onEcho(obj));
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#running;
    for (const w of this.#syncWaiters.splice(0)) w();
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * The error of the last failed list or watch, cleared by the next success: lets a controller report why
   * a cache never synced (e.g. 404 when a member does not serve the type) instead of just waiting.
   */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** Resolves once the first list has been loaded (or when the informer stops). */
  waitForSync(): Promise<void> {
    if (this.#synced || this.#abort.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    const backoff = new Backoff(this.#opts.backoffInitialMs ?? 800, this.#opts.backoffMaxMs ?? 30_000);
    let resourceVersion: string | undefined;
    const path = resourcePath(this.#opts.type, { namespace: this.#opts.namespace });
    while (!signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          resourceVersion = await this.#list();
          informerEvents.inc({ cluster: this.#opts.client.name, resource: this.#resource, event: 'list' });
        }
        let rv = resourceVersion;
        // Random server-side timeout so that many watches do not all reconnect at once.
        const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
        const ended = await this.#opts.client.watch<T>(
          path,
          {
            resourceVersion: rv,
            allowWatchBookmarks: true,
            timeoutSeconds,
            labelSelector: this.#opts.labelSelector,
            fieldSelector: this.#opts.fieldSelector,
          },
          (event) => {
            backoff.reset();
            this.#lastError = undefined;
            const next = event.object.metadata?.resourceVersion;
            if (event.type !== 'BOOKMARK') this.#apply(event.type, this.#transform(event.object));
            if (next) rv = next;
            resourceVersion = rv;
          },
          { signal, inactivityMs: this.#opts.inactivityMs ?? (timeoutSeconds + 30) * 1000 },
        );
        resourceVersion = rv;
        if (ended === 'stalled') {
          this.#log.warn('watch delivered nothing within the inactivity window; re-opening it');
          informerEvents.inc({ cluster: this.#opts.client.name, resource: this.#resource, event: 'stalled' });
        } else if (ended === 'closed') {
          informerEvents.inc({
            cluster: this.#opts.client.name,
            resource: this.#resource,
            event: 'reconnect',
          });
        }
      } catch (e) {
        if (signal.aborted) break;
        if (isGone(e)) {
          // Our resourceVersion was compacted away: only a fresh list can resynchronise the cache.
          this.#log.info('resourceVersion too old (410 Gone); relisting');
          informerEvents.inc({ cluster: this.#opts.client.name, resource: this.#resource, event: 'relist' });
          resourceVersion = undefined;
          continue;
        }
        this.#lastError = e;
        informerEvents.inc({ cluster: this.#opts.client.name, resource: this.#resource, event: 'error' });
        const delay = backoff.next();
        logFailure(this.#log, 'list/watch failed; retrying', {
          cluster: this.#opts.client.name,
          clusterBound: true,
          err: e,
          fields: { retryInMs: delay },
        });
        await sleep(delay, signal);
      }
    }
  }

  async #list(): Promise<string | undefined> {
    const list = await this.#opts.client.listAll<T>(this.#opts.type, {
      namespace: this.#opts.namespace,
      labelSelector: this.#opts.labelSelector,
      fieldSelector: this.#opts.fieldSelector,
    });
    const apiVersion = apiVersionOf(this.#opts.type);
    const seen = new Set<string>();
    for (const listed of list.items) {
      const item = this.#transform(listed);
      // List items carry no kind/apiVersion; set them so cached objects look like watched ones.
      item.apiVersion ??= apiVersion;
      if (this.#opts.type.kind) item.kind ??= this.#opts.type.kind;
      seen.add(objectKey(item));
      this.#apply('ADDED', item);
    }
    for (const key of this.#store.keys()) {
      if (!seen.has(key)) {
        const old = this.#store.get(key);
        if (old) this.#apply('DELETED', old);
      }
    }
    this.#lastError = undefined;
    if (!this.#synced) {
      this.#synced = true;
      for (const w of this.#syncWaiters.splice(0)) w();
    }
    return list.metadata.resourceVersion;
  }

  #transform(obj: T): T {
    return this.#opts.transform ? this.#opts.transform(obj) : obj;
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR', obj: T): void {
    const key = objectKey(obj);
    let emit: (() => void) | undefined;
    if (type === 'DELETED') {
      this.#assumed.delete(key);
      if (this.#store.delete(key)) emit = () => this.#emit((h) => h.onDelete?.(obj));
    } else if (!this.#isEchoOfOwnWrite(key, obj)) {
      const old = this.#store.set(obj);
      if (!old) emit = () => this.#emit((h) => h.onAdd?.(obj));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion)
        emit = () => this.#emit((h) => h.onUpdate?.(old, obj));
    }
    if (!emit) return;
    // The store shows it at once; the handlers hear of it once our write of the object is answered.
    const flight = this.#inFlight.get(key);
    if (flight) flight.held.push({ obj, emit });
    else emit();
  }

  /** Whether `obj` is the watch event of a write `assume` put into the store already (then consumed). */
  #isEchoOfOwnWrite(key: string, obj: T): boolean {
    const pending = this.#assumed.get(key);
    if (!pending) return false;
    const i = pending.findIndex((a) => a.resourceVersion === obj.metadata.resourceVersion);
    if (i < 0) {
      this.#assumed.delete(key);
      return false;
    }
    const [echoed] = pending.splice(0, i + 1).slice(-1);
    this.#tellEcho(echoed?.onEcho, obj);
    // The last of them: the store takes the watch's copy (the same object). Otherwise it holds a later one.
    if (pending.length === 0) {
      this.#assumed.delete(key);
      this.#store.set(obj);
    }
    return true;
  }

  #emit(fn: (h: EventHandlers<T>) => void): void {
    for (const h of [...this.#handlers]) this.#safely(() => fn(h));
  }

  #safely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      // A handler bug must not kill the watch loop for every other handler.
      logFailure(this.#log, 'event handler threw', {
        cluster: this.#opts.client.name,
        clusterBound: true,
        err: e,
      });
    }
  }
}
