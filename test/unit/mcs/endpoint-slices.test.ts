import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../src/kube/client/index.ts';
import { importedSlices, MAX_SLICE_ENDPOINTS, sourceEndpoints } from '../../../src/mcs/endpoint-slices.ts';
import type { SourceEndpoints } from '../../../src/mcs/model.ts';
import { UNNAMED_PORT_NAME } from '../../../src/mcs/names.ts';

const slice = (
  name: string,
  over: Record<string, unknown> = {},
  labels: Record<string, string> = {},
): KubeObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name,
    namespace: 'ns',
    labels: {
      'kubernetes.io/service-name': 'hello',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      ...labels,
    },
  },
  addressType: 'IPv4',
  ports: [{ name: 'tcp', protocol: 'TCP', port: 8080 }],
  endpoints: [],
  ...over,
});
const ep = (
  ip: string,
  conditions: Record<string, unknown> = { ready: true },
  extra: Record<string, unknown> = {},
) => ({
  addresses: [ip],
  conditions,
  ...extra,
});

describe('sourceEndpoints', () => {
  test('ready endpoints of the Service own slices, with hostname, pod name and zone, sorted by address', () => {
    const got = sourceEndpoints('cluster-1', 'hello', [
      slice('hello-b', {
        endpoints: [
          ep(
            '10.0.0.9',
            { ready: true },
            { targetRef: { kind: 'Pod', name: 'hello-9', namespace: 'ns' }, zone: 'z1' },
          ),
        ],
      }),
      slice('hello-a', {
        endpoints: [
          ep(
            '10.0.0.3',
            {},
            { hostname: 'web-0', targetRef: { kind: 'Pod', name: 'web-0' }, nodeName: 'n1' },
          ),
          ep('10.0.0.4', { ready: false, serving: true }),
          ep('10.0.0.5', { serving: true, terminating: true }),
        ],
      }),
    ]);
    assert.equal(got.clusterId, 'cluster-1');
    assert.deepEqual([...got.byAddressType.keys()], ['IPv4']);
    assert.deepEqual(got.byAddressType.get('IPv4'), {
      ports: [{ name: 'tcp', protocol: 'TCP', port: 8080 }],
      endpoints: [
        { addresses: ['10.0.0.3'], hostname: 'web-0', podName: 'web-0' },
        { addresses: ['10.0.0.9'], podName: 'hello-9', zone: 'z1' },
      ],
    });
  });

  test('our own MCS slices, other MCS imports and other Services are not sources', () => {
    const got = sourceEndpoints('cluster-1', 'hello', [
      slice(
        'mine',
        { endpoints: [ep('10.0.0.1')] },
        { 'endpointslice.kubernetes.io/managed-by': 'mcs.kubefed-ts.io' },
      ),
      slice(
        'theirs',
        { endpoints: [ep('10.0.0.2')] },
        { 'multicluster.kubernetes.io/source-cluster': 'cluster-2' },
      ),
      slice('other', { endpoints: [ep('10.0.0.3')] }, { 'kubernetes.io/service-name': 'other' }),
      slice('own', { endpoints: [ep('10.0.0.4')] }),
    ]);
    assert.deepEqual(
      got.byAddressType.get('IPv4')?.endpoints.map((e) => e.addresses[0]),
      ['10.0.0.4'],
    );
  });

  test('grouped by address type; duplicates across slices kept once; ports unique by name', () => {
    const got = sourceEndpoints('c', 'hello', [
      slice('a', { endpoints: [ep('10.0.0.1'), ep('10.0.0.2')] }),
      slice('b', {
        endpoints: [ep('10.0.0.2', { ready: true }, { hostname: 'dup' })],
        ports: [{ name: 'tcp', protocol: 'TCP', port: 9090 }],
      }),
      slice('c', {
        addressType: 'IPv6',
        endpoints: [ep('fd00::1')],
        ports: [{ name: '', protocol: 'UDP', port: 53 }],
      }),
    ]);
    assert.deepEqual([...got.byAddressType.keys()], ['IPv4', 'IPv6']);
    const v4 = got.byAddressType.get('IPv4')!;
    assert.deepEqual(v4.endpoints, [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }]);
    assert.deepEqual(v4.ports, [{ name: 'tcp', protocol: 'TCP', port: 8080 }]);
    assert.deepEqual(got.byAddressType.get('IPv6')?.ports, [{ protocol: 'UDP', port: 53 }]);
  });

  test('the result does not depend on list order', () => {
    const slices = [
      slice('a', { endpoints: [ep('10.0.0.2'), ep('10.0.0.1')] }),
      slice('b', { endpoints: [ep('10.0.0.3')], ports: [{ name: 'tcp', protocol: 'TCP', port: 9090 }] }),
    ];
    assert.deepEqual(
      sourceEndpoints('c', 'hello', slices),
      sourceEndpoints('c', 'hello', [...slices].reverse()),
    );
  });

  test('a slice with no endpoints still shows the address type; malformed entries are skipped', () => {
    const got = sourceEndpoints('c', 'hello', [
      slice('a', { endpoints: null }),
      slice('b', {
        addressType: 'IPv6',
        endpoints: [null, 'x', { addresses: 'nope' }, { addresses: [] }],
        ports: 'bad',
      }),
      slice('c', { addressType: undefined }),
    ]);
    assert.deepEqual(
      [...got.byAddressType.entries()],
      [
        ['IPv4', { ports: [{ name: 'tcp', protocol: 'TCP', port: 8080 }], endpoints: [] }],
        ['IPv6', { ports: [], endpoints: [] }],
      ],
    );
  });
});

const source = (
  byAddressType: SourceEndpoints['byAddressType'],
  clusterId = 'cluster-1',
): SourceEndpoints => ({
  clusterId,
  byAddressType,
});
const input = (s: SourceEndpoints) => ({
  namespace: 'ns',
  importName: 'hello',
  derivedName: 'derived-hello',
  source: s,
  owner: { name: 'hello', uid: 'uid-1' },
});

describe('importedSlices', () => {
  test('one MCS slice per address type: labels, non-controller owner, ready endpoints without targetRef', () => {
    const s = source(
      new Map([
        [
          'IPv4',
          {
            ports: [{ name: 'tcp', protocol: 'TCP', port: 8080, appProtocol: 'http' }],
            endpoints: [{ addresses: ['10.0.0.3'], hostname: 'web-0', podName: 'web-0', zone: 'z1' }],
          },
        ],
        ['IPv6', { ports: [{ name: 'tcp', protocol: 'TCP', port: 8080 }], endpoints: [] }],
      ]),
    );
    const slices = importedSlices(input(s));
    assert.deepEqual(slices, [
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'derived-hello-cluster-1-ipv4',
          namespace: 'ns',
          labels: {
            'kubernetes.io/service-name': 'derived-hello',
            'multicluster.kubernetes.io/service-name': 'hello',
            'multicluster.kubernetes.io/source-cluster': 'cluster-1',
            'endpointslice.kubernetes.io/managed-by': 'mcs.kubefed-ts.io',
          },
          ownerReferences: [
            {
              apiVersion: 'multicluster.x-k8s.io/v1beta1',
              kind: 'ServiceImport',
              name: 'hello',
              uid: 'uid-1',
              controller: false,
            },
          ],
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.3'], conditions: { ready: true }, hostname: 'web-0', zone: 'z1' }],
        ports: [{ name: 'tcp', protocol: 'TCP', port: 8080, appProtocol: 'http' }],
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'derived-hello-cluster-1-ipv6',
          namespace: 'ns',
          labels: {
            'kubernetes.io/service-name': 'derived-hello',
            'multicluster.kubernetes.io/service-name': 'hello',
            'multicluster.kubernetes.io/source-cluster': 'cluster-1',
            'endpointslice.kubernetes.io/managed-by': 'mcs.kubefed-ts.io',
          },
          ownerReferences: [
            {
              apiVersion: 'multicluster.x-k8s.io/v1beta1',
              kind: 'ServiceImport',
              name: 'hello',
              uid: 'uid-1',
              controller: false,
            },
          ],
        },
        addressType: 'IPv6',
        endpoints: [],
        ports: [{ name: 'tcp', protocol: 'TCP', port: 8080 }],
      },
    ]);
    const owner = (slices[0]!.metadata.ownerReferences as Array<Record<string, unknown>>)[0]!;
    assert.equal('blockOwnerDeletion' in owner, false);
  });

  test('from real source slices: only ready endpoints reach the MCS slice', () => {
    const s = sourceEndpoints('cluster-1', 'hello', [
      slice('hello-a', {
        endpoints: [
          ep('10.0.0.1', { ready: true }, { targetRef: { kind: 'Pod', name: 'p1' } }),
          ep('10.0.0.2', { ready: false }),
        ],
      }),
    ]);
    const [only] = importedSlices(input(s));
    assert.deepEqual(only?.endpoints, [{ addresses: ['10.0.0.1'], conditions: { ready: true } }]);
  });

  test('the unnamed port carries the name the derived Service gives it', () => {
    const s = source(new Map([['IPv4', { ports: [{ protocol: 'TCP', port: 8080 }], endpoints: [] }]]));
    assert.deepEqual(importedSlices(input(s))[0]?.ports, [
      { name: UNNAMED_PORT_NAME, protocol: 'TCP', port: 8080 },
    ]);
  });

  test('an address of the wrong family is dropped rather than failing the slice', () => {
    const s = source(
      new Map([
        ['IPv4', { ports: [], endpoints: [{ addresses: ['fd00::1'] }, { addresses: ['10.0.0.1'] }] }],
      ]),
    );
    assert.deepEqual(importedSlices(input(s))[0]?.endpoints, [
      { addresses: ['10.0.0.1'], conditions: { ready: true } },
    ]);
  });

  test('a dotted cluster id names the slice with dashes and keeps the id as the label', () => {
    const s = source(new Map([['IPv4', { ports: [], endpoints: [] }]]), 'east.reg1');
    const [only] = importedSlices(input(s));
    assert.match(only?.metadata.name ?? '', /^derived-hello-east-reg1-[0-9a-f]{10}-ipv4$/);
    assert.equal(only?.metadata.labels?.['multicluster.kubernetes.io/source-cluster'], 'east.reg1');
  });

  test('a cluster id that is no label value gives no slice', () => {
    const s = source(new Map([['IPv4', { ports: [], endpoints: [] }]]), 'x'.repeat(64));
    assert.deepEqual(importedSlices(input(s)), []);
  });

  test('a slice keeps to the API server limit of endpoints, the first ones by address', () => {
    const endpoints = Array.from({ length: MAX_SLICE_ENDPOINTS + 5 }, (_, i) => ({
      addresses: [`10.${Math.floor(i / 256)}.${i % 256}.1`],
    }));
    const s = sourceEndpoints('cluster-1', 'hello', [
      slice('big', { endpoints: endpoints.map((e) => ({ ...e, conditions: {} })) }),
    ]);
    const got = importedSlices(input(s))[0]?.endpoints as Array<{ addresses: string[] }>;
    assert.equal(got.length, MAX_SLICE_ENDPOINTS);
    assert.deepEqual(got[0]?.addresses, s.byAddressType.get('IPv4')?.endpoints[0]?.addresses);
  });
});
