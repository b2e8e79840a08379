import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../../src/kube/client/types.ts';
import { estimateAvailableReplicas, podRequests } from '../../../../src/sources/policy/capacity.ts';
import { parseQuantity } from '../../../../src/sources/policy/quantity.ts';
import {
  formatQuantity,
  replicaRequirementsOf,
} from '../../../../src/sources/policy/replica-requirements.ts';

const G = 1_000_000_000n;

describe('parseQuantity', () => {
  test('decimal and binary suffixes, exactly', () => {
    assert.equal(parseQuantity('1'), G);
    assert.equal(parseQuantity('100m'), 100_000_000n);
    assert.equal(parseQuantity('1.5'), 1_500_000_000n);
    assert.equal(parseQuantity('2k'), 2000n * G);
    assert.equal(parseQuantity('1Ki'), 1024n * G);
    assert.equal(parseQuantity('1Mi'), 1048576n * G);
    assert.equal(parseQuantity('1Gi'), 1073741824n * G);
    assert.equal(parseQuantity('1Ti'), 1099511627776n * G);
    assert.equal(parseQuantity('0.5Gi'), 536870912n * G);
    assert.equal(parseQuantity('3M'), 3_000_000n * G);
    assert.equal(parseQuantity('1G'), 10n ** 9n * G);
    assert.equal(parseQuantity('1T'), 10n ** 12n * G);
    assert.equal(parseQuantity('250u'), 250_000n);
    assert.equal(parseQuantity('7n'), 7n);
    assert.equal(parseQuantity(3), 3n * G);
  });

  test('e-notation, signs and rounding up below a nano-unit', () => {
    assert.equal(parseQuantity('1e3'), 1000n * G);
    assert.equal(parseQuantity('1.5E2'), 150n * G);
    assert.equal(parseQuantity('5e-1'), 500_000_000n);
    assert.equal(parseQuantity('1e-10'), 1n);
    assert.equal(parseQuantity('-2'), -2n * G);
    assert.equal(parseQuantity('.5'), 500_000_000n);
  });

  test('invalid quantities', () => {
    for (const bad of ['', 'abc', '1X', '1.2.3', 'Gi', '1 Gi', '1iB'])
      assert.equal(parseQuantity(bad), undefined, bad);
  });
});

const node = (
  name: string,
  allocatable: Record<string, string>,
  extra: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  spec: extra,
  status: { allocatable, conditions: [{ type: 'Ready', status: 'True' }] },
});
const pod = (nodeName: string | undefined, cpu: string, phase = 'Running', init?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${Math.random()}`, namespace: 'ns' },
  spec: {
    ...(nodeName ? { nodeName } : {}),
    containers: [{ name: 'a', resources: { requests: { cpu } } }],
    ...(init ? { initContainers: [{ name: 'i', resources: { requests: { cpu: init } } }] } : {}),
  },
  status: { phase },
});

describe('estimateAvailableReplicas', () => {
  const small = { cpu: '2', memory: '4Gi', pods: '110' };

  test('allocatable divided by the request, summed over nodes, the scarcest resource deciding', () => {
    const nodes = [node('n1', small), node('n2', small)];
    assert.equal(estimateAvailableReplicas(nodes, [], { cpu: '500m' }), 8);
    assert.equal(estimateAvailableReplicas(nodes, [], { cpu: '500m', memory: '2Gi' }), 4);
    assert.equal(estimateAvailableReplicas(nodes, [], { cpu: '3' }), 0);
  });

  test('pods bound to a node take their requests; pending and finished pods do not', () => {
    const nodes = [node('n1', small)];
    const pods = [
      pod('n1', '1'),
      pod(undefined, '1', 'Pending'),
      pod('n1', '1', 'Succeeded'),
      pod('n1', '1', 'Failed'),
    ];
    assert.equal(estimateAvailableReplicas(nodes, pods, { cpu: '500m' }), 2);
  });

  test('init containers count at their maximum against the sum of containers', () => {
    const nodes = [node('n1', small)];
    assert.equal(
      estimateAvailableReplicas(nodes, [pod('n1', '500m', 'Running', '1500m')], { cpu: '500m' }),
      1,
    );
    assert.deepEqual(
      podRequests({
        containers: [{ resources: { requests: { cpu: '1' } } }, { resources: { requests: { cpu: '1' } } }],
        initContainers: [{ resources: { requests: { cpu: '1500m' } } }],
      }).get('cpu'),
      2n * G,
    );
  });

  test('the pod count bounds the estimate; an empty request is bounded by pods only', () => {
    const nodes = [node('n1', { cpu: '100', pods: '3' })];
    assert.equal(estimateAvailableReplicas(nodes, [pod('n1', '0')], { cpu: '1' }), 2);
    assert.equal(estimateAvailableReplicas(nodes, [], {}), 3);
  });

  test('without tolerations, cordoned, NoSchedule-tainted and not ready nodes take nothing', () => {
    const notReady: KubeObject = {
      ...node('n3', small),
      status: { allocatable: small, conditions: [{ type: 'Ready', status: 'False' }] },
    };
    const nodes = [
      node('n1', small, { unschedulable: true }),
      node('n2', small, { taints: [{ key: 'k', effect: 'NoSchedule' }] }),
      notReady,
      node('n4', small, { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }),
    ];
    assert.equal(estimateAvailableReplicas(nodes, [], { cpu: '1' }), 2);
  });

  test('only the nodes the node claim admits count (selector, affinity, tolerations)', () => {
    const labelled = (name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
      ...node(name, small, spec),
      metadata: { name, labels },
    });
    const gpuTaint = { taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }] };
    const nodes = [
      labelled('gpu-a', { gpu: 'true', zone: 'a' }, gpuTaint),
      labelled('cpu-a', { zone: 'a' }),
      labelled('cpu-b', { zone: 'b' }),
    ];
    const request = { cpu: '1' };
    assert.equal(estimateAvailableReplicas(nodes, [], request), 4, 'no claim: untainted nodes');
    assert.equal(estimateAvailableReplicas(nodes, [], request, { nodeSelector: { gpu: 'true' } }), 0);
    const gpu = {
      nodeSelector: { gpu: 'true' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    };
    assert.equal(estimateAvailableReplicas(nodes, [pod('gpu-a', '1')], request, gpu), 1);
    const zoneB = {
      hardNodeAffinity: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }],
      },
    };
    assert.equal(estimateAvailableReplicas(nodes, [], request, zoneB), 2);
    const cordoned = [node('n1', small, { unschedulable: true })];
    const toleratesCordon = {
      tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }],
    };
    assert.equal(estimateAvailableReplicas(cordoned, [], request, toleratesCordon), 2);
  });

  test('a resource the node does not have fits nothing', () => {
    assert.equal(estimateAvailableReplicas([node('n1', small)], [], { 'nvidia.com/gpu': '1' }), 0);
  });
});

describe('parseQuantity bounds (resource.ParseQuantity caps at 2^63-1 and rounds tiny values up)', () => {
  const MAX = ((1n << 63n) - 1n) * G;
  test('huge exponents cap at once and never throw', () => {
    assert.equal(parseQuantity('1e9999999'), MAX);
    assert.equal(parseQuantity('1e999999999'), MAX);
    assert.equal(parseQuantity(`1e${'9'.repeat(40)}`), MAX);
    assert.equal(parseQuantity('-1e999999999'), -MAX);
    assert.equal(parseQuantity('99999999999999999999'), MAX);
    assert.equal(parseQuantity('9Ei'), MAX);
    assert.equal(parseQuantity('9223372036854775807'), MAX);
  });
  test('tiny nonzero values round up to one nano-unit; zero stays zero', () => {
    assert.equal(parseQuantity('1e-999999999'), 1n);
    assert.equal(parseQuantity('1e-12'), 1n);
    assert.equal(parseQuantity('0e-999999999'), 0n);
    assert.equal(parseQuantity('0.000e999999999'), 0n);
  });
});

describe('replicaRequirementsOf', () => {
  const deployment = (podSpec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns' },
    spec: { replicas: 3, template: { spec: podSpec } },
  });

  test("a Deployment's pod template requests, summed over containers", () => {
    assert.deepEqual(
      replicaRequirementsOf(
        deployment({
          containers: [
            { name: 'a', resources: { requests: { cpu: '250m', memory: '1Gi' } } },
            { name: 'b', resources: { requests: { cpu: '750m' } } },
          ],
          nodeSelector: { disk: 'ssd' },
        }),
      ),
      { nodeClaim: { nodeSelector: { disk: 'ssd' } }, resourceRequest: { cpu: '1', memory: '1073741824' } },
    );
  });

  test('the node claim: tolerations and the required node affinity, never the preferred one', () => {
    const required = {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
    };
    const tolerations = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }];
    const preferred = [{ weight: 1, preference: { matchExpressions: [{ key: 'x', operator: 'Exists' }] } }];
    assert.deepEqual(
      replicaRequirementsOf(
        deployment({
          containers: [{ name: 'a' }],
          tolerations,
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: required,
              preferredDuringSchedulingIgnoredDuringExecution: preferred,
            },
          },
        }),
      ),
      { nodeClaim: { hardNodeAffinity: required, tolerations } },
    );
    assert.equal(
      replicaRequirementsOf(
        deployment({
          containers: [{ name: 'a' }],
          affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } },
          tolerations: [],
          nodeSelector: {},
        }),
      ),
      undefined,
    );
  });

  test('the kind must be in its group and version: a CRD named Deployment is no Deployment', () => {
    const pod = { containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] };
    assert.ok(replicaRequirementsOf(deployment(pod)));
    assert.equal(replicaRequirementsOf({ ...deployment(pod), apiVersion: 'example.com/v1' }), undefined);
    assert.equal(
      replicaRequirementsOf({
        apiVersion: 'example.com/v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: pod,
      }),
      undefined,
    );
  });

  test('no requests and no node claim: none; non-workloads: none', () => {
    assert.equal(replicaRequirementsOf(deployment({ containers: [{ name: 'a' }] })), undefined);
    assert.equal(
      replicaRequirementsOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }),
      undefined,
    );
  });

  test('Pods and Jobs', () => {
    const containers = [{ name: 'a', resources: { requests: { cpu: '100m' } } }];
    assert.deepEqual(
      replicaRequirementsOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } }),
      {
        resourceRequest: { cpu: '100m' },
      },
    );
    assert.deepEqual(
      replicaRequirementsOf({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j' },
        spec: { template: { spec: { containers } } },
      }),
      { resourceRequest: { cpu: '100m' } },
    );
  });

  test('formatQuantity round-trips through parseQuantity', () => {
    for (const q of ['1', '100m', '7n', '1073741824'])
      assert.equal(formatQuantity(parseQuantity(q) ?? 0n), q);
  });
});
