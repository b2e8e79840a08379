// How many more replicas of a workload a member cluster can run, from its nodes and pods: the node-level
// estimate of Karmada's scheduler-estimator (karmada pkg/estimator/server/nodes and
// pkg/util/lifted/scheduler: per node, allocatable minus the requests of the pods bound to it, divided by
// one replica's request). Pure; capacity-estimator.ts feeds it from the member caches.
//
// Simplified against Karmada: every schedulable node counts (no nodeClaim: node selectors, affinity and
// tolerations of the pod template are not matched), and a node with any NoSchedule or NoExecute taint
// counts as full.

import type { KubeObject } from '../../kube/client/types.ts';
import { isPlainObject } from '../../propagation/json.ts';
import { quantityOrZero } from './quantity.ts';

type Resources = Map<string, bigint>;
const ONE = 1_000_000_000n;

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** Whether new pods can land on the node: Ready, not cordoned, no NoSchedule/NoExecute taint. */
export function nodeSchedulable(node: KubeObject): boolean {
  const spec = record(node.spec);
  if (spec.unschedulable === true) return false;
  if (list(spec.taints).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) return false;
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
 * bound to them (spec.nodeName, not Succeeded or Failed): per schedulable node the minimum over the
 * requested resources of floor(free / request), bounded by the pods the node may still take; summed.
 */
export function estimateAvailableReplicas(
  nodes: readonly KubeObject[],
  pods: readonly KubeObject[],
  request: Readonly<Record<string, string | number>>,
): number {
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
    if (!nodeSchedulable(node)) continue;
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
