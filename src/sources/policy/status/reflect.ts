// What a member object's status looks like in ResourceBinding.status.aggregatedStatus[].status: Karmada's
// ReflectStatus (karmada pkg/resourceinterpreter/default/native/reflectstatus.go and default.go). Built-in kinds
// keep the fields their aggregator sums, workloads also the member's metadata.generation and the template
// generation it was rendered from (the resourcetemplate.karmada.io/generation annotation, Karmada's
// FederatedGeneration in status_type.go); every other kind keeps its whole .status. Keys a Go struct marks
// omitempty are left out when zero, so the items read like Karmada's.

import { TEMPLATE_GENERATION_ANNOTATION } from '../../../api/policy/v1alpha1/labels.ts';
import type { KubeObject } from '../../../kube/client/index.ts';
import { deepCopy, isPlainObject, type JsonObject } from '../../../propagation/json.ts';
import {
  generationOf,
  intField,
  isBuiltin,
  listField,
  MalformedField,
  objectField,
  optionalIntField,
  stringField,
  topField,
} from './fields.ts';

/** One status field: its name and whether Go always writes it (no omitempty). */
export interface CountField {
  name: string;
  required?: true;
}

/** The counts Karmada reflects per workload kind, in the Go structs' order. */
export const WORKLOAD_COUNTS: Readonly<Record<string, readonly CountField[]>> = {
  // Karmada reflectDeploymentStatus.
  Deployment: [
    { name: 'observedGeneration' },
    { name: 'replicas' },
    { name: 'updatedReplicas' },
    { name: 'readyReplicas' },
    { name: 'availableReplicas' },
    { name: 'unavailableReplicas' },
  ],
  // Karmada reflectStatefulSetStatus, plus observedGeneration: Karmada leaves it out (karmada#5204 adds it), so
  // its aggregate could never see a member catch up; the every-member rule needs it.
  StatefulSet: [
    { name: 'observedGeneration' },
    { name: 'replicas', required: true },
    { name: 'readyReplicas' },
    { name: 'currentReplicas' },
    { name: 'updatedReplicas' },
    { name: 'availableReplicas', required: true },
  ],
  // Karmada reflectDaemonSetStatus.
  DaemonSet: [
    { name: 'currentNumberScheduled', required: true },
    { name: 'numberMisscheduled', required: true },
    { name: 'desiredNumberScheduled', required: true },
    { name: 'numberReady', required: true },
    { name: 'observedGeneration' },
    { name: 'updatedNumberScheduled' },
    { name: 'numberAvailable' },
    { name: 'numberUnavailable' },
  ],
  // kubefed-ts addition: Karmada has no ReplicaSet reflector or aggregator (it reflects the whole status and
  // leaves the template's alone); these are ReplicaSetStatus's counts.
  ReplicaSet: [
    { name: 'replicas', required: true },
    { name: 'fullyLabeledReplicas' },
    { name: 'readyReplicas' },
    { name: 'availableReplicas' },
    { name: 'observedGeneration' },
  ],
};

/** Copies the listed integer fields, leaving out zero omitempty ones. */
export function putCounts(
  out: JsonObject,
  from: JsonObject | undefined,
  fields: readonly CountField[],
): void {
  for (const f of fields) {
    const value = intField(from, f.name);
    if (value !== 0 || f.required) out[f.name] = value;
  }
}

/** The resourcetemplate.karmada.io/generation annotation: 0 when absent, undefined when not an integer. */
function templateGenerationOf(member: KubeObject): number | undefined {
  const raw = member.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? '';
  if (raw === '') return 0;
  return /^[+-]?\d+$/.test(raw) ? Number.parseInt(raw, 10) : undefined;
}

function reflectWorkload(kind: string, member: KubeObject, status: JsonObject): JsonObject | undefined {
  const resourceTemplateGeneration = templateGenerationOf(member);
  // Karmada fails the reflection on an unparsable annotation: no status is recorded for the member.
  if (resourceTemplateGeneration === undefined) return undefined;
  const out: JsonObject = {};
  const generation = generationOf(member);
  if (generation !== 0) out.generation = generation;
  if (resourceTemplateGeneration !== 0) out.resourceTemplateGeneration = resourceTemplateGeneration;
  putCounts(out, status, WORKLOAD_COUNTS[kind]!);
  // Karmada's Deployment reflector treats an all-zero status as not collected yet.
  if (kind === 'Deployment' && Object.keys(out).length === 0) return undefined;
  return out;
}

function reflectService(member: KubeObject, status: JsonObject): JsonObject | undefined {
  // Only a LoadBalancer Service has a status worth reflecting.
  if (stringField(topField(member, 'spec'), 'type') !== 'LoadBalancer') return undefined;
  return { loadBalancer: deepCopy(objectField(status, 'loadBalancer') ?? {}) };
}

function reflectJob(status: JsonObject): JsonObject {
  const out: JsonObject = {};
  const conditions = listField(status, 'conditions');
  if (conditions.length > 0) out.conditions = deepCopy(conditions);
  for (const key of ['startTime', 'completionTime']) {
    const time = stringField(status, key);
    if (time !== '') out[key] = time;
  }
  putCounts(out, status, [{ name: 'active' }, { name: 'succeeded' }, { name: 'failed' }]);
  return out;
}

function reflectPodDisruptionBudget(status: JsonObject): JsonObject {
  const out: JsonObject = {};
  const disrupted = objectField(status, 'disruptedPods');
  if (disrupted !== undefined && Object.keys(disrupted).length > 0) out.disruptedPods = deepCopy(disrupted);
  putCounts(out, status, [
    { name: 'disruptionsAllowed', required: true },
    { name: 'currentHealthy', required: true },
    { name: 'desiredHealthy', required: true },
    { name: 'expectedPods', required: true },
  ]);
  return out;
}

function reflectHorizontalPodAutoscaler(status: JsonObject): JsonObject {
  const out: JsonObject = {};
  const current = optionalIntField(status, 'currentReplicas');
  if (current !== undefined && current !== 0) out.currentReplicas = current;
  out.desiredReplicas = intField(status, 'desiredReplicas');
  return out;
}

/**
 * The status recorded for one member object, or undefined when there is none to record (no .status yet, a
 * Service that is not a LoadBalancer, a field of the wrong type). `kind` is the template's kind.
 */
export function reflectStatus(kind: string, member: KubeObject): Record<string, unknown> | undefined {
  const raw = member.status;
  if (raw === undefined || raw === null || !isPlainObject(raw)) return undefined;
  try {
    if (isBuiltin(kind, member, 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'))
      return reflectWorkload(kind, member, raw);
    if (isBuiltin(kind, member, 'Service')) return reflectService(member, raw);
    if (isBuiltin(kind, member, 'Job')) return reflectJob(raw);
    if (isBuiltin(kind, member, 'PodDisruptionBudget')) return reflectPodDisruptionBudget(raw);
    if (isBuiltin(kind, member, 'HorizontalPodAutoscaler')) return reflectHorizontalPodAutoscaler(raw);
  } catch (err) {
    if (err instanceof MalformedField) return undefined;
    throw err;
  }
  // Karmada reflectWholeStatus: Ingress and every kind without a reflector of its own.
  return deepCopy(raw);
}
