import { randomInt } from 'node:crypto';
import {
  CoreTypes,
  errorMessage,
  isForbidden,
  isNamespaceTerminating,
  type KubeClient,
  type KubeObject,
} from '../kube/client/index.ts';
import { type Logger, silentLogger } from './logger.ts';
import { type TypeMeta, withTypeMeta } from './type-meta.ts';

export type EventType = 'Normal' | 'Warning';

/**
 * Records core/v1 Events on host objects, like client-go's EventRecorder: a repeat of the same
 * (object, type, reason, message) bumps the count of the existing Event instead of creating another.
 * Recording is best effort: a failure is logged and never fails a reconcile.
 */
export class EventRecorder {
  readonly #client: KubeClient;
  readonly #component: string;
  readonly #log: Logger;
  readonly #recent = new Map<string, { name: string; namespace: string; count: number }>();

  constructor(client: KubeClient, component: string, logger: Logger = silentLogger) {
    this.#client = client;
    this.#component = component;
    this.#log = logger;
  }

  async record(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = obj.metadata.namespace || 'default';
    const key = [obj.metadata.uid, type, reason, message].join('\0');
    const now = new Date().toISOString();
    const seen = this.#recent.get(key);
    try {
      if (seen) {
        seen.count += 1;
        await this.#client.patch(
          CoreTypes.events,
          seen.name,
          { count: seen.count, lastTimestamp: now },
          { namespace: seen.namespace, patchType: 'merge' },
        );
        return;
      }
      // client-go names an Event <object>.<hex time>; the random suffix keeps two in one millisecond apart.
      // randomInt draws from a cached pool of random bytes; randomBytes(2) asked OpenSSL on every Event.
      const suffix = randomInt(0x10000).toString(16).padStart(4, '0');
      const name = `${obj.metadata.name}.${Date.now().toString(16)}${suffix}`;
      await this.#client.create(CoreTypes.events, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace: obj.metadata.namespace,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        type,
        reason,
        message: truncateMiddle(message, 1024),
        source: { component: this.#component },
        reportingComponent: this.#component,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
      if (this.#recent.size > 4096) this.#recent.clear();
      this.#recent.set(key, { name, namespace, count: 1 });
    } catch (e) {
      this.#recent.delete(key);
      // Events are best effort; a denial other than a terminating namespace means missing RBAC, so say it.
      const denied = isForbidden(e) && !isNamespaceTerminating(e);
      this.#log[denied ? 'warn' : 'debug']({ err: errorMessage(e), reason }, 'could not record event');
    }
  }
}

/**
 * Event messages are capped at 1 KiB (as client-go does); API server errors put the reason at the end
 * ("... field is immutable"), so keep both ends and cut the middle.
 */
export function truncateMiddle(message: string, max: number): string {
  if (message.length <= max) return message;
  const marker = ' … ';
  const head = Math.ceil((max - marker.length) * 0.6);
  const tail = max - marker.length - head;
  return `${message.slice(0, head)}${marker}${message.slice(message.length - tail)}`;
}

/** Records one event about an object; fire and forget, like EventRecorder.Eventf. */
export type RecordEvent = (type: EventType, reason: string, message: string) => void;

/** Events about `obj`, which gets its apiVersion and kind stamped on for the Event's involvedObject. */
export function eventsAbout(recorder: EventRecorder, obj: KubeObject, meta: TypeMeta): RecordEvent {
  const about = withTypeMeta(obj, meta);
  return (type, reason, message) => void recorder.record(about, type, reason, message);
}
