// How many more replicas of a workload a member cluster can run, from its nodes and pods: the node-level
// estimate of Karmada's scheduler-estimator (karmada pkg/estimator/server/nodes and
// pkg/util/lifted/scheduler: per node, allocatable minus the requests of the pods bound to it, divided by
// one replica's request), over the nodes the replica's node claim admits (node-claim.ts, as Karmada's
// NodeResourceEstimator filters with estimator.MatchNode). Pure; capacity-estimator.ts feeds it from the
// member caches.

import type { KubeObject } from '../../kube/client/types.ts';
import { isPlainObject } from '../../propagation/json.ts';
import { nodeClaimMatcher } from './node-claim.ts';
import { quantityOrZero } from './quantity.ts';

type Resources = Map<string, bigint>;
const ONE = 1_000_000_000n;

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/**
 * Whether the node reports Ready=True. Karmada's estimator leaves this to the node controller's
 * not-ready and unreachable taints; members without that controller (kwok, a stopped controller manager)
 * would otherwise count dead nodes.
 */
export function nodeReady(node: KubeObject): boolean {
  const ready = list(record(node.status).conditions).find((c) => c.type === 'Ready');
  return ready?.status === 'True';
}

function add(into: Resources, from: Resources): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0n) + v);
}

function requestsOf(container: Record<string, unknown>): Resources {
  const requests = record(record(container.resources).requests);
  return new Map(Object.entries(requests).map(([k, v]) => [k, quantityOrZero(v)]));
}

/**
 * A pod's effective request (the kube scheduler's computePodResourceRequest): the sum over containers,
 * at least the largest init container's, plus the pod overhead.
 */
export function podRequests(podSpec: Record<string, unknown>): Resources {
  const total: Resources = new Map();
  for (const c of list(podSpec.containers)) add(total, requestsOf(c));
  for (const c of list(podSpec.initContainers))
    for (const [k, v] of requestsOf(c)) if (v > (total.get(k) ?? 0n)) total.set(k, v);
  add(total, new Map(Object.entries(record(podSpec.overhead)).map(([k, v]) => [k, quantityOrZero(v)])));
  return total;
}

function terminated(pod: KubeObject): boolean {
  const phase = record(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Replicas of `request` (one replica's resource requests) that still fit on the nodes, given the pods
 * bound to them (spec.nodeName, not Succeeded or Failed): per ready node that `nodeClaim` (the binding's
 * replicaRequirements.nodeClaim; absent: any node) admits, the minimum over the requested resources of
 * floor(free / request), bounded by the pods the node may still take; summed.
 */
export function estimateAvailableReplicas(
  nodes: readonly KubeObject[],
  pods: readonly KubeObject[],
  request: Readonly<Record<string, string | number>>,
  nodeClaim?: unknown,
): number {
  const admits = nodeClaimMatcher(nodeClaim);
  const wanted = Object.entries(request)
    .map(([k, v]) => [k, quantityOrZero(v)] as const)
    .filter(([k, v]) => v > 0n && k !== 'pods');
  const used = new Map<string, Resources>();
  const podCount = new Map<string, number>();
  for (const pod of pods) {
    const spec = record(pod.spec);
    const node = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    if (!node || terminated(pod)) continue;
    const u = used.get(node) ?? new Map<string, bigint>();
    used.set(node, u);
    add(u, podRequests(spec));
    podCount.set(node, (podCount.get(node) ?? 0) + 1);
  }
  let total = 0;
  for (const node of nodes) {
    if (!nodeReady(node) || !admits(node)) continue;
    const status = record(node.status);
    const allocatable = record(
      Object.keys(record(status.allocatable)).length > 0 ? status.allocatable : status.capacity,
    );
    const name = node.metadata.name ?? '';
    const u = used.get(name) ?? new Map<string, bigint>();
    let fits = Number(quantityOrZero(allocatable.pods) / ONE) - (podCount.get(name) ?? 0);
    for (const [resource, per] of wanted) {
      const free = quantityOrZero(allocatable[resource]) - (u.get(resource) ?? 0n);
      fits = Math.min(fits, free <= 0n ? 0 : Number(free / per));
    }
    total += Math.max(0, fits);
  }
  return total;
}
