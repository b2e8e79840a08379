import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bytesPerObject,
  type CacheRound,
  renderCacheMemoryTable,
} from '../../../bench/cache-memory-table.ts';

const rounds: CacheRound[] = [
  { objects: 'ConfigMap', variant: 'as served', count: 100, heapBytes: 300_000 },
  { objects: 'ConfigMap', variant: 'without managedFields', count: 100, heapBytes: 100_000 },
  { objects: 'ConfigMap', variant: 'as served', count: 100, heapBytes: 320_000 },
  { objects: 'ConfigMap', variant: 'without managedFields', count: 100, heapBytes: 90_000 },
  { objects: 'ConfigMap', variant: 'as served', count: 100, heapBytes: 280_000 },
  { objects: 'ConfigMap', variant: 'without managedFields', count: 100, heapBytes: 110_000 },
];

test('bytesPerObject is the median round of its row and variant, per object', () => {
  assert.deepEqual(bytesPerObject(rounds, 'ConfigMap', 'as served'), {
    median: 3000,
    rounds: [3000, 3200, 2800],
  });
  assert.equal(bytesPerObject(rounds, 'ConfigMap', 'without managedFields')?.median, 1000);
  assert.equal(bytesPerObject(rounds, 'Deployment', 'as served'), undefined);
  // A round that cached nothing tells nothing per object.
  assert.equal(
    bytesPerObject([{ objects: 'x', variant: 'as served', count: 0, heapBytes: 5 }], 'x', 'as served'),
    undefined,
  );
});

test('the table has a row per kind of object with both figures, their ratio and every round', () => {
  const table = renderCacheMemoryTable([
    ...rounds,
    { objects: 'Deployment', variant: 'as served', count: 10, heapBytes: 50_000 },
  ]).split('\n');
  assert.equal(table.length, 4);
  assert.match(table[0] ?? '', /^\| Cached objects \| heap bytes per object, as served \|/);
  assert.equal(table[2], '| ConfigMap | 3000 | 1000 | 0.33× | 3000, 3200, 2800; 1000, 900, 1100 |');
  // Not measured: a dash, never 0.
  assert.equal(table[3], '| Deployment | 5000 | – | – | 5000; – |');
});
