import type { KubeObject } from '../../kube/client/index.ts';

/** `namespace/name` for namespaced objects, `name` otherwise: the key every queue and cache uses. */
export function objectKey(obj: { metadata: { namespace?: string; name?: string } }): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : (name ?? '');
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** A read-only view of an informer's cache. Objects are shared: callers must copy before mutating. */
export interface Store<T extends KubeObject> {
  get(key: string): T | undefined;
  list(namespace?: string): T[];
  keys(): string[];
}

export class MapStore<T extends KubeObject> implements Store<T> {
  readonly #items = new Map<string, T>();

  get(key: string): T | undefined {
    return this.#items.get(key);
  }
  list(namespace?: string): T[] {
    const all = [...this.#items.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }
  keys(): string[] {
    return [...this.#items.keys()];
  }
  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    return old;
  }
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    this.#items.delete(key);
    return old;
  }
}
