// Fields a member cluster owns and an update must carry over from the live object, or the PUT
// would fail or fight the member's controllers (KubeFed pkg/controller/sync/dispatch/retain.go).

import type { KubeObject } from '../kube/client/index.ts';
import { deepCopy, isPlainObject, type JsonObject } from './json.ts';

export class FieldRetentionError extends Error {
  override name = 'FieldRetentionError';
}

export interface RetainOptions {
  /** The federated object's `spec.retainReplicas`. */
  retainReplicas: boolean;
}

/** Copies the member-owned fields of `member` into `desired`, in place. Throws FieldRetentionError on bad types. */
export function retainClusterFields(desired: KubeObject, member: KubeObject, opts: RetainOptions): void {
  const memberMeta = isPlainObject(member.metadata) ? member.metadata : {};
  if (!isPlainObject(desired.metadata)) desired.metadata = {};
  // The PUT must carry the member's resourceVersion; finalizers and annotations belong to member controllers.
  setOrDelete(desired.metadata, 'resourceVersion', memberMeta.resourceVersion);
  setOrDelete(desired.metadata, 'finalizers', memberMeta.finalizers);
  setOrDelete(desired.metadata, 'annotations', memberMeta.annotations);

  if (desired.kind === 'Service') retainServiceFields(desired, member);
  else if (desired.kind === 'ServiceAccount') retainServiceAccountFields(desired, member);
  else if (opts.retainReplicas) retainReplicas(desired, member);
}

function setOrDelete(target: object, key: string, value: unknown): void {
  const t = target as JsonObject;
  if (value === undefined || value === null) delete t[key];
  else t[key] = deepCopy(value);
}

/** `obj.spec` as a map: undefined if absent, an error if it is not an object (unstructured.Nested* semantics). */
function specOf(obj: KubeObject, what: string): JsonObject | undefined {
  const spec = obj.spec;
  if (spec === undefined || spec === null) return undefined;
  if (!isPlainObject(spec))
    throw new FieldRetentionError(`${what}: .spec is of type ${typeName(spec)}, expected map`);
  return spec;
}

/** `desired.spec`, created when absent, for writing. */
function writableSpec(desired: KubeObject): JsonObject {
  const spec = specOf(desired, 'desired object');
  if (spec !== undefined) return spec;
  const created: JsonObject = {};
  desired.spec = created;
  return created;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function retainServiceFields(desired: KubeObject, member: KubeObject): void {
  const memberSpec = specOf(member, 'service');
  if (memberSpec === undefined) return;

  // Allocated by the API server and immutable.
  const healthCheckNodePort = memberSpec.healthCheckNodePort;
  if (healthCheckNodePort !== undefined && healthCheckNodePort !== null) {
    if (typeof healthCheckNodePort !== 'number' || !Number.isInteger(healthCheckNodePort))
      throw new FieldRetentionError(
        `Error retrieving healthCheckNodePort from service: .spec.healthCheckNodePort is of type ${typeName(healthCheckNodePort)}, expected int64`,
      );
    if (healthCheckNodePort > 0) writableSpec(desired).healthCheckNodePort = healthCheckNodePort;
  }

  // Cluster IPs are allocated by the member cluster.
  const clusterIP = memberSpec.clusterIP;
  if (clusterIP !== undefined && clusterIP !== null) {
    if (typeof clusterIP !== 'string')
      throw new FieldRetentionError(
        `Error retrieving clusterIP from cluster service: .spec.clusterIP is of type ${typeName(clusterIP)}, expected string`,
      );
    if (clusterIP !== '') writableSpec(desired).clusterIP = clusterIP;
  }
  const clusterIPs = memberSpec.clusterIPs;
  if (clusterIPs !== undefined && clusterIPs !== null) {
    if (!Array.isArray(clusterIPs) || !clusterIPs.every((ip) => typeof ip === 'string'))
      throw new FieldRetentionError(
        'Error retrieving clusterIPs from cluster service: .spec.clusterIPs must be a list of strings',
      );
    if (clusterIPs.length > 0) writableSpec(desired).clusterIPs = [...clusterIPs];
  }

  // Node ports are allocated by the member cluster too: carry each over to the matching desired port.
  const memberPorts = portList(memberSpec.ports, 'cluster service');
  if (memberPorts === undefined) return;
  const desiredSpec = specOf(desired, 'desired service');
  const desiredPorts = portList(desiredSpec?.ports, 'desired service');
  if (desiredPorts === undefined) return;
  for (const port of desiredPorts) {
    for (const memberPort of memberPorts) {
      if (!samePort(port, memberPort)) continue;
      if (Object.hasOwn(memberPort, 'nodePort')) port.nodePort = memberPort.nodePort;
    }
  }
}

function portList(value: unknown, what: string): JsonObject[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every(isPlainObject))
    throw new FieldRetentionError(
      `Error retrieving ports from ${what}: .spec.ports must be a list of objects`,
    );
  return value;
}

// The API server defaults protocol to TCP, so a template without it still matches the member's port.
const protocolOf = (port: JsonObject): unknown => port.protocol ?? 'TCP';

function samePort(a: JsonObject, b: JsonObject): boolean {
  return a.name === b.name && protocolOf(a) === protocolOf(b) && a.port === b.port;
}

function retainServiceAccountFields(desired: KubeObject, member: KubeObject): void {
  // A populated template list cannot race with the member's token controller, so it wins.
  const desiredSecrets = desired.secrets;
  if (desiredSecrets !== undefined && desiredSecrets !== null && !Array.isArray(desiredSecrets))
    throw new FieldRetentionError(
      'Error retrieving secrets from desired service account: .secrets must be a list',
    );
  if (Array.isArray(desiredSecrets) && desiredSecrets.length > 0) return;
  const secrets = member.secrets;
  if (secrets === undefined || secrets === null) return;
  if (!Array.isArray(secrets))
    throw new FieldRetentionError(
      'Error retrieving secrets from cluster service account: .secrets must be a list',
    );
  if (secrets.length > 0) desired.secrets = deepCopy(secrets);
}

function retainReplicas(desired: KubeObject, member: KubeObject): void {
  // Replicas owned by a member HPA must not be reset by every update.
  const replicas = specOf(member, 'cluster object')?.replicas;
  if (replicas === undefined || replicas === null) return;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas))
    throw new FieldRetentionError(
      `Error retrieving replicas from cluster object: .spec.replicas is of type ${typeName(replicas)}, expected int64`,
    );
  writableSpec(desired).replicas = replicas;
}
