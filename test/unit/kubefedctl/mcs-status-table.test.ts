import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildMcsStatus,
  clusterIdOf,
  type EndpointSliceObject,
  type MemberMcsFacts,
  renderMcsStatusText,
  type ServiceExportObject,
  type ServiceImportObject,
} from '../../../src/kubefedctl/mcs-status-table.ts';

const T = '2026-01-01T00:00:00Z';
const cond = (type: string, status: string, reason: string, message = '') => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
});
const exportOf = (ns: string, name: string, conditions: ReturnType<typeof cond>[]): ServiceExportObject => ({
  apiVersion: 'multicluster.x-k8s.io/v1beta1',
  kind: 'ServiceExport',
  metadata: { namespace: ns, name },
  status: { conditions },
});
const importOf = (
  ns: string,
  name: string,
  type: 'ClusterSetIP' | 'Headless',
  ips: string[],
  clusters: string[],
): ServiceImportObject => ({
  apiVersion: 'multicluster.x-k8s.io/v1beta1',
  kind: 'ServiceImport',
  metadata: { namespace: ns, name },
  spec: { type, ports: [{ port: 80, protocol: 'TCP' }], ...(ips.length > 0 ? { ips } : {}) },
  status: { clusters: clusters.map((cluster) => ({ cluster })) },
});
const slice = (
  ns: string,
  service: string,
  source: string,
  addressType: string,
  ready: boolean[],
): EndpointSliceObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    namespace: ns,
    name: `derived-${service}-${source}-${addressType.toLowerCase()}`,
    labels: {
      'multicluster.kubernetes.io/service-name': service,
      'multicluster.kubernetes.io/source-cluster': source,
    },
  },
  addressType,
  endpoints: ready.map((r, i) => ({ addresses: [`10.0.0.${i}`], conditions: { ready: r } })),
});
const member = (cluster: string, facts: Partial<MemberMcsFacts> = {}): MemberMcsFacts => ({
  cluster,
  properties: {},
  exports: [],
  imports: [],
  slices: [],
  ...facts,
});

const healthy = [
  cond('Valid', 'True', 'Valid'),
  cond('Conflict', 'False', 'NoConflicts'),
  cond('Ready', 'True', 'Exported'),
];

/** Two exporters of apps/web (one with a port conflict), a consumer, and a member that cannot be read. */
function fleet(): MemberMcsFacts[] {
  const imp = (ips: string[]) => importOf('apps', 'web', 'ClusterSetIP', ips, ['east', 'west']);
  const slices = [
    slice('apps', 'web', 'east', 'IPv4', [true, true]),
    slice('apps', 'web', 'west', 'IPv4', [true]),
  ];
  return [
    member('cluster2', {
      properties: { 'id.k8s.io': 'west' },
      exports: [
        exportOf('apps', 'web', [
          cond('Valid', 'True', 'Valid'),
          cond(
            'Conflict',
            'True',
            'PortConflict',
            'Conflicting ports. Using port "http" from oldest service export in "east". 1/2 clusters disagree.',
          ),
          cond('Ready', 'True', 'Exported'),
        ]),
      ],
      imports: [imp(['10.96.0.20'])],
      slices,
    }),
    member('cluster1', {
      properties: { 'cluster.clusterset.k8s.io': 'east', 'id.k8s.io': 'legacy-east' },
      exports: [exportOf('apps', 'web', healthy)],
      imports: [imp(['10.96.0.10'])],
      slices,
    }),
    member('cluster3', { imports: [imp(['10.96.0.30'])], slices }),
    member('cluster4', { unavailable: 'unreachable: connect ECONNREFUSED 127.0.0.1:1' }),
  ];
}

describe('mcs status: the table builder', () => {
  test('cluster id: cluster.clusterset.k8s.io, else id.k8s.io, else the cluster name', () => {
    assert.equal(clusterIdOf({ 'cluster.clusterset.k8s.io': 'a', 'id.k8s.io': 'b' }, 'c'), 'a');
    assert.equal(clusterIdOf({ 'id.k8s.io': 'b' }, 'c'), 'b');
    assert.equal(clusterIdOf({}, 'c'), 'c');
  });

  test('one service, a row per member sorted by name, an unreadable member as a row that says why', () => {
    const status = buildMcsStatus(fleet());
    assert.deepEqual(
      status.services.map((s) => `${s.namespace}/${s.name}`),
      ['apps/web'],
    );
    const [web] = status.services;
    assert.deepEqual(
      web?.clusters.map((r) => [r.cluster, r.clusterId, r.unavailable]),
      [
        ['cluster1', 'east', undefined],
        ['cluster2', 'west', undefined],
        ['cluster3', 'cluster3', undefined],
        ['cluster4', undefined, 'unreachable: connect ECONNREFUSED 127.0.0.1:1'],
      ],
    );
    assert.deepEqual(status.members, [
      { cluster: 'cluster1', clusterId: 'east' },
      { cluster: 'cluster2', clusterId: 'west' },
      { cluster: 'cluster3', clusterId: 'cluster3' },
      { cluster: 'cluster4', unavailable: 'unreachable: connect ECONNREFUSED 127.0.0.1:1' },
    ]);
    const c2 = web?.clusters[1];
    assert.deepEqual(c2?.export?.conflict?.reason, 'PortConflict');
    assert.deepEqual(c2?.import, { type: 'ClusterSetIP', ips: ['10.96.0.20'], clusters: ['east', 'west'] });
    assert.equal(web?.clusters[2]?.export, undefined, 'cluster3 only consumes');
    assert.deepEqual(
      web?.clusters[2]?.endpoints.map((e) => [e.sourceCluster, e.ready]),
      [
        ['east', 2],
        ['west', 1],
      ],
    );
  });

  test('the text table', () => {
    assert.equal(
      renderMcsStatusText(buildMcsStatus(fleet())),
      [
        'SERVICE apps/web',
        'CLUSTER   CLUSTER-ID  EXPORTED  VALID  CONFLICT             READY  IMPORT        IPS         ENDPOINTS',
        'cluster1  east        yes       True   False                True   ClusterSetIP  10.96.0.10  east=2 west=1',
        'cluster2  west        yes       True   True (PortConflict)  True   ClusterSetIP  10.96.0.20  east=2 west=1',
        'cluster3  cluster3    no        -      -                    -      ClusterSetIP  10.96.0.30  east=2 west=1',
        'cluster4  unreachable: connect ECONNREFUSED 127.0.0.1:1',
        '  cluster2: Conflict: Conflicting ports. Using port "http" from oldest service export in "east". 1/2 clusters disagree.',
        '',
      ].join('\n'),
    );
  });

  test('an invalid export shows its reason and message; a headless import has no IPs', () => {
    const status = buildMcsStatus([
      member('c1', {
        exports: [
          exportOf('apps', 'db', [
            cond('Valid', 'False', 'NoService', 'Service apps/db does not exist'),
            cond('Ready', 'Unknown', 'Pending', 'Waiting for a valid export'),
          ]),
          exportOf('apps', 'hl', healthy),
        ],
        imports: [importOf('apps', 'hl', 'Headless', [], ['c1'])],
        slices: [slice('apps', 'hl', 'c1', 'IPv4', [true, false, true])],
      }),
    ]);
    const text = renderMcsStatusText(status);
    assert.match(text, /^c1\s+c1\s+yes\s+False \(NoService\)\s+-\s+Unknown \(Pending\)\s+-\s+-\s+-$/m);
    assert.match(text, /^ {2}c1: Valid: Service apps\/db does not exist$/m);
    assert.match(text, /^ {2}c1: Ready: Waiting for a valid export$/m);
    const hl = status.services.find((s) => s.name === 'hl')?.clusters[0];
    assert.deepEqual(hl?.import?.ips, []);
    assert.match(text, /^c1\s+c1\s+yes\s+True\s+False\s+True\s+Headless\s+-\s+c1=2$/m);
  });

  test('a dual-stack endpoint, in one slice per family, counts once; families stay in the JSON', () => {
    const status = buildMcsStatus([
      member('c1', {
        imports: [importOf('apps', 'web', 'ClusterSetIP', ['10.96.0.1', 'fd00::1'], ['c2'])],
        slices: [
          slice('apps', 'web', 'c2', 'IPv4', [true, true]),
          slice('apps', 'web', 'c2', 'IPv6', [true, true]),
          // Another service's slice and another namespace's are not counted.
          slice('apps', 'api', 'c2', 'IPv4', [true]),
          slice('other', 'web', 'c2', 'IPv4', [true]),
        ],
      }),
    ]);
    const web = status.services.find((s) => s.namespace === 'apps' && s.name === 'web');
    assert.deepEqual(web?.clusters[0]?.endpoints, [
      { sourceCluster: 'c2', ready: 2, byAddressType: { IPv4: 2, IPv6: 2 } },
    ]);
    assert.match(renderMcsStatusText(status), /10\.96\.0\.1,fd00::1 {2}c2=2$/m);
  });

  test('filters: namespace and name; services sorted by namespace then name', () => {
    const members = [
      member('c1', {
        exports: [exportOf('b', 'x', healthy), exportOf('a', 'y', healthy), exportOf('a', 'x', healthy)],
      }),
    ];
    const names = (f: Parameters<typeof buildMcsStatus>[1]) =>
      buildMcsStatus(members, f).services.map((s) => `${s.namespace}/${s.name}`);
    assert.deepEqual(names({}), ['a/x', 'a/y', 'b/x']);
    assert.deepEqual(names({ namespace: 'a' }), ['a/x', 'a/y']);
    assert.deepEqual(names({ name: 'x' }), ['a/x', 'b/x']);
    assert.deepEqual(names({ namespace: 'b', name: 'y' }), []);
  });

  test('nothing exported: one line, then every member that could not be read', () => {
    assert.equal(
      renderMcsStatusText(
        buildMcsStatus([
          member('c1'),
          member('c2', { unavailable: 'joined in Pull mode: not served by multi-cluster services' }),
        ]),
      ),
      'No exported or imported services found.\n  c2: joined in Pull mode: not served by multi-cluster services\n',
    );
  });
});
