// Whether a member object is healthy: Karmada's built-in InterpretHealth (karmada
// pkg/resourceinterpreter/default/native/healthy.go) as the work status controller applies it
// (pkg/controllers/status/work_status_controller.go, interpretHealth): a kind without a health rule is Healthy,
// an object the rule cannot read is Unknown. These rules differ from the KubeFed-side roll-up in
// src/propagation/workload-aggregate.ts (which also counts ready replicas and never reports Unknown), so they are
// kept apart to stay Karmada's.

import type { KubeObject } from '../../../kube/client/index.ts';
import type { JsonObject } from '../../../propagation/json.ts';
import {
  conditionTrue,
  generationOf,
  intField,
  isBuiltin,
  MalformedField,
  objectField,
  objectListField,
  optionalIntField,
  stringField,
  topField,
} from './fields.ts';

export type MemberHealth = 'Healthy' | 'Unhealthy' | 'Unknown';

function deploymentHealthy(obj: KubeObject, spec: JsonObject | undefined, status: JsonObject | undefined) {
  if (intField(status, 'observedGeneration') !== generationOf(obj)) return false;
  const replicas = optionalIntField(spec, 'replicas');
  const updated = intField(status, 'updatedReplicas');
  if (replicas !== undefined && updated < replicas) return false;
  return intField(status, 'availableReplicas') >= updated;
}

function statefulSetHealthy(obj: KubeObject, spec: JsonObject | undefined, status: JsonObject | undefined) {
  if (intField(status, 'observedGeneration') !== generationOf(obj)) return false;
  const replicas = optionalIntField(spec, 'replicas');
  const updated = intField(status, 'updatedReplicas');
  const available = intField(status, 'availableReplicas');
  if (replicas !== undefined) {
    // A partitioned rolling update only moves the pods with an ordinal ≥ partition.
    const rollingUpdate = objectField(objectField(spec, 'updateStrategy'), 'rollingUpdate');
    const partition = optionalIntField(rollingUpdate, 'partition') ?? 0;
    if (updated < replicas - partition) return false;
    if (available < replicas) return false;
  }
  return available >= updated;
}

function replicaSetHealthy(obj: KubeObject, spec: JsonObject | undefined, status: JsonObject | undefined) {
  if (intField(status, 'observedGeneration') !== generationOf(obj)) return false;
  const replicas = optionalIntField(spec, 'replicas');
  return replicas === undefined || intField(status, 'availableReplicas') >= replicas;
}

function daemonSetHealthy(obj: KubeObject, status: JsonObject | undefined) {
  if (intField(status, 'observedGeneration') !== generationOf(obj)) return false;
  const updated = intField(status, 'updatedNumberScheduled');
  if (updated < intField(status, 'desiredNumberScheduled')) return false;
  return intField(status, 'numberAvailable') >= updated;
}

/** Some load-balancer ingress has an address. */
function hasLoadBalancerAddress(status: JsonObject | undefined): boolean {
  return objectListField(objectField(status, 'loadBalancer'), 'ingress').some(
    (i) => stringField(i, 'hostname') !== '' || stringField(i, 'ip') !== '',
  );
}

function podHealthy(status: JsonObject | undefined): boolean {
  const phase = stringField(status, 'phase');
  if (phase === 'Succeeded') return true;
  return phase === 'Running' && conditionTrue(status, 'Ready');
}

function healthy(kind: string, obj: KubeObject): boolean | undefined {
  const spec = topField(obj, 'spec');
  const status = topField(obj, 'status');
  if (isBuiltin(kind, obj, 'Deployment')) return deploymentHealthy(obj, spec, status);
  if (isBuiltin(kind, obj, 'StatefulSet')) return statefulSetHealthy(obj, spec, status);
  if (isBuiltin(kind, obj, 'ReplicaSet')) return replicaSetHealthy(obj, spec, status);
  if (isBuiltin(kind, obj, 'DaemonSet')) return daemonSetHealthy(obj, status);
  if (isBuiltin(kind, obj, 'Service'))
    return stringField(spec, 'type') !== 'LoadBalancer' || hasLoadBalancerAddress(status);
  if (isBuiltin(kind, obj, 'Ingress')) return hasLoadBalancerAddress(status);
  if (isBuiltin(kind, obj, 'PersistentVolumeClaim')) return stringField(status, 'phase') === 'Bound';
  if (isBuiltin(kind, obj, 'Pod')) return podHealthy(status);
  if (isBuiltin(kind, obj, 'PodDisruptionBudget'))
    return intField(status, 'currentHealthy') >= intField(status, 'desiredHealthy');
  return undefined;
}

/**
 * The health recorded in ResourceBinding.status.aggregatedStatus[].health for an applied member object. Kinds
 * without a built-in rule (ConfigMap, Job, CRs, ...) are Healthy, as in Karmada: applied is all it can tell.
 */
export function memberHealth(kind: string, member: KubeObject): MemberHealth {
  try {
    const result = healthy(kind, member);
    if (result === undefined) return 'Healthy';
    return result ? 'Healthy' : 'Unhealthy';
  } catch (err) {
    if (err instanceof MalformedField) return 'Unknown';
    throw err;
  }
}
