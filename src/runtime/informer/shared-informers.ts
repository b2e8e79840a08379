import type { KubeClient, KubeObject, ResourceType } from '../../kube/client/index.ts';
import { type Logger, silentLogger } from '../logger.ts';
import { type EventHandlers, Informer } from './informer.ts';
import type { Store } from './store.ts';
import type { Transform } from './transform.ts';

export interface SharedInformerSpec {
  type: ResourceType;
  namespace?: string;
  labelSelector?: string;
  /** What the cache keeps of each object; readers with another transform get an informer of their own. */
  transform?: Transform;
}

// Transforms are told apart by identity, not by name: two anonymous functions share the name ''.
const transformIds = new WeakMap<Transform, number>();
let transformsSeen = 0;
function transformId(transform: Transform): number {
  let id = transformIds.get(transform);
  if (id === undefined) {
    id = ++transformsSeen;
    transformIds.set(transform, id);
  }
  return id;
}

/** The text of an informer spec: the key that readers of the same informer share. */
export function informerSpecKey(spec: SharedInformerSpec): string {
  const t = spec.type;
  const transform = spec.transform ? `|transform#${transformId(spec.transform)}` : '';
  return `${t.group}/${t.version}/${t.plural}|${spec.namespace ?? ''}|${spec.labelSelector ?? ''}${transform}`;
}

/** One reader of a shared informer. */
export interface SharedInformerReader<T extends KubeObject> {
  readonly store: Store<T>;
  hasSynced(): boolean;
  waitForSync(): Promise<void>;
  /** This reader is done; the informer stops when no reader is left. */
  close(): Promise<void>;
}

/**
 * client-go's SharedInformerFactory for one cluster's client: one informer per type × namespace × label
 * selector however many controllers read it, started on the first reader and stopped after the last.
 */
export class SharedInformers {
  readonly #client: KubeClient;
  readonly #log: Logger;
  readonly #shared = new Map<string, { informer: Informer<KubeObject>; readers: number }>();

  constructor(client: KubeClient, logger?: Logger) {
    this.#client = client;
    this.#log = logger ?? silentLogger;
  }

  open<T extends KubeObject>(
    spec: SharedInformerSpec,
    handlers: EventHandlers<T> = {},
  ): SharedInformerReader<T> {
    const key = informerSpecKey(spec);
    let entry = this.#shared.get(key);
    if (!entry) {
      entry = {
        informer: new Informer<KubeObject>({ client: this.#client, ...spec, logger: this.#log }),
        readers: 0,
      };
      this.#shared.set(key, entry);
      entry.informer.start();
    }
    const shared = entry;
    const informer = shared.informer as unknown as Informer<T>;
    shared.readers++;
    const remove = informer.addHandlers(handlers);
    let closed = false;
    return {
      store: informer.store,
      hasSynced: () => informer.hasSynced(),
      waitForSync: () => informer.waitForSync(),
      close: async () => {
        if (closed) return;
        closed = true;
        remove();
        if (--shared.readers > 0) return;
        if (this.#shared.get(key) === shared) this.#shared.delete(key);
        await informer.stop();
      },
    };
  }
}
