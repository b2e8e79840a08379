// What one replica of a workload needs (karmada pkg/resourceinterpreter/default/native/replica.go and
// pkg/util/helper GenerateReplicaRequirements): the pod template's resource requests as the kube
// scheduler counts them, and its node claim. The scheduler estimates each cluster's room from these
// (capacity.ts); the binding carries them in spec.replicaRequirements like Karmada's. Pure.

import type { ReplicaRequirements } from '../../api/work/v1alpha2/resourcebinding.ts';
import type { KubeObject } from '../../kube/client/types.ts';
import { isPlainObject } from '../../propagation/json.ts';
import { podRequests } from './capacity.ts';

const NANO = 1_000_000_000n;

/** A nano-unit amount as a quantity string: whole units, else milli-units, else nano-units. */
export function formatQuantity(nanos: bigint): string {
  if (nanos % NANO === 0n) return String(nanos / NANO);
  if (nanos % 1_000_000n === 0n) return `${nanos / 1_000_000n}m`;
  return `${nanos}n`;
}

/**
 * The pod spec a workload's replicas are made of, for the kinds Karmada's default interpreter knows. Those
 * are keyed by group, version and kind (pkg/resourceinterpreter/default/native/replica.go), so a CRD
 * that happens to be called Deployment in another group is none.
 */
function podSpecOf(template: KubeObject): Record<string, unknown> | undefined {
  const spec = isPlainObject(template.spec) ? template.spec : undefined;
  if (!spec) return undefined;
  switch (`${template.apiVersion ?? ''}/${template.kind ?? ''}`) {
    case 'v1/Pod':
      return spec;
    case 'apps/v1/Deployment':
    case 'apps/v1/ReplicaSet':
    case 'apps/v1/StatefulSet':
    case 'batch/v1/Job': {
      const pod = isPlainObject(spec.template) ? spec.template : undefined;
      return pod && isPlainObject(pod.spec) ? pod.spec : undefined;
    }
    default:
      return undefined;
  }
}

/** spec.replicaRequirements for the template's binding, or undefined (no requests, no node claim). */
export function replicaRequirementsOf(template: KubeObject): ReplicaRequirements | undefined {
  const pod = podSpecOf(template);
  if (!pod) return undefined;
  const requests = [...podRequests(pod)].filter(([, v]) => v > 0n).sort(([a], [b]) => (a < b ? -1 : 1));
  const nodeClaim: Record<string, unknown> = {};
  if (isPlainObject(pod.nodeSelector) && Object.keys(pod.nodeSelector).length > 0)
    nodeClaim.nodeSelector = pod.nodeSelector;
  if (Array.isArray(pod.tolerations) && pod.tolerations.length > 0) nodeClaim.tolerations = pod.tolerations;
  const affinity = isPlainObject(pod.affinity) ? pod.affinity : {};
  const nodeAffinity = isPlainObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  if (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution !== undefined)
    nodeClaim.hardNodeAffinity = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (requests.length === 0 && Object.keys(nodeClaim).length === 0) return undefined;
  return {
    ...(Object.keys(nodeClaim).length > 0 ? { nodeClaim } : {}),
    ...(requests.length > 0
      ? { resourceRequest: Object.fromEntries(requests.map(([k, v]) => [k, formatQuantity(v)])) }
      : {}),
  };
}
