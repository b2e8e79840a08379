import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ServicePort } from '../../../src/api/mcs/v1beta1/serviceimport.ts';
import { mergePorts } from '../../../src/mcs/ports.ts';

// The conformance Service hello: tcp/42 and udp/42 (mcs-api conformance/k8s_objects.go).
const hello: ServicePort[] = [
  { name: 'tcp', protocol: 'TCP', port: 42 },
  { name: 'udp', protocol: 'UDP', port: 42 },
];

describe('mergePorts', () => {
  test('one export: its ports, protocol spelled out, empty name and appProtocol dropped', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: [{ port: 80 }, { name: 'h2', port: 81, appProtocol: 'kubernetes.io/h2c' }] },
    ]);
    assert.deepEqual(r, {
      ports: [
        { protocol: 'TCP', port: 80 },
        { name: 'h2', protocol: 'TCP', appProtocol: 'kubernetes.io/h2c', port: 81 },
      ],
      conflict: false,
      message: '',
    });
  });

  test('identical exports: no conflict, no duplicates', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: hello },
      { clusterId: 'c2', ports: [...hello].reverse() },
    ]);
    assert.deepEqual(r.ports, hello);
    assert.equal(r.conflict, false);
  });

  test('conformance "union of the constituent service ports": tcp/42, udp/42 and SCTP stcp/142', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: hello },
      { clusterId: 'c2', ports: [hello[0]!, { name: 'stcp', protocol: 'SCTP', port: 142 }] },
    ]);
    assert.deepEqual(r.ports, [...hello, { name: 'stcp', protocol: 'SCTP', port: 142 }]);
    // A union that merges without a clash is no conflict (KEP: only values that "can not simply be merged").
    assert.equal(r.conflict, false);
    assert.equal(r.message, '');
  });

  test('conformance "with conflicting ports": same name, another port → the oldest export wins, conflict', () => {
    const r = mergePorts([
      { clusterId: 'cluster-1', ports: hello },
      { clusterId: 'cluster-2', ports: [{ name: 'tcp', protocol: 'TCP', port: 43 }] },
    ]);
    assert.deepEqual(r.ports, hello);
    assert.equal(r.conflict, true);
    assert.equal(
      r.message,
      'Conflicting ports. Using "tcp" TCP/42 from oldest service export in "cluster-1" over "tcp" TCP/43 from "cluster-2". 1/2 clusters disagree.',
    );
  });

  test('the newer export order does not matter: the oldest export is the one given first', () => {
    const r = mergePorts([
      { clusterId: 'c2', ports: [{ name: 'tcp', protocol: 'TCP', port: 43 }] },
      { clusterId: 'c1', ports: hello },
    ]);
    assert.deepEqual(r.ports, [
      { name: 'tcp', protocol: 'TCP', port: 43 },
      { name: 'udp', protocol: 'UDP', port: 42 },
    ]);
    assert.equal(r.conflict, true);
  });

  test('same name, same port, another protocol or appProtocol: a conflict', () => {
    for (const other of [
      { name: 'tcp', protocol: 'UDP', port: 42 },
      { name: 'tcp', protocol: 'TCP', port: 42, appProtocol: 'http' },
    ]) {
      const r = mergePorts([
        { clusterId: 'c1', ports: hello },
        { clusterId: 'c2', ports: [other] },
      ]);
      assert.deepEqual(r.ports, hello, JSON.stringify(other));
      assert.equal(r.conflict, true, JSON.stringify(other));
    }
  });

  test('same (protocol, port) under another name: dropped, a conflict; the unnamed port counts as a name', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: [{ port: 80 }] },
      { clusterId: 'c2', ports: [{ name: 'http', port: 80 }, { port: 8080 }] },
    ]);
    // "http" TCP/80 clashes on (TCP, 80); the unnamed 8080 clashes on the empty name.
    assert.deepEqual(r.ports, [{ protocol: 'TCP', port: 80 }]);
    assert.equal(r.conflict, true);
    assert.match(
      r.message,
      /Using "" TCP\/80 from oldest service export in "c1" over "http" TCP\/80 from "c2"/,
    );
    assert.match(r.message, /"" TCP\/80 from oldest service export in "c1" over "" TCP\/8080 from "c2"/);
    assert.match(r.message, /1\/2 clusters disagree\.$/);
  });

  test('a protocol left out is TCP: TCP/80 and an unset protocol on 80 are the same port', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
      { clusterId: 'c2', ports: [{ name: 'http', port: 80 }] },
    ]);
    assert.deepEqual(r.ports, [{ name: 'http', protocol: 'TCP', port: 80 }]);
    assert.equal(r.conflict, false);
  });

  test('a port new to the union clashes with a port the second export added: the older one wins', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: [{ name: 'a', port: 1 }] },
      { clusterId: 'c2', ports: [{ name: 'b', port: 2 }] },
      {
        clusterId: 'c3',
        ports: [
          { name: 'b', port: 3 },
          { name: 'c', port: 4 },
        ],
      },
    ]);
    assert.deepEqual(
      r.ports.map((p) => `${p.name}/${p.port}`),
      ['a/1', 'b/2', 'c/4'],
    );
    assert.equal(r.conflict, true);
    assert.match(
      r.message,
      /"b" TCP\/2 from oldest service export in "c2" over "b" TCP\/3 from "c3"\. 1\/3 clusters/,
    );
  });

  test('many clashes: three spelled out, the rest counted; each disagreeing cluster counted once', () => {
    const r = mergePorts([
      { clusterId: 'c1', ports: [1, 2, 3, 4, 5].map((n) => ({ name: `p${n}`, port: n })) },
      { clusterId: 'c2', ports: [1, 2, 3, 4, 5].map((n) => ({ name: `p${n}`, port: n + 100 })) },
    ]);
    assert.equal(r.ports.length, 5);
    assert.match(r.message, / and 2 more\. 1\/2 clusters disagree\.$/);
    assert.equal(r.message.split(' over ').length, 4);
  });

  test('no exports, or exports without ports: no ports, no conflict', () => {
    assert.deepEqual(mergePorts([]), { ports: [], conflict: false, message: '' });
    assert.deepEqual(mergePorts([{ clusterId: 'c1', ports: [] }]), {
      ports: [],
      conflict: false,
      message: '',
    });
  });
});
