// The resource templates: plain objects on the federation API server, watched for exactly the types some
// policy selects (Karmada's detector watches every type and filters; a type nobody selects costs nothing
// here). A type is named by apiVersion and kind, as selectors name it, and resolved through the API
// server's discovery, so CRDs are found the moment they are installed.

import {
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../kube/client/index.ts';
import type { EventHandlers } from '../../runtime/informer/index.ts';
import type { SharedInformerReader, SharedInformers } from '../../runtime/informer/shared-informers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';

/** A template type as policies name it. */
export interface TemplateKind {
  apiVersion: string;
  kind: string;
}

export type TemplateType = ResourceType & { kind: string };

/** `apiVersion|kind`: the key of a template type. */
export function kindKey(k: TemplateKind): string {
  return `${k.apiVersion}|${k.kind}`;
}

export function parseKindKey(key: string): TemplateKind {
  const i = key.indexOf('|');
  return { apiVersion: key.slice(0, i), kind: key.slice(i + 1) };
}

/** A template changed (added, updated or deleted). */
export type TemplateListener = (
  kind: TemplateKind,
  obj: KubeObject,
  change: 'add' | 'update' | 'delete',
) => void;

interface Watched {
  type: TemplateType;
  reader: SharedInformerReader<KubeObject>;
}

/** How long start-up waits for one kind's templates to load before going on without them. */
const KIND_LOAD_WAIT_MS = 30_000;

/** How often kinds that discovery does not know yet are looked up again (a CRD installed later). */
const UNRESOLVED_RETRY_MS = 5_000;

export class Templates {
  readonly #host: KubeClient;
  readonly #informers: SharedInformers;
  readonly #log: Logger;
  readonly #watched = new Map<string, Watched>();
  /** Kinds wanted but not (yet) served: why. */
  readonly #unresolved = new Map<string, string>();
  readonly #listeners = new Set<TemplateListener>();
  #wanted = new Set<string>();
  #retry: NodeJS.Timeout | undefined;
  #resolving: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(opts: { host: KubeClient; informers: SharedInformers; logger?: Logger }) {
    this.#host = opts.host;
    this.#informers = opts.informers;
    this.#log = opts.logger ?? silentLogger;
  }

  addListener(l: TemplateListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  /**
   * Watches exactly these kinds from now on: new ones are resolved and watched, ones no longer wanted
   * stop. Resolves once every wanted kind is watched or known to be unserved.
   */
  want(kinds: Iterable<string>): Promise<void> {
    const next = new Set(kinds);
    if (sameSet(next, this.#wanted)) return this.#resolving;
    this.#wanted = next;
    this.#resolving = this.#resolving
      .then(() => this.#sync())
      .catch((e: unknown) => {
        this.#log.warn({ err: errorMessage(e) }, 'cannot update the watched template kinds');
      });
    return this.#resolving;
  }

  /** Every wanted kind resolved (watched, or known not to be served) and every watched cache loaded. */
  async loaded(): Promise<void> {
    await this.#resolving;
    // A kind that cannot be listed (no RBAC for it, a broken aggregated API) must not hold up the others:
    // after a while it counts as loaded, and its templates are handled once its cache does load.
    await Promise.all(
      [...this.#watched.values()].map((w) =>
        Promise.race([w.reader.waitForSync(), unrefSleep(KIND_LOAD_WAIT_MS)]),
      ),
    );
  }

  hasLoaded(): boolean {
    return [...this.#watched.values()].every((w) => w.reader.hasSynced());
  }

  async #sync(): Promise<void> {
    if (this.#stopped) return;
    for (const [key, w] of [...this.#watched]) {
      if (this.#wanted.has(key)) continue;
      this.#watched.delete(key);
      await w.reader.close();
    }
    for (const key of [...this.#unresolved.keys()]) if (!this.#wanted.has(key)) this.#unresolved.delete(key);
    for (const key of this.#wanted) {
      if (this.#watched.has(key)) continue;
      const kind = parseKindKey(key);
      let type: TemplateType | undefined;
      try {
        type = await resolveKind(this.#host, kind);
      } catch (e) {
        this.#unresolved.set(key, `cannot discover ${kind.apiVersion}: ${errorMessage(e)}`);
        continue;
      }
      if (!type) {
        this.#unresolved.set(key, `the API server does not serve kind ${kind.kind} in ${kind.apiVersion}`);
        continue;
      }
      this.#unresolved.delete(key);
      this.#watched.set(key, {
        type,
        reader: this.#informers.open<KubeObject>({ type }, this.#handlers(kind)),
      });
    }
    clearTimeout(this.#retry);
    if (this.#unresolved.size > 0 && !this.#stopped) {
      this.#retry = setTimeout(() => {
        this.#resolving = this.#resolving.then(() => this.#sync()).catch(() => {});
      }, UNRESOLVED_RETRY_MS);
      this.#retry.unref();
      this.#log.debug({ unresolved: [...this.#unresolved.values()] }, 'template kinds not served yet');
    }
  }

  #handlers(kind: TemplateKind): EventHandlers<KubeObject> {
    const tell = (obj: KubeObject, change: 'add' | 'update' | 'delete') => {
      for (const l of this.#listeners) l(kind, obj, change);
    };
    return {
      onAdd: (o) => tell(o, 'add'),
      onUpdate: (_, o) => tell(o, 'update'),
      onDelete: (o) => tell(o, 'delete'),
    };
  }

  /** The resolved type of a watched kind. */
  typeOf(kind: TemplateKind): TemplateType | undefined {
    return this.#watched.get(kindKey(kind))?.type;
  }

  /** Why a wanted kind is not watched; undefined when it is (or is not wanted). */
  unresolvedReason(kind: TemplateKind): string | undefined {
    return this.#unresolved.get(kindKey(kind));
  }

  /** Whether the kind is watched and its cache loaded. */
  synced(kind: TemplateKind): boolean {
    return this.#watched.get(kindKey(kind))?.reader.hasSynced() ?? false;
  }

  /** The cached template (shared: copy before changing it). */
  get(kind: TemplateKind, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#watched.get(kindKey(kind))?.reader.store.get(namespace ? `${namespace}/${name}` : name);
  }

  list(kind: TemplateKind, namespace?: string): KubeObject[] {
    return this.#watched.get(kindKey(kind))?.reader.store.list(namespace) ?? [];
  }

  /** Every watched kind. */
  kinds(): TemplateKind[] {
    return [...this.#watched.keys()].map(parseKindKey);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#resolving;
    await Promise.all([...this.#watched.values()].map((w) => w.reader.close()));
    this.#watched.clear();
  }
}

/** The resource of a kind in exactly that apiVersion, from the API server's discovery. */
export async function resolveKind(host: KubeClient, kind: TemplateKind): Promise<TemplateType | undefined> {
  const slash = kind.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : kind.apiVersion.slice(0, slash);
  const version = slash < 0 ? kind.apiVersion : kind.apiVersion.slice(slash + 1);
  const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  let list: { resources?: Array<{ name: string; kind: string; namespaced: boolean }> };
  try {
    list = await host.request('GET', path);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const r = list.resources?.find((x) => x.kind === kind.kind && !x.name.includes('/'));
  return r ? { group, version, plural: r.name, namespaced: r.namespaced, kind: kind.kind } : undefined;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

/** A wait that does not keep the process alive. */
function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
