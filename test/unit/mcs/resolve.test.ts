import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExportFacts, ServiceObject } from '../../../src/mcs/model.ts';
import { importTypeOf, resolveImport } from '../../../src/mcs/resolve.ts';

type Spec = NonNullable<ServiceObject['spec']>;

// The conformance Service hello (mcs-api conformance/k8s_objects.go), as a member's API server returns it.
const helloSpec: Spec = {
  type: 'ClusterIP',
  clusterIP: '10.0.0.10',
  clusterIPs: ['10.0.0.10'],
  ports: [
    { name: 'tcp', protocol: 'TCP', port: 42, targetPort: 42 },
    { name: 'udp', protocol: 'UDP', port: 42, targetPort: 42 },
  ],
  sessionAffinity: 'ClientIP',
  sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
  ipFamilies: ['IPv4'],
  ipFamilyPolicy: 'PreferDualStack',
  internalTrafficPolicy: 'Cluster',
};

interface Options {
  created?: string;
  spec?: Partial<Spec>;
  noService?: boolean;
  exportedLabels?: Record<string, string>;
  exportedAnnotations?: Record<string, string>;
  clusterId?: string;
}

function facts(cluster: string, o: Options = {}): ExportFacts {
  return {
    cluster,
    clusterId: o.clusterId ?? `id-${cluster}`,
    export: {
      metadata: { name: 'hello', namespace: 'ns', creationTimestamp: o.created ?? '2026-01-01T00:00:00Z' },
      spec: {
        ...(o.exportedLabels ? { exportedLabels: o.exportedLabels } : {}),
        ...(o.exportedAnnotations ? { exportedAnnotations: o.exportedAnnotations } : {}),
      },
    },
    service: o.noService
      ? undefined
      : { metadata: { name: 'hello', namespace: 'ns' }, spec: { ...helloSpec, ...o.spec } },
  };
}

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:00:01Z';
const T2 = '2026-01-01T00:00:02Z';

const svc = (spec?: Spec): ServiceObject => ({ metadata: { name: 's' }, ...(spec ? { spec } : {}) });

describe('importTypeOf (KEP-1645 Service Types)', () => {
  test('clusterIP None is Headless; ClusterIP, NodePort and LoadBalancer are ClusterSetIP', () => {
    assert.equal(importTypeOf(svc({ clusterIP: 'None' })), 'Headless');
    assert.equal(importTypeOf(svc({ clusterIPs: ['None'] })), 'Headless');
    for (const type of ['ClusterIP', 'NodePort', 'LoadBalancer']) {
      assert.equal(importTypeOf(svc({ type, clusterIP: '10.0.0.1' })), 'ClusterSetIP', type);
    }
    assert.equal(importTypeOf(svc()), 'ClusterSetIP');
  });
});

describe('resolveImport', () => {
  test('one ClusterIP export: the import copies the Service (conformance ClusterIP, affinity, ports specs)', () => {
    const r = resolveImport([facts('member-1')]);
    assert.deepEqual(r.merged, {
      spec: {
        ports: [
          { name: 'tcp', protocol: 'TCP', port: 42 },
          { name: 'udp', protocol: 'UDP', port: 42 },
        ],
        type: 'ClusterSetIP',
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
        ipFamilies: ['IPv4'],
        internalTrafficPolicy: 'Cluster',
      },
      labels: {},
      annotations: {},
      clusterIds: ['id-member-1'],
    });
    assert.deepEqual(r.validity.get('member-1')?.reason, 'Valid');
    assert.deepEqual(r.conflicts.get('member-1'), { reasons: [], message: '' });
  });

  test('trafficDistribution and internalTrafficPolicy Local are copied; sessionAffinity defaults to None', () => {
    const r = resolveImport([
      facts('m1', {
        spec: {
          trafficDistribution: 'PreferClose',
          internalTrafficPolicy: 'Local',
          sessionAffinity: undefined,
          sessionAffinityConfig: undefined,
        },
      }),
    ]);
    assert.equal(r.merged?.spec.trafficDistribution, 'PreferClose');
    assert.equal(r.merged?.spec.internalTrafficPolicy, 'Local');
    assert.equal(r.merged?.spec.sessionAffinity, 'None');
    assert.equal('sessionAffinityConfig' in (r.merged?.spec ?? {}), false);
  });

  test('headless export: a Headless import, ports kept (conformance testHeadlessServiceImport)', () => {
    const r = resolveImport([facts('m1', { spec: { clusterIP: 'None', clusterIPs: ['None'] } })]);
    assert.equal(r.merged?.spec.type, 'Headless');
    assert.equal(r.merged?.spec.ports.length, 2);
    assert.equal('ips' in (r.merged?.spec ?? {}), false);
  });

  test('ExternalName and missing Service: invalid, no conflict entry, no import when none is valid', () => {
    const r = resolveImport([
      facts('ext', { spec: { type: 'ExternalName', externalName: 'example.com' } }),
      facts('gone', { noService: true }),
    ]);
    assert.equal(r.merged, undefined);
    assert.equal(r.validity.get('ext')?.reason, 'InvalidServiceType');
    assert.equal(r.validity.get('gone')?.reason, 'NoService');
    assert.equal(r.conflicts.size, 0);
  });

  test('an invalid export does not take part: its Service does not conflict, its id is not listed', () => {
    const r = resolveImport([
      facts('ok', { created: T1 }),
      facts('ext', { created: T0, spec: { type: 'ExternalName', clusterIP: undefined, ports: [] } }),
    ]);
    assert.deepEqual(r.merged?.clusterIds, ['id-ok']);
    assert.deepEqual([...r.conflicts.keys()], ['ok']);
    assert.deepEqual(r.conflicts.get('ok')?.reasons, []);
  });

  test('no exports: nothing', () => {
    const r = resolveImport([]);
    assert.equal(r.merged, undefined);
    assert.equal(r.validity.size, 0);
  });

  test('conformance testServiceTypeConflict: ClusterIP oldest, headless newer → ClusterSetIP, TypeConflict on both', () => {
    const r = resolveImport([
      facts('cluster-2', {
        created: T1,
        clusterId: 'cluster-2',
        spec: { clusterIP: 'None', clusterIPs: ['None'] },
      }),
      facts('cluster-1', { created: T0, clusterId: 'cluster-1' }),
    ]);
    assert.equal(r.merged?.spec.type, 'ClusterSetIP');
    for (const c of ['cluster-1', 'cluster-2']) {
      assert.deepEqual(r.conflicts.get(c), {
        reasons: ['TypeConflict'],
        message:
          'Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-1". 1/2 clusters disagree.',
      });
    }
    assert.deepEqual(r.merged?.clusterIds, ['cluster-1', 'cluster-2']);
  });

  test('headless oldest wins the other way round', () => {
    const r = resolveImport([
      facts('a', { created: T0, spec: { clusterIP: 'None', clusterIPs: ['None'] } }),
      facts('b', { created: T1 }),
    ]);
    assert.equal(r.merged?.spec.type, 'Headless');
    assert.deepEqual(r.conflicts.get('b')?.reasons, ['TypeConflict']);
  });

  test("conformance conflicting labels and annotations: the oldest export's, Labels and Annotations conflicts on both", () => {
    const r = resolveImport([
      facts('c1', {
        created: T0,
        exportedLabels: { 'dummy-label': 'true' },
        exportedAnnotations: { 'dummy-annotation': 'true' },
      }),
      facts('c2', {
        created: T1,
        exportedLabels: { 'dummy-label2': 'true' },
        exportedAnnotations: { 'dummy-annotation2': 'true' },
      }),
    ]);
    assert.deepEqual(r.merged?.labels, { 'dummy-label': 'true' });
    assert.deepEqual(r.merged?.annotations, { 'dummy-annotation': 'true' });
    for (const c of ['c1', 'c2']) {
      assert.deepEqual(r.conflicts.get(c)?.reasons, ['LabelsConflict', 'AnnotationsConflict']);
      assert.equal(
        r.conflicts.get(c)?.message,
        'Conflicting exportedLabels. Using "dummy-label=true" from oldest service export in "id-c1". 1/2 clusters disagree.; ' +
          'Conflicting exportedAnnotations. Using "dummy-annotation=true" from oldest service export in "id-c1". 1/2 clusters disagree.',
      );
    }
  });

  test('exported labels are copied, not shared with the export', () => {
    const f = facts('c1', { exportedLabels: { a: 'b' } });
    const r = resolveImport([f]);
    assert.notEqual(r.merged?.labels, f.export.spec?.exportedLabels);
    assert.deepEqual(r.merged?.labels, { a: 'b' });
  });

  test('conformance union of ports with SCTP: no conflict', () => {
    const r = resolveImport([
      facts('c1', { created: T0 }),
      facts('c2', {
        created: T1,
        spec: { ports: [helloSpec.ports![0]!, { name: 'stcp', protocol: 'SCTP', port: 142 }] },
      }),
    ]);
    assert.deepEqual(
      r.merged?.spec.ports.map((p) => `${p.name}/${p.protocol}/${p.port}`),
      ['tcp/TCP/42', 'udp/UDP/42', 'stcp/SCTP/142'],
    );
    assert.deepEqual(r.conflicts.get('c2')?.reasons, []);
  });

  test("conformance same name, different port: the oldest export's ports, PortConflict on both", () => {
    const r = resolveImport([
      facts('c2', { created: T1, spec: { ports: [{ name: 'tcp', protocol: 'TCP', port: 43 }] } }),
      facts('c1', { created: T0 }),
    ]);
    assert.deepEqual(
      r.merged?.spec.ports.map((p) => `${p.name}/${p.protocol}/${p.port}`),
      ['tcp/TCP/42', 'udp/UDP/42'],
    );
    for (const c of ['c1', 'c2']) {
      assert.deepEqual(r.conflicts.get(c)?.reasons, ['PortConflict']);
      assert.match(r.conflicts.get(c)?.message ?? '', /^Conflicting ports\. .* 1\/2 clusters disagree\.$/);
    }
  });

  test("every conflict reason, in mcs-api's order, counted over all valid exports", () => {
    const r = resolveImport([
      facts('old', { created: T0, exportedLabels: { l: '1' }, exportedAnnotations: { a: '1' } }),
      facts('same', { created: T1, exportedLabels: { l: '1' }, exportedAnnotations: { a: '1' } }),
      facts('new', {
        created: T2,
        exportedLabels: { l: '2' },
        exportedAnnotations: {},
        spec: {
          clusterIP: 'None',
          clusterIPs: ['None'],
          ports: [{ name: 'tcp', protocol: 'TCP', port: 43 }],
          sessionAffinity: 'None',
          sessionAffinityConfig: undefined,
          internalTrafficPolicy: 'Local',
          trafficDistribution: 'PreferClose',
          ipFamilies: ['IPv6'],
        },
      }),
    ]);
    const expected = [
      'PortConflict',
      'TypeConflict',
      'SessionAffinityConflict',
      'SessionAffinityConfigConflict',
      'LabelsConflict',
      'AnnotationsConflict',
      'InternalTrafficPolicyConflict',
      'TrafficDistributionConflict',
      'IPFamilyConflict',
    ];
    for (const c of ['old', 'same', 'new']) assert.deepEqual(r.conflicts.get(c)?.reasons, expected, c);
    const parts = r.conflicts.get('same')?.message.split('; ') ?? [];
    assert.equal(parts.length, 9);
    assert.deepEqual(parts.slice(1), [
      'Conflicting type. Using "ClusterSetIP" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting sessionAffinity. Using "ClientIP" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting sessionAffinityConfig. Using "clientIP.timeoutSeconds=10" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting exportedLabels. Using "l=1" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting exportedAnnotations. Using "a=1" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting internalTrafficPolicy. Using "Cluster" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting trafficDistribution. Using "" from oldest service export in "id-old". 1/3 clusters disagree.',
      'Conflicting ipFamilies. Using "IPv4" from oldest service export in "id-old". 1/3 clusters disagree.',
    ]);
    // The oldest decides all of it.
    assert.deepEqual(r.merged?.spec, {
      ports: [
        { name: 'tcp', protocol: 'TCP', port: 42 },
        { name: 'udp', protocol: 'UDP', port: 42 },
      ],
      type: 'ClusterSetIP',
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } },
      ipFamilies: ['IPv4'],
      internalTrafficPolicy: 'Cluster',
    });
  });

  test('the count says how many disagree: 2/3', () => {
    const r = resolveImport([
      facts('a', { created: T0 }),
      facts('b', { created: T1, spec: { sessionAffinity: 'None' } }),
      facts('c', { created: T2, spec: { sessionAffinity: 'None' } }),
    ]);
    assert.match(
      r.conflicts.get('a')?.message ?? '',
      /Conflicting sessionAffinity\. .* 2\/3 clusters disagree\./,
    );
  });

  test('defaults do not conflict: unset internalTrafficPolicy is Cluster, unset sessionAffinity is None', () => {
    const r = resolveImport([
      facts('a', { created: T0, spec: { internalTrafficPolicy: undefined } }),
      facts('b', { created: T1 }),
      facts('c', { created: T2, spec: {} }),
    ]);
    assert.deepEqual(r.conflicts.get('a')?.reasons, []);
    const s = resolveImport([
      facts('a', { created: T0, spec: { sessionAffinity: undefined, sessionAffinityConfig: undefined } }),
      facts('b', { created: T1, spec: { sessionAffinity: 'None', sessionAffinityConfig: undefined } }),
    ]);
    assert.deepEqual(s.conflicts.get('b')?.reasons, []);
  });

  test('ipFamilies compare as sets; a Service that names none does not disagree', () => {
    const r = resolveImport([
      facts('a', { created: T0, spec: { ipFamilies: ['IPv4', 'IPv6'] } }),
      facts('b', { created: T1, spec: { ipFamilies: ['IPv6', 'IPv4'] } }),
      facts('c', { created: T2, spec: { ipFamilies: undefined } }),
    ]);
    assert.deepEqual(r.conflicts.get('a')?.reasons, []);
    assert.deepEqual(r.merged?.spec.ipFamilies, ['IPv4', 'IPv6']);
    const single = resolveImport([
      facts('a', { created: T0, spec: { ipFamilies: ['IPv4', 'IPv6'] } }),
      facts('b', { created: T1, spec: { ipFamilies: ['IPv4'] } }),
    ]);
    assert.deepEqual(single.conflicts.get('a')?.reasons, ['IPFamilyConflict']);
  });

  test('ties of creationTimestamp go to the cluster name, whatever order the exports come in', () => {
    const a = facts('alpha', { created: T0, exportedLabels: { from: 'alpha' } });
    const b = facts('beta', { created: T0, exportedLabels: { from: 'beta' } });
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const r = resolveImport(order);
      assert.deepEqual(r.merged?.labels, { from: 'alpha' });
      assert.match(r.conflicts.get('beta')?.message ?? '', /from oldest service export in "id-alpha"/);
    }
  });

  test('an export without a readable creationTimestamp counts as the newest', () => {
    const noTime = facts('aaa', { created: 'not a time', exportedLabels: { from: 'aaa' } });
    const r = resolveImport([noTime, facts('zzz', { created: T2, exportedLabels: { from: 'zzz' } })]);
    assert.deepEqual(r.merged?.labels, { from: 'zzz' });
  });

  test('timestamps compare as times, not strings', () => {
    const r = resolveImport([
      facts('a', { created: '2026-01-01T10:00:00+02:00', exportedLabels: { from: 'a' } }),
      facts('b', { created: '2026-01-01T09:00:00Z', exportedLabels: { from: 'b' } }),
    ]);
    // 10:00+02:00 is 08:00Z: a is older.
    assert.deepEqual(r.merged?.labels, { from: 'a' });
  });

  test('clusterIds are sorted and unique', () => {
    const r = resolveImport([
      facts('m3', { clusterId: 'zeta' }),
      facts('m1', { clusterId: 'alpha' }),
      facts('m2', { clusterId: 'alpha' }),
    ]);
    assert.deepEqual(r.merged?.clusterIds, ['alpha', 'zeta']);
  });

  test('each export gets its own conflict object', () => {
    const r = resolveImport([
      facts('a', { created: T0 }),
      facts('b', { created: T1, spec: { sessionAffinity: 'None' } }),
    ]);
    assert.notEqual(r.conflicts.get('a'), r.conflicts.get('b'));
    assert.notEqual(r.conflicts.get('a')?.reasons, r.conflicts.get('b')?.reasons);
  });
});
