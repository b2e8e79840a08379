// The ResourceBinding a claim makes (karmada pkg/detector/detector.go BuildResourceBinding and the
// CreateOrUpdate merge after it): pure, so that what is copied from the policy and what is never overwritten
// (spec.clusters, the scheduler's) is one small table.

import {
  CPP_NAME_ANNOTATION,
  CPP_PERMANENT_ID_LABEL,
  CRB_FINALIZER,
  PP_NAME_ANNOTATION,
  PP_NAMESPACE_ANNOTATION,
  PP_PERMANENT_ID_LABEL,
  RB_FINALIZER,
} from '../../api/policy/v1alpha1/index.ts';
import {
  CRB_KIND,
  RB_KIND,
  type ResourceBinding,
  type ResourceBindingSpec,
  API_VERSION as WORK_API_VERSION,
} from '../../api/work/v1alpha2/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';
import { isPlainObject, jsonEqual } from '../../propagation/json.ts';
import { bindingName } from './binding-name.ts';
import type { Claim } from './claim.ts';
import type { CandidatePolicy, PolicyKind } from './matching.ts';
import { replicaRequirementsOf } from './replica-requirements.ts';

export type BindingObject = ResourceBinding & KubeObject;

/** The Karmada labels and annotations of a claim, on a template, its binding and its member copies. */
export function claimMetadata(claim: Claim): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  return claim.kind === 'PropagationPolicy'
    ? {
        labels: { [PP_PERMANENT_ID_LABEL]: claim.permanentId },
        annotations: { [PP_NAMESPACE_ANNOTATION]: claim.namespace ?? '', [PP_NAME_ANNOTATION]: claim.name },
      }
    : {
        labels: { [CPP_PERMANENT_ID_LABEL]: claim.permanentId },
        annotations: { [CPP_NAME_ANNOTATION]: claim.name },
      };
}

const CLAIM_LABELS = [PP_PERMANENT_ID_LABEL, CPP_PERMANENT_ID_LABEL];
const CLAIM_ANNOTATIONS = [PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION, CPP_NAME_ANNOTATION];

/** Karmada's default replica interpreter (GetReplicas): the workload's replica count, 0 for non-workloads. */
export function templateReplicas(template: KubeObject): number {
  const spec = isPlainObject(template.spec) ? template.spec : {};
  switch (template.kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'ReplicaSet':
      return typeof spec.replicas === 'number' ? spec.replicas : 1;
    case 'Job':
      return typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    case 'Pod':
      return 1;
    default:
      return 0;
  }
}

/** The kind of binding a template gets: ClusterResourceBinding for cluster-scoped templates. */
export function bindingKindFor(namespaced: boolean): typeof RB_KIND | typeof CRB_KIND {
  return namespaced ? RB_KIND : CRB_KIND;
}

/** The binding for a template claimed by a policy, as it should be (spec.clusters left to the scheduler). */
export function desiredBinding(template: KubeObject, policy: CandidatePolicy): BindingObject {
  const namespaced = template.metadata.namespace !== undefined && template.metadata.namespace !== '';
  const meta = claimMetadata({
    kind: policy.kind,
    namespace: policy.namespace,
    name: policy.name,
    permanentId: policy.permanentId,
  });
  const spec = policy.spec;
  const replicas = templateReplicas(template);
  const requirements = replicas > 0 ? replicaRequirementsOf(template) : undefined;
  const bindingSpec: ResourceBindingSpec = {
    resource: {
      apiVersion: template.apiVersion ?? '',
      kind: template.kind ?? '',
      ...(namespaced ? { namespace: template.metadata.namespace } : {}),
      name: template.metadata.name ?? '',
      uid: template.metadata.uid,
    },
    ...(spec.propagateDeps || spec.association ? { propagateDeps: true } : {}),
    ...(replicas > 0 ? { replicas } : {}),
    ...(requirements ? { replicaRequirements: requirements } : {}),
    ...(spec.placement ? { placement: spec.placement } : {}),
    ...(spec.failover ? { failover: spec.failover } : {}),
    conflictResolution: spec.conflictResolution ?? 'Abort',
    ...(spec.suspension ? { suspension: spec.suspension } : {}),
    ...(spec.preserveResourcesOnDeletion !== undefined
      ? { preserveResourcesOnDeletion: spec.preserveResourcesOnDeletion }
      : {}),
    schedulerName: spec.schedulerName ?? 'default-scheduler',
  };
  return {
    apiVersion: WORK_API_VERSION,
    kind: bindingKindFor(namespaced),
    metadata: {
      name: bindingName(template.kind ?? '', template.metadata.name ?? ''),
      ...(namespaced ? { namespace: template.metadata.namespace } : {}),
      labels: meta.labels,
      annotations: meta.annotations,
      finalizers: [namespaced ? RB_FINALIZER : CRB_FINALIZER],
      ownerReferences: [
        {
          apiVersion: template.apiVersion ?? '',
          kind: template.kind ?? '',
          name: template.metadata.name ?? '',
          uid: template.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: bindingSpec,
  };
}

/** Fields of the spec the detector owns; everything else (clusters, gracefulEvictionTasks, ...) is kept. */
const DETECTOR_FIELDS = [
  'resource',
  'propagateDeps',
  'replicas',
  'replicaRequirements',
  'placement',
  'failover',
  'conflictResolution',
  'suspension',
  'preserveResourcesOnDeletion',
  'schedulerName',
] as const;

/**
 * The existing binding updated to the desired one, or undefined when nothing changes (no write). Claim
 * labels and annotations are replaced (a claim by another policy re-uses the binding); other metadata kept.
 */
export function mergeBinding(existing: BindingObject, desired: BindingObject): BindingObject | undefined {
  const spec: Record<string, unknown> = { ...existing.spec };
  for (const f of DETECTOR_FIELDS) {
    const v = (desired.spec as Record<string, unknown>)[f];
    if (v === undefined) delete spec[f];
    else spec[f] = v;
  }
  const labels = withoutKeys(existing.metadata.labels, CLAIM_LABELS);
  const annotations = withoutKeys(existing.metadata.annotations, CLAIM_ANNOTATIONS);
  const finalizers = existing.metadata.finalizers ?? [];
  const merged: BindingObject = {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...labels, ...desired.metadata.labels },
      annotations: { ...annotations, ...desired.metadata.annotations },
      finalizers: [
        ...finalizers,
        ...(desired.metadata.finalizers ?? []).filter((f) => !finalizers.includes(f)),
      ],
      ownerReferences: desired.metadata.ownerReferences,
    },
    spec: spec as ResourceBindingSpec,
  };
  return jsonEqual(merged.metadata, existing.metadata) && jsonEqual(merged.spec, existing.spec)
    ? undefined
    : merged;
}

/** The binding with its claim removed (policy deleted or no longer selecting): it and the member copies stay. */
export function unclaimedBinding(existing: BindingObject, permanentId: string): BindingObject | undefined {
  const labels = existing.metadata.labels ?? {};
  if (!CLAIM_LABELS.some((l) => labels[l] === permanentId)) return undefined;
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: withoutKeys(labels, CLAIM_LABELS),
      annotations: withoutKeys(existing.metadata.annotations, CLAIM_ANNOTATIONS),
    },
  };
}

function withoutKeys(
  map: Record<string, string> | undefined,
  keys: readonly string[],
): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => !keys.includes(k)));
}

export type { PolicyKind };
