import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { importsName, incompleteView } from '../../../../src/sources/mcs/member-picture.ts';

describe('incompleteView', () => {
  test('loading is incomplete for every cache', () => {
    for (const v of [undefined, 'syncing', 'none'] as const) {
      assert.equal(incompleteView(v, true), true);
      assert.equal(incompleteView(v, false), true);
    }
  });

  test('a failed list is incomplete for the caches facts are read from, not for the managed ones', () => {
    for (const v of ['failed', 'clientError'] as const) {
      assert.equal(incompleteView(v, true), true, v);
      assert.equal(incompleteView(v, false), false, v);
    }
  });

  test('synced and not served are complete answers', () => {
    for (const v of ['synced', 'typeNotServed'] as const) {
      assert.equal(incompleteView(v, true), false);
      assert.equal(incompleteView(v, false), false);
    }
  });
});

describe('importsName', () => {
  const imp = (...ids: string[]) => ({ status: { clusters: ids.map((cluster) => ({ cluster })) } });
  test('true when some import names one of the ids, false otherwise', () => {
    assert.equal(importsName([undefined, imp('a', 'b')], ['b']), true);
    assert.equal(importsName([imp('a'), {}], ['b']), false);
    assert.equal(importsName([], ['b']), false);
  });
});
