// The object to write into one member cluster: template → identity → retention → overrides →
// managed label (KubeFed pkg/controller/sync/resource.go ObjectForCluster and dispatch/managed.go).

import { apiVersionOf, type KubeObject, type ObjectMeta } from '../kube/client/index.ts';
import { MANAGED_LABEL } from './constants.ts';
import { deepCopy, isPlainObject, type JsonObject, setOwn } from './json.ts';
import { applyJsonPatch, type OverrideOperation } from './json-patch.ts';
import { OverridesError } from './overrides.ts';
import { retainClusterFields } from './retain.ts';

/** The FTC's target type. */
export interface TargetType {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface TemplateWarning {
  reason: 'AnnotationsNotSupported' | 'FinalizersNotSupported';
  message: string;
}

/** `spec.template` cannot be turned into an object. */
export class ComputeResourceError extends Error {
  override name = 'ComputeResourceError';
}

const notSupported = (field: string): string =>
  `metadata.${field} cannot be set via template to avoid conflicting with controllers in member clusters. ` +
  'Consider using an override to add or remove elements from this collection.';

export const ANNOTATIONS_NOT_SUPPORTED_MESSAGE = notSupported('annotations');
export const FINALIZERS_NOT_SUPPORTED_MESSAGE = notSupported('finalizers');

/** Namespace of the member object, or undefined when the target is not namespaced (Namespace included). */
function memberNamespace(target: TargetType, namespace: string | undefined): string | undefined {
  if (!target.namespaced || target.kind === 'Namespace') return undefined;
  return namespace === '' ? undefined : namespace;
}

export interface DesiredObjectInput {
  template: unknown;
  /** Name and namespace of the federated object. */
  name: string;
  namespace?: string;
  target: TargetType;
}

export interface DesiredObject {
  object: KubeObject;
  warnings: TemplateWarning[];
}

/**
 * The template as a member object, before retention and overrides. Only `labels` survive from
 * the template's metadata: name and namespace come from the federated object, annotations and
 * finalizers are refused with a warning, and the rest is server-owned.
 */
export function desiredObject(input: DesiredObjectInput): DesiredObject {
  const { template, target } = input;
  if (template !== undefined && template !== null && !isPlainObject(template))
    throw new ComputeResourceError(`spec.template must be an object, not ${describe(template)}`);
  const body: JsonObject = template === undefined || template === null ? {} : deepCopy(template);
  const warnings: TemplateWarning[] = [];

  const rawMeta = body.metadata;
  if (rawMeta !== undefined && rawMeta !== null && !isPlainObject(rawMeta))
    throw new ComputeResourceError(`spec.template.metadata must be an object, not ${describe(rawMeta)}`);
  const templateMeta: JsonObject = rawMeta ?? {};
  if (isNonEmpty(templateMeta.annotations))
    warnings.push({ reason: 'AnnotationsNotSupported', message: ANNOTATIONS_NOT_SUPPORTED_MESSAGE });
  if (isNonEmpty(templateMeta.finalizers))
    warnings.push({ reason: 'FinalizersNotSupported', message: FINALIZERS_NOT_SUPPORTED_MESSAGE });

  const metadata: ObjectMeta = { name: input.name };
  const namespace = memberNamespace(target, input.namespace);
  if (namespace !== undefined) metadata.namespace = namespace;
  const labels = templateMeta.labels;
  if (labels !== undefined && labels !== null) {
    if (!isStringMap(labels))
      throw new ComputeResourceError('spec.template.metadata.labels must be a map of strings');
    metadata.labels = labels;
  }

  const apiVersion = body.apiVersion;
  if (apiVersion !== undefined && apiVersion !== null && typeof apiVersion !== 'string')
    throw new ComputeResourceError(`spec.template.apiVersion must be a string, not ${describe(apiVersion)}`);
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = body;
  const object: KubeObject = {
    apiVersion: apiVersion || apiVersionOf(target),
    kind: target.kind,
    metadata,
    ...rest,
  };
  return { object, warnings };
}

function isNonEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/** Labels the object as managed by KubeFed (`kubefed.io/managed: "true"`), in place. */
export function addManagedLabel(obj: KubeObject): void {
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  const labels = obj.metadata.labels;
  obj.metadata.labels = { ...(isPlainObject(labels) ? labels : {}), [MANAGED_LABEL]: 'true' };
}

export interface BuildClusterObjectInput extends DesiredObjectInput {
  /** The federated object's `spec.retainReplicas`. */
  retainReplicas: boolean;
  /** The live member object: given on the update path only, for field retention. */
  member?: KubeObject;
  /** This cluster's overrides, as returned by parseOverrides. */
  overrides: readonly OverrideOperation[];
}

/**
 * The full object for one cluster. Throws ComputeResourceError, FieldRetentionError,
 * JsonPatchError or OverridesError; the caller maps them to ComputeResourceFailed,
 * FieldRetentionFailed and ApplyOverridesFailed (the last two).
 */
export function buildClusterObject(input: BuildClusterObjectInput): DesiredObject {
  const { object: desired, warnings } = desiredObject(input);
  if (input.member !== undefined)
    retainClusterFields(desired, input.member, { retainReplicas: input.retainReplicas });
  const patched: unknown = dropNullFields(applyJsonPatch(desired, input.overrides));
  const object = checkIdentity(patched, desired);
  addManagedLabel(object);
  return { object, warnings };
}

/**
 * Removes object fields whose value is null, at any depth. To the API server a null field means "unset",
 * except in string maps such as Secret/ConfigMap `data`, where it would become an empty value; dropping it
 * makes an override like `{path: /data, value: {A: null}}` mean "no key A", which is what users write it for.
 */
export function dropNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNullFields);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    setOwn(out, k, dropNullFields(v));
  }
  return out;
}

/**
 * The forbidden-path check is an exact match, so `/metadata` or `""` can still rewrite the
 * identity: refuse any override result that would write a different object.
 */
function checkIdentity(patched: unknown, before: KubeObject): KubeObject {
  if (!isPlainObject(patched) || !isPlainObject(patched.metadata))
    throw new OverridesError('overrides must leave an object with metadata');
  const meta = patched.metadata;
  if (meta.name !== before.metadata.name) throw new OverridesError('overrides must not change metadata.name');
  if (meta.namespace !== before.metadata.namespace)
    throw new OverridesError('overrides must not change metadata.namespace');
  if (meta.generateName !== undefined)
    throw new OverridesError('overrides must not set metadata.generateName');
  if (patched.kind !== before.kind) throw new OverridesError('overrides must not change kind');
  if (typeof patched.apiVersion !== 'string' || patched.apiVersion === '')
    throw new OverridesError('overrides must leave a non-empty string apiVersion');
  if (meta.labels !== undefined && !isStringMap(meta.labels))
    throw new OverridesError('overrides must leave metadata.labels a map of strings');
  return patched as KubeObject;
}
