import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusterIdFor, clusterPropertiesToWrite, isValidClusterId } from '../../../src/mcs/cluster-id.ts';

describe('isValidClusterId (KEP-2149)', () => {
  test('RFC 1123 labels and dotted names of them', () => {
    for (const id of ['member-1', 'a', '1cluster', 'cluster-1.registry-a', 'a.b.c', 'x'.repeat(63)]) {
      assert.equal(isValidClusterId(id), true, id);
    }
  });

  test('not: empty, upper case, underscores, edge dashes or dots, a label over 63, over 253 in all', () => {
    for (const id of [
      '',
      'Member-1',
      'member_1',
      '-member',
      'member-',
      '.member',
      'member.',
      'a..b',
      'x'.repeat(64),
      `ok.${'x'.repeat(64)}`,
      Array.from({ length: 5 }, () => 'x'.repeat(60)).join('.'),
    ]) {
      assert.equal(isValidClusterId(id), false, id);
    }
  });
});

describe('clusterIdFor', () => {
  test('the cluster.clusterset.k8s.io property wins, then id.k8s.io, then the cluster name', () => {
    assert.equal(clusterIdFor('member-1', { clusterId: 'east-1', legacyId: 'legacy' }), 'east-1');
    assert.equal(clusterIdFor('member-1', { legacyId: 'legacy' }), 'legacy');
    assert.equal(clusterIdFor('member-1', {}), 'member-1');
  });

  test('an invalid property value is passed over', () => {
    assert.equal(clusterIdFor('member-1', { clusterId: 'Not_Valid', legacyId: 'legacy' }), 'legacy');
    assert.equal(clusterIdFor('member-1', { clusterId: 'Not_Valid', legacyId: 'Also Bad' }), 'member-1');
    assert.equal(clusterIdFor('member-1', { clusterId: '' }), 'member-1');
  });

  test('the cluster name is lower-cased', () => {
    assert.equal(clusterIdFor('Member-1', {}), 'member-1');
    assert.equal(clusterIdFor('cluster-1.registry', {}), 'cluster-1.registry');
  });

  test('a name that is no valid id becomes a valid label with a hash; distinct names stay distinct', () => {
    const long = `member-${'x'.repeat(70)}`;
    const names = [long, `${long}y`, 'bad_name', 'bad-name_', '___', `a.${'b'.repeat(64)}`];
    const ids = names.map((n) => clusterIdFor(n, {}));
    for (const [i, id] of ids.entries()) {
      assert.equal(isValidClusterId(id), true, `${names[i]} → ${id}`);
      assert.equal(id.includes('.'), false, id);
      assert.ok(id.length <= 63, id);
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.match(ids[0]!, /^member-x+-[0-9a-f]{10}$/);
    assert.match(ids[2]!, /^bad-name-[0-9a-f]{10}$/);
    assert.match(ids[4]!, /^[0-9a-f]{10}$/);
    // The same name, the same id.
    assert.equal(clusterIdFor(long, {}), ids[0]);
  });
});

describe('clusterPropertiesToWrite', () => {
  test('both written when absent', () => {
    assert.deepEqual(
      clusterPropertiesToWrite({ clusterId: 'member-1', clusterSet: 'kubefed', existing: {} }),
      [
        { name: 'cluster.clusterset.k8s.io', value: 'member-1' },
        { name: 'clusterset.k8s.io', value: 'kubefed' },
      ],
    );
  });

  test('a value a cluster admin set is never overwritten, even one that is no valid id', () => {
    assert.deepEqual(
      clusterPropertiesToWrite({
        clusterId: 'member-1',
        clusterSet: 'kubefed',
        existing: { clusterId: 'Not_Valid', clusterSet: 'theirs' },
      }),
      [],
    );
    assert.deepEqual(
      clusterPropertiesToWrite({
        clusterId: 'legacy',
        clusterSet: 'kubefed',
        existing: { legacyId: 'legacy' },
      }),
      [
        { name: 'cluster.clusterset.k8s.io', value: 'legacy' },
        { name: 'clusterset.k8s.io', value: 'kubefed' },
      ],
    );
    assert.deepEqual(
      clusterPropertiesToWrite({ clusterId: 'east', clusterSet: 'kubefed', existing: { clusterId: 'east' } }),
      [{ name: 'clusterset.k8s.io', value: 'kubefed' }],
    );
  });
});
