// `kubefedctl promote`'s pure part (karmada pkg/karmadactl/promote/promote.go): a member's object as a
// resource template (the server-owned fields removed, as karmada pkg/resourceinterpreter/default/native/
// prune RemoveIrrelevantFields does, plus the conflict-resolution annotation promote adds) and the
// PropagationPolicy or ClusterPropagationPolicy that places it back on that member and adopts its copy.

import { createHash } from 'node:crypto';
import { API_VERSION as POLICY_API_VERSION } from '../api/policy/v1alpha1/group.ts';
import { CONFLICT_RESOLUTION_ANNOTATION } from '../api/policy/v1alpha1/labels.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { deepCopy, isPlainObject, type JsonObject } from '../propagation/json.ts';

/** Metadata the member's API server owns. */
const SERVER_METADATA = [
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
  'ownerReferences',
  'finalizers',
] as const;

const DEPLOYMENT_ANNOTATIONS = [
  'deployment.kubernetes.io/revision',
  'deployment.kubernetes.io/revision-history',
];
const JOB_SELECTOR_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];
const JOB_TEMPLATE_LABELS = [...JOB_SELECTOR_LABELS, 'job-name', 'batch.kubernetes.io/job-name'];

function child(obj: JsonObject, ...path: string[]): JsonObject | undefined {
  let at: unknown = obj;
  for (const key of path) at = isPlainObject(at) ? at[key] : undefined;
  return isPlainObject(at) ? at : undefined;
}

function dropKeys(map: JsonObject | undefined, keys: readonly string[]): void {
  if (map) for (const k of keys) delete map[k];
}

/** Karmada's per-kind pruners: fields a member generated for itself. */
function pruneKind(obj: JsonObject, kind: string, name: string): void {
  switch (kind) {
    case 'Deployment':
      dropKeys(child(obj, 'metadata', 'annotations'), DEPLOYMENT_ANNOTATIONS);
      return;
    case 'Job':
      if (child(obj, 'spec')?.['manualSelector'] === true) return;
      dropKeys(child(obj, 'spec', 'selector', 'matchLabels'), JOB_SELECTOR_LABELS);
      dropKeys(child(obj, 'spec', 'template', 'metadata', 'labels'), JOB_TEMPLATE_LABELS);
      return;
    case 'Service': {
      const spec = child(obj, 'spec');
      if (spec && 'clusterIP' in spec && spec['clusterIP'] !== 'None') {
        delete spec['clusterIP'];
        delete spec['clusterIPs'];
      }
      return;
    }
    case 'ServiceAccount': {
      const secrets = obj['secrets'];
      if (Array.isArray(secrets))
        obj['secrets'] = secrets.filter(
          (s) =>
            !(isPlainObject(s) && typeof s['name'] === 'string' && s['name'].startsWith(`${name}-token-`)),
        );
      return;
    }
    case 'Secret':
      if (obj['type'] === 'kubernetes.io/service-account-token') {
        dropKeys(child(obj, 'metadata', 'annotations'), ['kubernetes.io/service-account.uid']);
        delete obj['data'];
      }
      return;
    case 'PersistentVolumeClaim':
      dropKeys(child(obj, 'metadata', 'annotations'), ['volume.kubernetes.io/selected-node']);
      return;
  }
}

/**
 * The member's object as a template for the federation API server: server-owned metadata and status
 * removed, the member-generated fields of its kind removed, and `work.karmada.io/conflict-resolution:
 * overwrite` added unless set (karmadactl promote's addOverwriteAnnotation), so the running copy is adopted.
 */
export function templateFromMember(member: KubeObject): KubeObject {
  const obj = deepCopy(member) as KubeObject & JsonObject;
  const meta = obj.metadata as JsonObject;
  for (const key of SERVER_METADATA) delete meta[key];
  delete obj['status'];
  pruneKind(obj, obj.kind ?? '', obj.metadata.name ?? '');
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  annotations[CONFLICT_RESOLUTION_ANNOTATION] ??= 'overwrite';
  obj.metadata.annotations = annotations;
  return obj;
}

/**
 * A policy name for the promoted object when --policy-name is not given: `<name>-<hash>`, the shape of
 * karmada pkg/util/names GeneratePolicyName (the hash keys namespace and group/version/kind, so objects of
 * one name and different kinds get different policies). The hash is not byte-identical to Karmada's.
 */
export function generatePolicyName(
  namespace: string,
  name: string,
  apiVersion: string,
  kind: string,
): string {
  const hash = createHash('sha256').update(`${namespace}\n${apiVersion}\n${kind}`).digest('hex').slice(0, 10);
  return `${name}-${hash}`.toLowerCase();
}

/**
 * The policy karmadactl promote creates: it selects the object by name and places it on that member. A
 * PropagationPolicy for a namespaced object, a ClusterPropagationPolicy otherwise; conflictResolution
 * Overwrite (besides the template's annotation), so the member's existing copy is adopted, not refused.
 * With the object's dependencies promoted too, propagateDeps sends them along (Karmada's promote proposal).
 */
export function promotionPolicy(
  template: KubeObject,
  cluster: string,
  policyName: string,
  propagateDeps = false,
): KubeObject {
  const namespace = template.metadata.namespace;
  return {
    apiVersion: POLICY_API_VERSION,
    kind: namespace ? 'PropagationPolicy' : 'ClusterPropagationPolicy',
    metadata: { name: policyName, ...(namespace ? { namespace } : {}) },
    spec: {
      resourceSelectors: [
        {
          apiVersion: template.apiVersion ?? '',
          kind: template.kind ?? '',
          name: template.metadata.name ?? '',
        },
      ],
      placement: { clusterAffinity: { clusterNames: [cluster] } },
      conflictResolution: 'Overwrite',
      ...(propagateDeps ? { propagateDeps: true } : {}),
    },
  };
}
