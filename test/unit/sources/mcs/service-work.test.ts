import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OWNER_ANNOTATION } from '../../../../src/engine/ownership.ts';
import type { DesiredObject, ObjectRef } from '../../../../src/engine/work.ts';
import { refKey } from '../../../../src/engine/work.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';
import type { MergedImport, SourceEndpoints } from '../../../../src/mcs/model.ts';
import { MANAGED_LABEL } from '../../../../src/propagation/constants.ts';
import { objectVersion } from '../../../../src/propagation/versions.ts';
import { type ConsumerFacts, serviceWork } from '../../../../src/sources/mcs/service-work.ts';

const merged = (type: 'ClusterSetIP' | 'Headless' = 'ClusterSetIP'): MergedImport => ({
  spec: { type, ports: [{ name: 'tcp', protocol: 'TCP', port: 42 }], ipFamilies: ['IPv4'] },
  labels: { app: 'hello' },
  annotations: { note: 'x' },
  clusterIds: ['c1'],
});
const source: SourceEndpoints = {
  clusterId: 'c1',
  byAddressType: new Map([
    [
      'IPv4',
      { ports: [{ name: 'tcp', protocol: 'TCP', port: 8080 }], endpoints: [{ addresses: ['10.1.0.5'] }] },
    ],
  ]),
};

/** A member whose managed caches hold `objects` (by `plural/ns/name`). */
const member = (objects: KubeObject[] = [], dnsServed = true): ConsumerFacts => ({
  live: (ref: ObjectRef) =>
    objects.find(
      (o) => o.kind === ref.type.kind && `${o.metadata.namespace}/${o.metadata.name}` === refKey(ref),
    ),
  dnsServed,
});
const liveImport: KubeObject = {
  apiVersion: 'multicluster.x-k8s.io/v1beta1',
  kind: 'ServiceImport',
  metadata: { name: 'hello', namespace: 'ns', uid: 'uid-1', resourceVersion: '5', generation: 1 },
};
const noop = () => {};
const kinds = (d: readonly DesiredObject[] | undefined) => (d ?? []).map((x) => `${x.type.kind}/${x.name}`);

describe('serviceWork', () => {
  test('no merged import: no member holds anything, and every fixed and held object is looked at', () => {
    const held: ObjectRef[] = [
      {
        type: {
          group: 'discovery.k8s.io',
          version: 'v1',
          plural: 'endpointslices',
          namespaced: true,
          kind: 'EndpointSlice',
        },
        namespace: 'ns',
        name: 'derived-hello-c9-ipv4',
      },
    ];
    const w = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: undefined,
      sources: [],
      consumers: new Map([['a', member()]]),
      held,
      event: noop,
    });
    assert.equal(w.clusters.size, 0);
    assert.deepEqual(
      w.objects.map((r) => `${r.type.kind}/${r.name}`),
      [
        'ServiceImport/hello',
        'Service/derived-hello',
        'DNSEndpoint/mcs-hello',
        'EndpointSlice/derived-hello-c9-ipv4',
      ],
    );
    assert.deepEqual(w.owner, {
      source: 'mcs',
      kind: 'ServiceImport',
      namespace: 'ns',
      name: 'hello',
      uid: '',
    });
    assert.equal(w.adopt, false);
  });

  test('ClusterSetIP, before the import exists: import, derived Service and DNS records; slices wait for its uid', () => {
    const w = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: merged(),
      sources: [source],
      consumers: new Map([['a', member()]]),
      held: [],
      event: noop,
    });
    assert.deepEqual(kinds(w.clusters.get('a')), [
      'ServiceImport/hello',
      'Service/derived-hello',
      'DNSEndpoint/mcs-hello',
    ]);
    const imp = w.clusters.get('a')?.[0]?.render(undefined).object;
    assert.deepEqual(imp?.metadata, {
      name: 'hello',
      namespace: 'ns',
      labels: { app: 'hello' },
      annotations: { note: 'x' },
    });
    assert.deepEqual((imp as { spec?: unknown }).spec, merged().spec);
  });

  test('once the import is there: one slice set per source, owned by it; ips from the derived Service', () => {
    const derived: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'derived-hello', namespace: 'ns', resourceVersion: '9' },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.7', clusterIPs: ['10.96.0.7'], ipFamilies: ['IPv4'] },
    };
    const w = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: merged(),
      sources: [source],
      consumers: new Map([['a', member([liveImport, derived])]]),
      held: [],
      event: noop,
    });
    const d = w.clusters.get('a') ?? [];
    assert.deepEqual(kinds(d), [
      'ServiceImport/hello',
      'Service/derived-hello',
      'EndpointSlice/derived-hello-c1-ipv4',
      'DNSEndpoint/mcs-hello',
    ]);
    const imp = d[0]?.render(liveImport).object as KubeObject & { spec?: { ips?: string[] } };
    assert.deepEqual(imp.spec?.ips, ['10.96.0.7']);
    assert.equal(imp.metadata.resourceVersion, '5', 'the PUT carries the live version');
    const slice = d[2]?.render(undefined).object;
    assert.equal((slice?.metadata.ownerReferences?.[0] as { uid?: string } | undefined)?.uid, 'uid-1');
    // Derived Service keeps its cluster IP.
    const svc = d[1]?.render(derived).object as KubeObject & { spec?: { clusterIP?: string } };
    assert.equal(svc.spec?.clusterIP, '10.96.0.7');
  });

  test('Headless: no derived Service; no DNS records where DNSEndpoints are not served', () => {
    const w = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: merged('Headless'),
      sources: [source],
      consumers: new Map([['a', member([liveImport], false)]]),
      held: [],
      event: noop,
    });
    assert.deepEqual(kinds(w.clusters.get('a')), [
      'ServiceImport/hello',
      'EndpointSlice/derived-hello-c1-ipv4',
    ]);
  });

  test('a live copy that already is what we render is recorded as up to date (a resync writes nothing)', () => {
    const first = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: merged('Headless'),
      sources: [],
      consumers: new Map([['a', member()]]),
      held: [],
      event: noop,
    });
    const rendered = first.clusters.get('a')?.[0]?.render(undefined).object as KubeObject;
    const live: KubeObject = {
      ...rendered,
      metadata: {
        ...rendered.metadata,
        uid: 'u',
        resourceVersion: '3',
        generation: 2,
        labels: { ...rendered.metadata.labels, [MANAGED_LABEL]: 'true' },
        annotations: { ...rendered.metadata.annotations, [OWNER_ANNOTATION]: 'mcs:ServiceImport:ns/hello' },
      },
      status: { clusters: [{ cluster: 'c1' }] },
    };
    const again = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: merged('Headless'),
      sources: [],
      consumers: new Map([['a', member([live])]]),
      held: [],
      event: noop,
    });
    assert.equal(again.clusters.get('a')?.[0]?.recordedVersion, objectVersion(live));
    const changed = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: { ...merged('Headless'), labels: { app: 'other' } },
      sources: [],
      consumers: new Map([['a', member([live])]]),
      held: [],
      event: noop,
    });
    assert.equal(changed.clusters.get('a')?.[0]?.recordedVersion, undefined);
  });

  test('a taken derived Service name: no slices and no ips there (they would feed and name another Service)', () => {
    const theirs: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'derived-hello', namespace: 'ns' },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'] },
    };
    const w = serviceWork({
      namespace: 'ns',
      name: 'hello',
      merged: merged(),
      sources: [source],
      consumers: new Map([['a', { ...member([liveImport, theirs]), derivedTaken: true }]]),
      held: [],
      event: noop,
    });
    const d = w.clusters.get('a') ?? [];
    assert.deepEqual(kinds(d), ['ServiceImport/hello', 'Service/derived-hello', 'DNSEndpoint/mcs-hello']);
    const imp = d[0]?.render(liveImport).object as { spec?: { ips?: string[] } };
    assert.equal(imp.spec?.ips, undefined);
  });

  test('a kept member holds its own objects as they are (recorded, so not written), and nothing of others', () => {
    const ours = (o: KubeObject): KubeObject => ({
      ...o,
      metadata: {
        ...o.metadata,
        labels: { ...(o.metadata.labels ?? {}), [MANAGED_LABEL]: 'true' },
        annotations: { [OWNER_ANNOTATION]: 'mcs:ServiceImport:ns/hello' },
      },
    });
    const imp = ours({ ...liveImport, spec: { type: 'ClusterSetIP', ips: ['10.96.0.7'] } } as KubeObject);
    const other: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'derived-hello',
        namespace: 'ns',
        resourceVersion: '3',
        labels: { [MANAGED_LABEL]: 'true' },
        annotations: { [OWNER_ANNOTATION]: 'policy:ResourceBinding:ns/x' },
      },
    };
    for (const m of [merged(), undefined]) {
      const w = serviceWork({
        namespace: 'ns',
        name: 'hello',
        merged: m,
        sources: [source],
        consumers: new Map(),
        kept: new Map([['b', member([imp, other])]]),
        held: [],
        event: noop,
      });
      const d = w.clusters.get('b') ?? [];
      assert.deepEqual(kinds(d), ['ServiceImport/hello']);
      assert.equal(d[0]?.recordedVersion, objectVersion(imp));
      const rendered = d[0]?.render(imp).object as { spec?: unknown } | undefined;
      assert.deepEqual(rendered?.spec, (imp as { spec?: unknown }).spec);
    }
  });
});
