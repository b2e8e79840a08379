import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DeletionCluster, deletionTarget } from '../../../src/engine/deletion-target.ts';

const copy = { metadata: { name: 'x', uid: 'u1' } };
const deleting = { abandonUnready: false, deferUnready: true };
const orphaning = { abandonUnready: false, deferUnready: false };

describe('deletionTarget: which placement clusters owe a deletion', () => {
  const cases: Array<[string, DeletionCluster, ReturnType<typeof deletionTarget>['kind']]> = [
    ['not registered: nothing to do', { registered: false, ready: false }, 'skip'],
    [
      'ready with a copy: delete it now',
      { registered: true, ready: true, cache: { object: copy } },
      'object',
    ],
    ['ready without a copy: nothing to do', { registered: true, ready: true, cache: {} }, 'skip'],
    [
      'ready, type not served: cannot hold it',
      { registered: true, ready: true, cache: { typeNotServed: true } },
      'skip',
    ],
    ['not ready: deferred, not waited for', { registered: true, ready: false }, 'defer'],
    ['ready, cache loading: waited for', { registered: true, ready: true, cache: { pending: true } }, 'wait'],
    [
      'ready, cache failing (hung-but-ready): waited for',
      { registered: true, ready: true, cache: { unavailable: 'list timed out' } },
      'wait',
    ],
  ];
  for (const [name, c, want] of cases)
    test(name, () => assert.equal(deletionTarget('c1', c, deleting).kind, want));

  test('the wait says why', () => {
    assert.deepEqual(
      deletionTarget('c1', { registered: true, ready: true, cache: { unavailable: 'boom' } }, deleting),
      { kind: 'wait', why: 'cluster "c1": boom' },
    );
  });

  test('past the bound a ready member that cannot be read is abandoned; a not-ready one is still deferred', () => {
    const bound = { abandonUnready: true, deferUnready: true };
    assert.equal(
      deletionTarget('c1', { registered: true, ready: true, cache: { pending: true } }, bound).kind,
      'abandon',
    );
    assert.equal(deletionTarget('c1', { registered: true, ready: false }, bound).kind, 'defer');
  });

  test('orphaning deletion keeps waiting for a not-ready member until the bound, then abandons it', () => {
    assert.deepEqual(deletionTarget('c1', { registered: true, ready: false }, orphaning), {
      kind: 'wait',
      why: 'cluster "c1" is not ready',
    });
    assert.equal(
      deletionTarget('c1', { registered: true, ready: false }, { ...orphaning, abandonUnready: true }).kind,
      'abandon',
    );
  });
});
