// A resource template as the object one member receives (karmada pkg/controllers/binding/common.go
// ensureWork, and the retain step of pkg/util/objectwatcher/objectwatcher.go): the template without its
// server-owned metadata and status → the cluster's replicas → the override policies (override-manager order)
// → the claim labels and annotations Karmada puts on member copies → what the member owns of the live copy.

import { KARMADA_MANAGED_LABEL, TEMPLATE_GENERATION_ANNOTATION } from '../../api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { deepCopy, isPlainObject } from '../../propagation/json.ts';
import { retainClusterFields } from '../../propagation/retain.ts';
import type { PolicyCluster } from './cluster-affinity.ts';
import { applyOverrides } from './overrides/apply.ts';
import type { NamedOverridePolicy } from './overrides/select.ts';

/** Which labels and annotations of a member copy came from the template (Karmada's own bookkeeping keys). */
export const MANAGED_LABELS_ANNOTATION = 'resourcetemplate.karmada.io/managed-labels';
export const MANAGED_ANNOTATIONS_ANNOTATION = 'resourcetemplate.karmada.io/managed-annotations';

/** Template annotations never copied to members: client bookkeeping of the federation API server. */
const HOST_ONLY_ANNOTATIONS = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  'deployment.kubernetes.io/revision',
]);

/** Kinds whose `spec.replicas` is the scheduled count (Karmada's default ReviseReplica interpreter). */
export const REPLICA_KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

export interface MemberObjectInput {
  template: KubeObject;
  cluster: PolicyCluster;
  /** The replicas scheduled to this cluster (workload kinds only). */
  replicas?: number;
  overrides: readonly NamedOverridePolicy[];
  /** The claim labels and annotations (permanent-id, policy name and namespace) for the member copy. */
  claim: { labels: Record<string, string>; annotations: Record<string, string> };
  /** The member's live copy (update path): what the member owns is kept. */
  live?: KubeObject;
  /** Keep the member's replicas (template label resourcetemplate.karmada.io/retain-replicas). */
  retainReplicas: boolean;
}

export interface MemberObject {
  object: KubeObject;
  /** The override policies that were applied, as "<Kind> <ns/name>". */
  applied: string[];
}

/** Throws OverrideError when an override cannot be applied. */
export function memberObject(input: MemberObjectInput): MemberObject {
  const { template } = input;
  const { metadata, status: _status, ...body } = deepCopy(template) as KubeObject & { status?: unknown };
  const labels = { ...(metadata.labels ?? {}) };
  const annotations = Object.fromEntries(
    Object.entries(metadata.annotations ?? {}).filter(([k]) => !HOST_ONLY_ANNOTATIONS.has(k)),
  );
  let object: KubeObject = {
    ...body,
    metadata: {
      name: metadata.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
  };
  pruneHostFields(object);
  if (input.replicas !== undefined && REPLICA_KINDS.has(template.kind ?? '')) {
    const spec = isPlainObject(object.spec) ? object.spec : {};
    object = { ...object, spec: { ...spec, replicas: input.replicas } };
  }
  const { object: overridden, applied } = applyOverrides(object, input.overrides, input.cluster);
  object = overridden;
  const templateLabels = {
    ...(object.metadata.labels ?? {}),
    ...input.claim.labels,
    [KARMADA_MANAGED_LABEL]: 'true',
  };
  const templateAnnotations: Record<string, string> = {
    ...(object.metadata.annotations ?? {}),
    ...input.claim.annotations,
    [TEMPLATE_GENERATION_ANNOTATION]: String(template.metadata.generation ?? 0),
  };
  templateAnnotations[MANAGED_LABELS_ANNOTATION] = Object.keys(templateLabels).sort().join(',');
  templateAnnotations[MANAGED_ANNOTATIONS_ANNOTATION] = [
    ...Object.keys(templateAnnotations),
    MANAGED_ANNOTATIONS_ANNOTATION,
  ]
    .filter((k, i, all) => all.indexOf(k) === i)
    .sort()
    .join(',');
  object.metadata = { ...object.metadata, labels: templateLabels, annotations: templateAnnotations };
  if (input.live) keepMemberOwned(object, input.live, input.retainReplicas);
  return { object, applied };
}

/**
 * What the member owns of its copy: resourceVersion, finalizers, Service cluster IPs, a Job's generated
 * selector, replicas an HPA there sets (KubeFed's retain rules), and the labels and annotations that did not
 * come from the template (Karmada's RetainLabels/RetainAnnotations, by the managed-* bookkeeping).
 */
function keepMemberOwned(desired: KubeObject, live: KubeObject, retainReplicas: boolean): void {
  const ours = { labels: desired.metadata.labels ?? {}, annotations: desired.metadata.annotations ?? {} };
  retainClusterFields(desired, live, { retainReplicas });
  // Owner references set in the member (Karmada's objectwatcher retains them too).
  if (live.metadata.ownerReferences) desired.metadata.ownerReferences = live.metadata.ownerReferences;
  const liveAnnotations = live.metadata.annotations ?? {};
  desired.metadata.labels = {
    ...memberOwned(live.metadata.labels, liveAnnotations[MANAGED_LABELS_ANNOTATION]),
    ...ours.labels,
  };
  desired.metadata.annotations = {
    ...memberOwned(liveAnnotations, liveAnnotations[MANAGED_ANNOTATIONS_ANNOTATION]),
    ...ours.annotations,
  };
}

/** The entries of a live map that the template did not put there last time. */
function memberOwned(
  live: Record<string, string> | undefined,
  managedList: string | undefined,
): Record<string, string> {
  const managed = new Set((managedList ?? '').split(',').filter((k) => k !== ''));
  return Object.fromEntries(Object.entries(live ?? {}).filter(([k]) => !managed.has(k)));
}

/** Labels the Job controller of the federation API server put on the template (selector-generated ones). */
const JOB_CONTROLLER_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];

/**
 * Fields the federation API server allocated for the template that a member must allocate for itself
 * (karmada pkg/resourceinterpreter/default/native/prune: RemoveIrrelevantFields): a Service's cluster IPs,
 * a Job's generated selector and its controller-uid labels, a ServiceAccount's token Secrets. In place.
 */
export function pruneHostFields(object: KubeObject): void {
  const spec = isPlainObject(object.spec) ? object.spec : undefined;
  if (!spec) {
    if (object.kind === 'ServiceAccount') pruneTokenSecrets(object);
    return;
  }
  if (object.kind === 'Service') {
    if (spec.clusterIP !== 'None') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
  } else if (object.kind === 'Job' && spec.manualSelector !== true) {
    delete spec.selector;
    const template = isPlainObject(spec.template) ? spec.template : undefined;
    const meta = template && isPlainObject(template.metadata) ? template.metadata : undefined;
    const labels = meta && isPlainObject(meta.labels) ? meta.labels : undefined;
    if (labels) for (const l of JOB_CONTROLLER_LABELS) delete labels[l];
  }
}

function pruneTokenSecrets(sa: KubeObject): void {
  const secrets = (sa as { secrets?: unknown }).secrets;
  if (!Array.isArray(secrets)) return;
  const prefix = `${sa.metadata.name}-token-`;
  const kept = secrets.filter(
    (s) => !(isPlainObject(s) && typeof s.name === 'string' && s.name.startsWith(prefix)),
  );
  if (kept.length > 0) (sa as { secrets?: unknown }).secrets = kept;
  else delete (sa as { secrets?: unknown }).secrets;
}
