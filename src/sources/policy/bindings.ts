// ResourceBindings and ClusterResourceBindings, cached once and shared by the detector, the scheduler and
// the binding controller. Both kinds live in one keyspace: `ns/name` is a ResourceBinding, `name` a
// ClusterResourceBinding (keys.ts).

import { CRB_KIND, CRB_PLURAL, GROUP, RB_KIND, RB_PLURAL, VERSION } from '../../api/work/v1alpha2/index.ts';
import type { ResourceType } from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { type EventHandlers, withoutManagedFields } from '../../runtime/informer/index.ts';
import type { SharedInformerReader, SharedInformers } from '../../runtime/informer/shared-informers.ts';
import type { BindingObject } from './binding-spec.ts';
import { bindingKey, parseBindingKey } from './keys.ts';

export const BindingTypes = {
  ResourceBinding: { group: GROUP, version: VERSION, plural: RB_PLURAL, namespaced: true, kind: RB_KIND },
  ClusterResourceBinding: {
    group: GROUP,
    version: VERSION,
    plural: CRB_PLURAL,
    namespaced: false,
    kind: CRB_KIND,
  },
} as const satisfies Record<string, ResourceType & { kind: string }>;

export function bindingTypeOf(b: { metadata: { namespace?: string } }): ResourceType & { kind: string } {
  return b.metadata.namespace ? BindingTypes.ResourceBinding : BindingTypes.ClusterResourceBinding;
}

export type BindingListener = (
  key: string,
  b: BindingObject,
  change: 'add' | 'update' | 'delete',
  old?: BindingObject,
) => void;

export class Bindings {
  readonly #rb: SharedInformerReader<BindingObject>;
  readonly #crb: SharedInformerReader<BindingObject>;
  readonly #listeners = new Set<BindingListener>();

  constructor(informers: SharedInformers, namespace?: string) {
    const handlers: EventHandlers<BindingObject> = {
      onAdd: (b) => this.#tell(b, 'add'),
      onUpdate: (old, b) => this.#tell(b, 'update', old),
      onDelete: (b) => this.#tell(b, 'delete'),
    };
    // Nothing reads a binding's field ownership; one binding per template, so it adds up at scale.
    const transform = withoutManagedFields;
    this.#rb = informers.open({ type: BindingTypes.ResourceBinding, namespace, transform }, handlers);
    this.#crb = informers.open({ type: BindingTypes.ClusterResourceBinding, transform }, handlers);
  }

  #tell(b: BindingObject, change: 'add' | 'update' | 'delete', old?: BindingObject): void {
    for (const l of this.#listeners) l(bindingKey(b), b, change, old);
  }

  /** An event source for controllers keyed by binding: every added or changed binding is enqueued. */
  readonly changes = (enqueue: (key: string) => void): (() => void) =>
    this.addListener((key, b, change, old) => {
      if (change === 'delete') return;
      // A status write (the scheduler's, the binding controller's own) changes nothing either acts on.
      if (old && !specOrMetadataChanged(old, b)) return;
      enqueue(key);
    });

  addListener(l: BindingListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  get(key: string): BindingObject | undefined {
    const k = parseBindingKey(key);
    return k.namespace ? this.#rb.store.get(key) : this.#crb.store.get(k.name);
  }

  list(): BindingObject[] {
    return [...this.#rb.store.list(), ...this.#crb.store.list()];
  }

  keys(): string[] {
    return this.list().map(bindingKey);
  }

  hasSynced(): boolean {
    return this.#rb.hasSynced() && this.#crb.hasSynced();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([this.#rb.waitForSync(), this.#crb.waitForSync()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.#rb.close(), this.#crb.close()]);
  }
}

/** Whether anything but the status changed (the generation covers the spec; labels, annotations, deletion). */
export function specOrMetadataChanged(old: BindingObject, b: BindingObject): boolean {
  return (
    old.metadata.generation !== b.metadata.generation ||
    old.metadata.deletionTimestamp !== b.metadata.deletionTimestamp ||
    !jsonEqual(old.metadata.labels, b.metadata.labels) ||
    !jsonEqual(old.metadata.annotations, b.metadata.annotations) ||
    !jsonEqual(old.metadata.finalizers, b.metadata.finalizers)
  );
}
