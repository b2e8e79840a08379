// Event handlers that turn an informer's events into queue keys, like controller-runtime's
// handler.EnqueueRequestForObject and handler.EnqueueRequestsFromMapFunc. Updates look at the new object.
import type { KubeObject } from '../kube/client/index.ts';
import { type EventHandlers, objectKey } from './informer/index.ts';

/** Adds a key to a controller's queue, after `delayMs` when given. */
export type Enqueue = (key: string, delayMs?: number) => void;

/** Builds an informer's handlers for one controller's queue. */
export type EventHandler<T extends KubeObject> = (enqueue: Enqueue) => EventHandlers<T>;

export interface HandlerOptions {
  /** Let the events settle first (e.g. a burst of member events). */
  delayMs?: number;
}

/** Enqueues the object itself, by `namespace/name` (or `name`). */
export function enqueueObject<T extends KubeObject>(opts: HandlerOptions = {}): EventHandler<T> {
  return enqueueMapped((o) => [objectKey(o)], opts);
}

/** Enqueues the keys `map` returns for the object: other objects that depend on it. */
export function enqueueMapped<T extends KubeObject>(
  map: (obj: T) => readonly string[],
  opts: HandlerOptions = {},
): EventHandler<T> {
  return (enqueue) => {
    const handle = (obj: T) => {
      for (const key of map(obj)) enqueue(key, opts.delayMs);
    };
    return { onAdd: handle, onUpdate: (_old, obj) => handle(obj), onDelete: handle };
  };
}
