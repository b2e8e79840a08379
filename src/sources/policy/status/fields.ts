// Typed reads of the built-in kinds' status and spec fields, shared by reflect, health and aggregate. Karmada
// converts each object to its Go type first (helper.ConvertToTypedObject) and gives up on a field of the wrong
// type; these readers do the same by throwing MalformedField, and read an absent field as Go's zero value.

import type { KubeObject } from '../../../kube/client/index.ts';
import { getOwn, isPlainObject, type JsonObject } from '../../../propagation/json.ts';

/** The group/version Karmada registers each built-in interpreter under (it matches on the full GVK). */
const BUILTIN_API_VERSIONS: Readonly<Record<string, string>> = {
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  ReplicaSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  Pod: 'v1',
  Service: 'v1',
  PersistentVolumeClaim: 'v1',
  Ingress: 'networking.k8s.io/v1',
  PodDisruptionBudget: 'policy/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
};

/**
 * Whether `kind` is the built-in of that name. The object's apiVersion decides when it has one (a CRD may reuse a
 * built-in kind name in its own group); objects from a list response carry none, and are taken as the built-in.
 */
export function isBuiltin(kind: string, obj: KubeObject | undefined, ...kinds: readonly string[]): boolean {
  if (!kinds.includes(kind) || !Object.hasOwn(BUILTIN_API_VERSIONS, kind)) return false;
  const apiVersion = obj?.apiVersion;
  return apiVersion === undefined || apiVersion === '' || apiVersion === BUILTIN_API_VERSIONS[kind];
}

/** A field whose value does not have the type the built-in kind's Go struct gives it. */
export class MalformedField extends Error {
  readonly field: string;
  constructor(field: string) {
    super(`field ${field} has the wrong type`);
    this.field = field;
  }
}

const absent = (value: unknown): boolean => value === undefined || value === null;

/** An object field; undefined when absent. */
export function objectField(obj: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = obj === undefined ? undefined : getOwn(obj, key);
  if (absent(value)) return undefined;
  if (!isPlainObject(value)) throw new MalformedField(key);
  return value;
}

/** An integer field; 0 when absent. */
export function intField(obj: JsonObject | undefined, key: string): number {
  const value = obj === undefined ? undefined : getOwn(obj, key);
  if (absent(value)) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new MalformedField(key);
  return value;
}

/** An integer field that Go keeps as a pointer (*int32): undefined when absent. */
export function optionalIntField(obj: JsonObject | undefined, key: string): number | undefined {
  const value = obj === undefined ? undefined : getOwn(obj, key);
  return absent(value) ? undefined : intField(obj, key);
}

/** A string field; '' when absent. */
export function stringField(obj: JsonObject | undefined, key: string): string {
  const value = obj === undefined ? undefined : getOwn(obj, key);
  if (absent(value)) return '';
  if (typeof value !== 'string') throw new MalformedField(key);
  return value;
}

/** A list field; [] when absent. */
export function listField(obj: JsonObject | undefined, key: string): readonly unknown[] {
  const value = obj === undefined ? undefined : getOwn(obj, key);
  if (absent(value)) return [];
  if (!Array.isArray(value)) throw new MalformedField(key);
  return value;
}

/** A list of objects; [] when absent. */
export function objectListField(obj: JsonObject | undefined, key: string): readonly JsonObject[] {
  const list = listField(obj, key);
  for (const item of list) if (!isPlainObject(item)) throw new MalformedField(key);
  return list as readonly JsonObject[];
}

/** `.spec` / `.status` of an object; undefined when absent. */
export function topField(obj: KubeObject, key: 'spec' | 'status'): JsonObject | undefined {
  return objectField(obj as JsonObject, key);
}

/** `.metadata.generation`; 0 when absent. */
export function generationOf(obj: KubeObject): number {
  return intField(objectField(obj as JsonObject, 'metadata'), 'generation');
}

/** Whether a condition list has `type` with status True. */
export function conditionTrue(status: JsonObject | undefined, type: string): boolean {
  return objectListField(status, 'conditions').some(
    (c) => stringField(c, 'type') === type && stringField(c, 'status') === 'True',
  );
}
