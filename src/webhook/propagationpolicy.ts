// The mutating webhook of PropagationPolicy and ClusterPropagationPolicy, with Karmada's defaults
// (karmada pkg/webhook/propagationpolicy/mutating.go, pkg/webhook/clusterpropagationpolicy/mutating.go and
// the helpers they call in pkg/util/helper/policy.go): the default not-ready/unreachable tolerations, selector
// namespaces, spread constraints, propagateDeps
// for a ServiceImport, the Weighted division preference, the application failover grace period, and on
// CREATE the permanent-id label and the policy finalizer. Answered as a JSON patch: the spec replaced whole
// when it changed, the label and finalizer added one by one.

import { randomUUID } from 'node:crypto';
import type { Toleration } from '../api/policy/v1alpha1/index.ts';
import {
  CPP_FINALIZER,
  CPP_PERMANENT_ID_LABEL,
  PP_FINALIZER,
  PP_PERMANENT_ID_LABEL,
} from '../api/policy/v1alpha1/labels.ts';
import { deepCopy, isPlainObject, type JsonObject, jsonEqual } from '../propagation/json.ts';
import { withDefaultTolerations } from '../sources/policy/taints.ts';
import type { JsonPatchOperation } from './kubefedconfig.ts';

/** helper.SetDefaultGracePeriodSeconds: the grace period of a Gracefully purge when none is given. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 600;
/** The MCS ServiceImport a selector may name (helper.ContainsServiceImport). */
const SERVICE_IMPORT_API_VERSION = 'multicluster.x-k8s.io/v1alpha1';
const SERVICE_IMPORT_KIND = 'ServiceImport';

export interface PolicyKindInfo {
  /** ClusterPropagationPolicy rather than PropagationPolicy. */
  cluster: boolean;
}

export const permanentIdLabel = ({ cluster }: PolicyKindInfo): string =>
  cluster ? CPP_PERMANENT_ID_LABEL : PP_PERMANENT_ID_LABEL;
export const policyFinalizer = ({ cluster }: PolicyKindInfo): string =>
  cluster ? CPP_FINALIZER : PP_FINALIZER;

/** A list validation can read as tolerations; anything else is left for it to report. */
const isTolerationList = (v: unknown): v is Toleration[] =>
  Array.isArray(v) &&
  v.every(
    (t) =>
      isPlainObject(t) &&
      ['key', 'operator', 'value', 'effect'].every((f) => t[f] === undefined || typeof t[f] === 'string') &&
      (t['tolerationSeconds'] === undefined ||
        t['tolerationSeconds'] === null ||
        typeof t['tolerationSeconds'] === 'number'),
  );

const objectsOf = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const isEmptyString = (v: unknown): boolean => v === undefined || v === null || v === '';

/**
 * The spec with Karmada's webhook defaults applied (a copy; the input is not changed). Values of the wrong
 * JSON type are left as they are for validation to report. `namespace` is the request's namespace: the
 * default of every PropagationPolicy selector's namespace (Karmada takes it from the request because the
 * object's own may not be set yet on create); a ClusterPropagationPolicy passes none.
 */
export function defaultPropagationSpec(spec: JsonObject, namespace?: string): JsonObject {
  const out = deepCopy(spec);
  const selectors = objectsOf(out['resourceSelectors']);
  if (namespace) {
    for (const s of selectors) if (isEmptyString(s['namespace'])) s['namespace'] = namespace;
  }
  // Karmada's Placement is a struct, never absent: the default tolerations below always have a place.
  if (out['placement'] === undefined || out['placement'] === null) out['placement'] = {};
  const placement = isPlainObject(out['placement']) ? out['placement'] : undefined;
  // helper.AddTolerations with NewNotReadyToleration and NewUnreachableToleration: NoExecute for 300 s
  // (karmada-webhook's --default-not-ready/unreachable-toleration-seconds) unless already tolerated.
  const tolerations = placement?.['clusterTolerations'];
  if (placement && (tolerations === undefined || tolerations === null || isTolerationList(tolerations))) {
    placement['clusterTolerations'] = withDefaultTolerations(tolerations ?? []);
  }
  // helper.SetDefaultSpreadConstraints.
  for (const c of objectsOf(placement?.['spreadConstraints'])) {
    if (isEmptyString(c['spreadByField']) && isEmptyString(c['spreadByLabel']))
      c['spreadByField'] = 'cluster';
    if (c['minGroups'] === undefined || c['minGroups'] === null || c['minGroups'] === 0) c['minGroups'] = 1;
  }
  // helper.ContainsServiceImport: the derived Service and EndpointSlices travel as dependencies.
  if (
    selectors.some((s) => s['apiVersion'] === SERVICE_IMPORT_API_VERSION && s['kind'] === SERVICE_IMPORT_KIND)
  ) {
    out['propagateDeps'] = true;
  }
  // Karmada's CRD defaults replicaSchedulingType to Divided; ours does not, so the webhook does, before
  // helper.SetReplicaDivisionPreferenceWeighted looks at it.
  const rs = placement?.['replicaScheduling'];
  if (isPlainObject(rs)) {
    if (isEmptyString(rs['replicaSchedulingType'])) rs['replicaSchedulingType'] = 'Divided';
    if (rs['replicaSchedulingType'] === 'Divided' && isEmptyString(rs['replicaDivisionPreference'])) {
      rs['replicaDivisionPreference'] = 'Weighted';
    }
  }
  // helper.SetDefaultGracePeriodSeconds.
  const failover = out['failover'];
  const application = isPlainObject(failover) ? failover['application'] : undefined;
  if (isPlainObject(application) && application['purgeMode'] === 'Gracefully') {
    const grace = application['gracePeriodSeconds'];
    if (grace === undefined || grace === null)
      application['gracePeriodSeconds'] = DEFAULT_GRACE_PERIOD_SECONDS;
  }
  return out;
}

/** RFC 6901: `~` and `/` in a key. */
const escapePointer = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

export interface PolicyMutationRequest extends PolicyKindInfo {
  operation: string;
  /** The request's namespace ('' for a ClusterPropagationPolicy). */
  namespace: string;
  /** On UPDATE, the stored object. */
  oldObject?: unknown;
  /** The permanent id of a new policy; `randomUUID` unless a test fixes it. */
  newId?: () => string;
}

/**
 * The JSON patch that defaults a PropagationPolicy or ClusterPropagationPolicy, empty when nothing changes.
 * An UPDATE that leaves the spec as stored is not touched, so an object stored before the webhook can still
 * lose its finalizer without its spec changing under the validating webhook.
 */
export function propagationPolicyPatch(obj: unknown, req: PolicyMutationRequest): JsonPatchOperation[] {
  if (!isPlainObject(obj)) return [];
  const patch: JsonPatchOperation[] = [];
  const raw = obj['spec'];
  const unchangedUpdate =
    req.operation === 'UPDATE' &&
    isPlainObject(req.oldObject) &&
    jsonEqual(raw ?? null, req.oldObject['spec'] ?? null);
  if (isPlainObject(raw) && !unchangedUpdate) {
    const defaulted = defaultPropagationSpec(raw, req.cluster ? undefined : req.namespace);
    if (!jsonEqual(defaulted, raw)) patch.push({ op: 'replace', path: '/spec', value: defaulted });
  }
  if (req.operation !== 'CREATE') return patch;
  const meta = obj['metadata'];
  if (!isPlainObject(meta)) {
    patch.push({
      op: 'add',
      path: '/metadata',
      value: {
        labels: { [permanentIdLabel(req)]: (req.newId ?? randomUUID)() },
        finalizers: [policyFinalizer(req)],
      },
    });
    return patch;
  }
  // util.MergeLabel: a value the user wrote is replaced, the id is the system's.
  const id = (req.newId ?? randomUUID)();
  if (isPlainObject(meta['labels'])) {
    patch.push({ op: 'add', path: `/metadata/labels/${escapePointer(permanentIdLabel(req))}`, value: id });
  } else {
    patch.push({ op: 'add', path: '/metadata/labels', value: { [permanentIdLabel(req)]: id } });
  }
  // controllerutil.AddFinalizer: only when missing.
  const finalizers = meta['finalizers'];
  if (Array.isArray(finalizers)) {
    if (!finalizers.includes(policyFinalizer(req))) {
      patch.push({ op: 'add', path: '/metadata/finalizers/-', value: policyFinalizer(req) });
    }
  } else {
    patch.push({ op: 'add', path: '/metadata/finalizers', value: [policyFinalizer(req)] });
  }
  return patch;
}
