import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goValue, objectHash, withObjectHash } from '../../../../src/engine/agent/object-hash.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

// Expected values were produced by Go 1.26: json.Decoder.UseNumber, numbers converted as unstructured does
// (int64 when ParseInt succeeds, else float64), then md5 of fmt.Sprintf("%v", &Unstructured{Object: m}).
const vectors: [string, string, string][] = [
  [
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"ns1"},"data":{"b":"2","a":"1"}}',
    'map[apiVersion:v1 data:map[a:1 b:2] kind:ConfigMap metadata:map[name:cm1 namespace:ns1]]',
    'bb3fcc1e0a4c0fb28cf63b1ce522f9ad',
  ],
  [
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"app":"x"}},"spec":{"replicas":3,"paused":false,"x":null,"ratio":0.5,"big":1234567.5,"tiny":0.00001,"e":1e21,"f":100000.0,"list":[],"obj":{},"containers":[{"name":"c","args":["a b","c"],"ports":[{"containerPort":80}]}]}}',
    'map[apiVersion:apps/v1 kind:Deployment metadata:map[labels:map[app:x] name:d namespace:ns] spec:map[big:1.2345675e+06 containers:[map[args:[a b c] name:c ports:[map[containerPort:80]]]] e:1e+21 f:100000 list:[] obj:map[] paused:false ratio:0.5 replicas:3 tiny:1e-05 x:<nil>]]',
    'cec0aff6781046d8964bd92ca79249cb',
  ],
  [
    '{"kind":"X","metadata":{"name":"ü"},"z":{"é":1,"e":2,"Z":3,"_":4},"neg":-3,"negf":-2.5,"ftrail":2.50}',
    'map[ftrail:2.5 kind:X metadata:map[name:ü] neg:-3 negf:-2.5 z:map[Z:3 _:4 e:2 é:1]]',
    '943021de09b7df0bd157b0cf70b42600',
  ],
];

describe('objectHash (ocm hashOfResourceStruct)', () => {
  for (const [json, printed, hash] of vectors) {
    test(`matches Go for ${json.slice(0, 40)}…`, () => {
      const obj = JSON.parse(json) as KubeObject;
      assert.equal(goValue(obj), printed);
      assert.equal(objectHash(obj), hash);
    });
  }
  test('key order does not matter, content does', () => {
    const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { k: 'v' } };
    const b = { data: { k: 'v' }, metadata: { name: 'x' }, kind: 'ConfigMap', apiVersion: 'v1' };
    assert.equal(objectHash(a), objectHash(b));
    assert.notEqual(objectHash(a), objectHash({ ...a, data: { k: 'w' } }));
  });
});

describe('withObjectHash', () => {
  test('returns a copy with the annotation, other annotations kept', () => {
    const obj: KubeObject = { metadata: { name: 'x', annotations: { keep: 'me' } } };
    const stamped = withObjectHash(obj, 'abc');
    assert.deepEqual(stamped.metadata.annotations, {
      keep: 'me',
      'open-cluster-management.io/object-hash': 'abc',
    });
    assert.deepEqual(obj.metadata.annotations, { keep: 'me' });
    const spec = withObjectHash(obj, 'def', 'open-cluster-management.io/config-spec-hash');
    assert.equal(spec.metadata.annotations?.['open-cluster-management.io/config-spec-hash'], 'def');
  });
});
