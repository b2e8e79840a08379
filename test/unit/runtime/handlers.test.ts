import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { enqueueMapped, enqueueObject } from '../../../src/runtime/handlers.ts';

const a: KubeObject = { metadata: { name: 'a', namespace: 'ns' } };
const cluster: KubeObject = { metadata: { name: 'c1' } };

function recorder() {
  const keys: Array<[string, number | undefined]> = [];
  return { keys, enqueue: (key: string, delayMs?: number) => void keys.push([key, delayMs]) };
}

test('enqueueObject enqueues the object by namespace/name (or name) on add, update and delete', () => {
  const { keys, enqueue } = recorder();
  const h = enqueueObject()(enqueue);
  h.onAdd?.(a);
  h.onUpdate?.(cluster, a);
  h.onDelete?.(cluster);
  assert.deepEqual(keys, [
    ['ns/a', undefined],
    ['ns/a', undefined],
    ['c1', undefined],
  ]);
});

test('enqueueMapped enqueues what the map returns for the new object, with the delay', () => {
  const { keys, enqueue } = recorder();
  const h = enqueueMapped((o: KubeObject) => [`x/${o.metadata.name}`, `y/${o.metadata.name}`], {
    delayMs: 50,
  })(enqueue);
  h.onUpdate?.(a, cluster);
  h.onDelete?.(a);
  assert.deepEqual(keys, [
    ['x/c1', 50],
    ['y/c1', 50],
    ['x/a', 50],
    ['y/a', 50],
  ]);
});
