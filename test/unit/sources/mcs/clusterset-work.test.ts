import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ObjectRef } from '../../../../src/engine/work.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import { clusterPropertyWork, dnsVersionWork } from '../../../../src/sources/mcs/clusterset-work.ts';

const nothing = { live: (_: ObjectRef): KubeObject | undefined => undefined };
const noop = () => {};

describe('dnsVersionWork', () => {
  test('the schema record in kube-public of each given member, under its own owner', () => {
    const w = dnsVersionWork(new Map([['a', nothing]]), noop);
    assert.deepEqual(w.owner, { source: 'mcs', kind: 'ClusterSet', name: 'dns-version', uid: '' });
    assert.deepEqual(
      w.objects.map((r) => [r.type.kind, r.namespace, r.name]),
      [['DNSEndpoint', 'kube-public', 'mcs-dns-version']],
    );
    const obj = w.clusters.get('a')?.[0]?.render(undefined).object as KubeObject & {
      spec?: { endpoints?: Array<{ dnsName: string; recordType: string; targets: string[] }> };
    };
    assert.equal(obj.spec?.endpoints?.[0]?.dnsName, 'dns-version.clusterset.local');
    assert.deepEqual(obj.spec?.endpoints?.[0]?.targets, ['"1.0.0"']);
  });

  test('no member given: the record is released, never deleted (still looked at)', () => {
    const w = dnsVersionWork(new Map(), noop);
    assert.equal(w.clusters.size, 0);
    assert.equal(w.objects.length, 1);
    assert.equal(w.keep?.('a', { metadata: { name: 'mcs-dns-version' } } as KubeObject), true);
  });
});

describe('clusterPropertyWork', () => {
  test('writes the id and clusterset properties the member lacks, never deleting (keep)', () => {
    const w = clusterPropertyWork({
      cluster: 'c1',
      clusterId: 'c1',
      clusterSet: 'set',
      facts: { existing: {}, ...nothing },
      event: noop,
    });
    const objs = (w.clusters.get('c1') ?? []).map(
      (d) => d.render(undefined).object as KubeObject & { spec?: { value?: string } },
    );
    assert.deepEqual(
      objs.map((o) => [o.metadata.name, o.spec?.value]),
      [
        ['cluster.clusterset.k8s.io', 'c1'],
        ['clusterset.k8s.io', 'set'],
      ],
    );
    assert.equal(w.keep?.('c1', objs[0] as KubeObject), true);
    assert.deepEqual(w.owner, { source: 'mcs', kind: 'ClusterProperty', name: 'c1', uid: '' });
  });

  test("a property the member's admin set is left alone", () => {
    const w = clusterPropertyWork({
      cluster: 'c1',
      clusterId: 'east',
      clusterSet: 'set',
      facts: { existing: { clusterId: 'east', clusterSet: 'theirs' }, ...nothing },
      event: noop,
    });
    assert.deepEqual(w.clusters.get('c1'), []);
  });
});
