import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DelayHeap } from '../../../src/runtime/workqueue/index.ts';

function drain(h: DelayHeap): string[] {
  const out: string[] = [];
  for (let e = h.pop(); e !== undefined; e = h.pop()) out.push(e.key);
  return out;
}

describe('DelayHeap', () => {
  test('pops in deadline order, ties in insertion order', () => {
    const h = new DelayHeap();
    h.push('c', 30);
    h.push('a', 10);
    h.push('t1', 20);
    h.push('t2', 20);
    h.push('t3', 20);
    assert.equal(h.size, 5);
    assert.deepEqual(h.peek(), { key: 'a', readyAt: 10 });
    assert.deepEqual(drain(h), ['a', 't1', 't2', 't3', 'c']);
    assert.equal(h.size, 0);
    assert.equal(h.peek(), undefined);
  });

  test('earliest delivery wins per key', () => {
    const h = new DelayHeap();
    assert.equal(h.push('k', 50), true);
    assert.equal(h.push('k', 100), false, 'a later time keeps the earlier one');
    assert.equal(h.push('k', 50), false);
    assert.equal(h.readyAt('k'), 50);
    h.push('other', 40);
    assert.equal(h.push('k', 10), true, 'an earlier time replaces the later one');
    assert.equal(h.size, 2);
    assert.deepEqual(h.pop(), { key: 'k', readyAt: 10 });
    assert.deepEqual(h.pop(), { key: 'other', readyAt: 40 });
    assert.equal(h.has('k'), false);
  });

  test('popReady returns only due keys, earliest first', () => {
    const h = new DelayHeap();
    h.push('b', 20);
    h.push('a', 10);
    h.push('c', 30);
    assert.deepEqual(h.popReady(5), []);
    assert.deepEqual(h.popReady(20), ['a', 'b']);
    assert.deepEqual(h.popReady(100), ['c']);
    assert.equal(h.size, 0);
  });

  test('delete and clear', () => {
    const h = new DelayHeap();
    for (const [k, t] of [
      ['a', 5],
      ['b', 1],
      ['c', 3],
      ['d', 2],
    ] as const)
      h.push(k, t);
    assert.equal(h.delete('b'), true);
    assert.equal(h.delete('b'), false);
    assert.deepEqual(drain(h), ['d', 'c', 'a']);
    h.push('x', 1);
    h.clear();
    assert.equal(h.size, 0);
    assert.equal(h.has('x'), false);
    h.push('x', 2);
    assert.deepEqual(drain(h), ['x']);
  });

  test('matches a sorted reference under random pushes, moves and deletes', () => {
    // Deterministic LCG so failures reproduce.
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const h = new DelayHeap();
    const ref = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const key = `k${rand(200)}`;
      if (rand(10) === 0) {
        assert.equal(h.delete(key), ref.delete(key));
        continue;
      }
      const t = rand(1000);
      h.push(key, t);
      const prev = ref.get(key);
      if (prev === undefined || t < prev) ref.set(key, t);
    }
    assert.equal(h.size, ref.size);
    const popped: Array<[string, number]> = [];
    for (let e = h.pop(); e !== undefined; e = h.pop()) popped.push([e.key, e.readyAt]);
    for (let i = 1; i < popped.length; i++) assert.ok(popped[i - 1]![1] <= popped[i]![1]);
    assert.deepEqual(new Map(popped), ref);
  });
});
