import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import {
  canonicalJson,
  needsUpdate,
  nextPropagatedVersion,
  objectMetaEquivalent,
  objectVersion,
  overridesHash,
  type PropagatedVersionStatus,
  recordedVersions,
  templateHash,
} from '../../../src/propagation/versions.ts';

const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

describe('canonicalJson', () => {
  test('sorted keys, no spaces', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, 'x'], c: null } }), '{"a":{"c":null,"d":[1,"x"]},"b":1}');
  });

  test('keys sort by UTF-8 byte order', () => {
    assert.equal(
      canonicalJson({ b: 1, B: 2, _: 3, é: 4, '\uffff': 5, '\u{1f600}': 6 }),
      '{"B":2,"_":3,"b":1,"é":4,"\uffff":5,"\u{1f600}":6}',
    );
  });

  test('HTML-sensitive characters and separators are escaped like Go', () => {
    assert.equal(canonicalJson('<a href="x">&</a>'), '"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"');
    assert.equal(canonicalJson('\u2028\u2029'), '"\\u2028\\u2029"');
    assert.equal(canonicalJson('\n\r\t\\\u0001\u001f\b\f'), '"\\n\\r\\t\\\\\\u0001\\u001f\\u0008\\u000c"');
    assert.equal(canonicalJson('\ud800'), '"\\ufffd"');
  });

  test('numbers, booleans, undefined', () => {
    assert.equal(
      canonicalJson([1.5, -0.25, 1e21, true, false, undefined, Number.NaN]),
      '[1.5,-0.25,1e+21,true,false,null,null]',
    );
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  });
});

describe('templateHash', () => {
  test('KubeFed TestGetTemplateHash', () => {
    assert.equal(templateHash({ spec: { foo: null } }), 'a5b8d4352d5aed51c51b93900258ccf3');
  });

  test('empty without a template; key order does not matter', () => {
    assert.equal(templateHash(undefined), '');
    assert.equal(templateHash({ a: 1, b: 2 }), templateHash({ b: 2, a: 1 }));
    assert.notEqual(templateHash({ a: 1 }), templateHash({ a: 2 }));
    assert.equal(templateHash({}), md5('{}\n'));
  });
});

describe('overridesHash', () => {
  test('no overrides', () => {
    assert.equal(overridesHash(undefined), md5('{"overrides":null}\n'));
    assert.equal(overridesHash(null), md5('{"overrides":null}\n'));
    assert.equal(overridesHash([]), md5('{"overrides":[]}\n'));
  });

  test('Go struct field order and omitempty', () => {
    const overrides = [
      {
        clusterOverrides: [
          { value: { b: 1, a: '<' }, path: '/x', op: 'add' },
          { path: '/y', op: '' },
          { path: '/z', value: null },
          { op: 'remove', path: '/w' },
        ],
        clusterName: 'c1',
      },
      { clusterName: 'c2', clusterOverrides: [] },
      { clusterName: 'c3' },
    ];
    const json =
      '{"overrides":[{"clusterName":"c1","clusterOverrides":[{"op":"add","path":"/x","value":{"a":"\\u003c","b":1}},' +
      '{"path":"/y"},{"path":"/z"},{"op":"remove","path":"/w"}]},{"clusterName":"c2"},{"clusterName":"c3"}]}\n';
    assert.equal(overridesHash(overrides), md5(json));
  });

  test('changes with the overrides, not with key order', () => {
    const a = [{ clusterName: 'c', clusterOverrides: [{ path: '/spec/replicas', value: 5 }] }];
    const b = [{ clusterOverrides: [{ value: 5, path: '/spec/replicas' }], clusterName: 'c' }];
    const c = [{ clusterName: 'c', clusterOverrides: [{ path: '/spec/replicas', value: 6 }] }];
    assert.equal(overridesHash(a), overridesHash(b));
    assert.notEqual(overridesHash(a), overridesHash(c));
  });

  test('malformed overrides hash deterministically', () => {
    assert.equal(overridesHash('x'), overridesHash('x'));
    assert.notEqual(overridesHash('x'), overridesHash('y'));
    assert.equal(
      overridesHash([{ clusterName: 1, clusterOverrides: 'x' }]),
      overridesHash([{ clusterName: 1, clusterOverrides: 'x' }]),
    );
  });
});

describe('objectVersion', () => {
  test('generation first, then resourceVersion', () => {
    assert.equal(objectVersion({ metadata: { generation: 3, resourceVersion: '9' } }), 'gen:3');
    assert.equal(objectVersion({ metadata: { generation: 0, resourceVersion: '9' } }), 'rv:9');
    assert.equal(objectVersion({ metadata: { resourceVersion: '9' } }), 'rv:9');
    assert.equal(objectVersion({ metadata: {} }), '');
  });
});

describe('objectMetaEquivalent (KubeFed meta_test)', () => {
  test('ignores uid, resourceVersion and the rest', () => {
    assert.equal(
      objectMetaEquivalent(
        { name: 'a', uid: '1', resourceVersion: '1' },
        { name: 'a', uid: '2', resourceVersion: '2', generation: 5 },
      ),
      true,
    );
  });

  test('compares name, namespace, labels and annotations', () => {
    assert.equal(objectMetaEquivalent({ name: 'a' }, { name: 'b' }), false);
    assert.equal(objectMetaEquivalent({ namespace: 'a' }, { namespace: 'b' }), false);
    assert.equal(objectMetaEquivalent({ labels: { a: 'b' } }, { labels: { a: 'c' } }), false);
    assert.equal(objectMetaEquivalent({ annotations: { A: 'B' } }, {}), false);
    assert.equal(objectMetaEquivalent({ labels: { a: 'b', c: 'd' } }, { labels: { c: 'd', a: 'b' } }), true);
  });

  test('nil equals empty', () => {
    assert.equal(objectMetaEquivalent({ labels: {}, annotations: {} }, {}), true);
    assert.equal(objectMetaEquivalent({}, { labels: {}, annotations: {} }), true);
    assert.equal(objectMetaEquivalent({ name: '' }, {}), true);
  });
});

describe('needsUpdate', () => {
  const member = (meta: KubeObject['metadata']): KubeObject => ({ metadata: { name: 'x', ...meta } });
  const desired = (meta: KubeObject['metadata'] = {}): KubeObject => ({ metadata: { name: 'x', ...meta } });

  test('nothing recorded', () => {
    assert.equal(
      needsUpdate({ recordedVersion: undefined, member: member({ generation: 1 }), desired: desired() }),
      true,
    );
    assert.equal(needsUpdate({ recordedVersion: '', member: member({}), desired: desired() }), true);
  });

  test('recorded differs from current', () => {
    assert.equal(
      needsUpdate({ recordedVersion: 'gen:1', member: member({ generation: 2 }), desired: desired() }),
      true,
    );
    assert.equal(
      needsUpdate({ recordedVersion: 'rv:1', member: member({ resourceVersion: '2' }), desired: desired() }),
      true,
    );
  });

  test('same generation and equivalent metadata: no update', () => {
    const m = member({ generation: 2, resourceVersion: '8', labels: { a: 'b' }, annotations: { x: 'y' } });
    const d = desired({ labels: { a: 'b' }, annotations: { x: 'y' }, resourceVersion: '8' });
    assert.equal(needsUpdate({ recordedVersion: 'gen:2', member: m, desired: d }), false);
  });

  test('same generation but labels or annotations drifted', () => {
    const m = member({ generation: 2, labels: { a: 'b' } });
    assert.equal(
      needsUpdate({ recordedVersion: 'gen:2', member: m, desired: desired({ labels: { a: 'c' } }) }),
      true,
    );
    assert.equal(
      needsUpdate({
        recordedVersion: 'gen:2',
        member: m,
        desired: desired({ labels: { a: 'b' }, annotations: { n: 'm' } }),
      }),
      true,
    );
  });

  test('resourceVersion-tracked objects skip the metadata check (any change bumps the resourceVersion)', () => {
    const m = member({ resourceVersion: '5', labels: { a: 'b' } });
    assert.equal(
      needsUpdate({ recordedVersion: 'rv:5', member: m, desired: desired({ labels: { a: 'c' } }) }),
      false,
    );
  });
});

describe('recordedVersions', () => {
  const stored: PropagatedVersionStatus = {
    templateVersion: 't1',
    overridesVersion: 'o1',
    clusterVersions: [
      { clusterName: 'a', version: 'gen:1' },
      { clusterName: 'b', version: 'rv:7' },
    ],
  };

  test('used while both hashes are unchanged', () => {
    assert.deepEqual(
      [...recordedVersions(stored, 't1', 'o1')],
      [
        ['a', 'gen:1'],
        ['b', 'rv:7'],
      ],
    );
  });

  test('empty when either hash changed or nothing is stored', () => {
    assert.equal(recordedVersions(stored, 't2', 'o1').size, 0);
    assert.equal(recordedVersions(stored, 't1', 'o2').size, 0);
    assert.equal(recordedVersions(undefined, 't1', 'o1').size, 0);
  });
});

describe('nextPropagatedVersion', () => {
  const stored: PropagatedVersionStatus = {
    templateVersion: 't1',
    overridesVersion: 'o1',
    clusterVersions: [
      { clusterName: 'a', version: 'gen:1' },
      { clusterName: 'b', version: 'gen:1' },
      { clusterName: 'c', version: 'rv:3' },
    ],
  };
  const next = (
    templateVersion: string,
    overridesVersion: string,
    selected: string[],
    updated: [string, string][],
    s: PropagatedVersionStatus | undefined = stored,
  ) =>
    nextPropagatedVersion({
      stored: s,
      templateVersion,
      overridesVersion,
      selectedClusters: new Set(selected),
      updated: new Map(updated),
    });

  test('nothing new: unchanged', () => {
    const r = next('t1', 'o1', ['a', 'b', 'c'], []);
    assert.equal(r.changed, false);
    assert.deepEqual(r.status, stored);
  });

  test('same hashes: untouched selected entries survive, updated ones replace, sorted', () => {
    const r = next(
      't1',
      'o1',
      ['a', 'b', 'c', 'd'],
      [
        ['d', 'gen:1'],
        ['b', 'gen:2'],
      ],
    );
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.clusterVersions, [
      { clusterName: 'a', version: 'gen:1' },
      { clusterName: 'b', version: 'gen:2' },
      { clusterName: 'c', version: 'rv:3' },
      { clusterName: 'd', version: 'gen:1' },
    ]);
  });

  test('unselected clusters are dropped', () => {
    const r = next('t1', 'o1', ['a'], []);
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.clusterVersions, [{ clusterName: 'a', version: 'gen:1' }]);
  });

  test('an empty version (deletion) drops the entry', () => {
    const r = next('t1', 'o1', ['a', 'b', 'c'], [['b', '']]);
    assert.deepEqual(
      r.status.clusterVersions.map((v) => v.clusterName),
      ['a', 'c'],
    );
  });

  test('changed hashes: only this round', () => {
    const r = next('t2', 'o1', ['a', 'b', 'c'], [['b', 'gen:2']]);
    assert.equal(r.changed, true);
    assert.deepEqual(r.status, {
      templateVersion: 't2',
      overridesVersion: 'o1',
      clusterVersions: [{ clusterName: 'b', version: 'gen:2' }],
    });
    assert.equal(next('t1', 'o2', ['a'], []).status.clusterVersions.length, 0);
  });

  test('hash change alone is a change', () => {
    const empty: PropagatedVersionStatus = {
      templateVersion: 't1',
      overridesVersion: 'o1',
      clusterVersions: [],
    };
    assert.equal(next('t2', 'o1', [], [], empty).changed, true);
    assert.equal(next('t1', 'o1', [], [], empty).changed, false);
  });

  test('nothing stored yet: always written', () => {
    const r = next('t1', 'o1', ['a'], [['a', 'gen:1']], undefined);
    assert.equal(r.changed, true);
    assert.deepEqual(r.status.clusterVersions, [{ clusterName: 'a', version: 'gen:1' }]);
    assert.equal(next('t1', 'o1', [], [], undefined).changed, true);
  });

  test('an unsorted stored list with the same content is a change (rewritten sorted)', () => {
    const unsorted: PropagatedVersionStatus = {
      templateVersion: 't1',
      overridesVersion: 'o1',
      clusterVersions: [
        { clusterName: 'b', version: 'gen:1' },
        { clusterName: 'a', version: 'gen:1' },
      ],
    };
    const r = next('t1', 'o1', ['a', 'b'], [], unsorted);
    assert.equal(r.changed, true);
    assert.deepEqual(
      r.status.clusterVersions.map((v) => v.clusterName),
      ['a', 'b'],
    );
  });

  test('does not modify its inputs', () => {
    const copy = structuredClone(stored);
    const updated = new Map([['a', 'gen:9']]);
    nextPropagatedVersion({
      stored,
      templateVersion: 't1',
      overridesVersion: 'o1',
      selectedClusters: new Set(['a', 'b']),
      updated,
    });
    assert.deepEqual(stored, copy);
    assert.deepEqual([...updated], [['a', 'gen:9']]);
  });
});

describe('malformed objects', () => {
  test('missing metadata never throws a TypeError', () => {
    const broken = {} as KubeObject;
    assert.equal(objectVersion(broken), '');
    assert.equal(needsUpdate({ recordedVersion: '', member: broken, desired: broken }), true);
    const gen = { metadata: { generation: 1 } } as KubeObject;
    assert.equal(needsUpdate({ recordedVersion: 'gen:1', member: gen, desired: broken }), false);
  });
});
