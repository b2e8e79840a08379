// AdmissionReview in, AdmissionReview out: the wire protocol of the webhooks as pure functions, with
// KubeFed's handler semantics (pkg/controller/webhook): only CREATE and UPDATE of the handler's own
// group/resource are examined, an undecodable request is denied with 400 BadRequest, a validation
// failure with 403 Forbidden and the aggregated field errors as message.

import { GROUP as CORE_GROUP } from '../api/core/v1beta1/group.ts';
import { type FieldError, formatFieldErrors } from '../api/field-errors.ts';
import { GROUP as DNS_GROUP } from '../api/multiclusterdns/v1alpha1/group.ts';
import { GROUP as POLICY_GROUP } from '../api/policy/v1alpha1/group.ts';
import { COP_PLURAL, OP_PLURAL } from '../api/policy/v1alpha1/overridepolicy.ts';
import { CPP_PLURAL, PP_PLURAL } from '../api/policy/v1alpha1/propagationpolicy.ts';
import { GROUP as SCHEDULING_GROUP } from '../api/scheduling/v1alpha1/group.ts';
import { isPlainObject, type JsonObject, jsonEqual } from '../propagation/json.ts';
import { validateOverrideSpec as validateOverrideSpecRules } from '../sources/policy/overrides/validation.ts';
import { type ControlPlaneView, syncControllerRuns, syncFinalizerPatch } from './federated-finalizer.ts';
import {
  type JsonPatchOperation,
  kubeFedConfigDefaultingPatch,
  validateKubeFedConfigObject,
} from './kubefedconfig.ts';
import { propagationPolicyPatch } from './propagationpolicy.ts';
import { type PolicyView, templateClaimPatch } from './template-claim.ts';
import { validateFederatedObject } from './validation/federated-object.ts';
import { validateFederatedTypeConfig } from './validation/federatedtypeconfig.ts';
import { validateKubeFedCluster } from './validation/kubefedcluster.ts';
import type { AdmissionUserInfo } from './validation/manifestwork.ts';
import { type OverrideSpecValidator, overridePolicyHandler } from './validation/overridepolicy.ts';
import { propagationPolicyDenial } from './validation/propagationpolicy.ts';

// The OverrideSpec validator of the override webhooks: Karmada's ValidateOverrideSpec rules.
const validateOverrideSpec: OverrideSpecValidator = validateOverrideSpecRules;

/** The URL paths the server answers; the first four are KubeFed's, the policy ones Karmada's. */
export const WebhookPath = {
  ValidateFederatedTypeConfigs: '/validate-federatedtypeconfigs',
  ValidateKubeFedCluster: '/validate-kubefedcluster',
  ValidateKubeFedConfig: '/validate-kubefedconfig',
  DefaultKubeFedConfig: '/default-kubefedconfig',
  ValidateFederated: '/validate-federated',
  MutateFederated: '/mutate-federated',
  MutatePropagationPolicy: '/mutate-propagationpolicy',
  ValidatePropagationPolicy: '/validate-propagationpolicy',
  MutateClusterPropagationPolicy: '/mutate-clusterpropagationpolicy',
  ValidateClusterPropagationPolicy: '/validate-clusterpropagationpolicy',
  ValidateOverridePolicy: '/validate-overridepolicy',
  ValidateClusterOverridePolicy: '/validate-clusteroverridepolicy',
  ClaimResourceTemplate: '/claim-resource-template',
} as const;
export type WebhookPath = (typeof WebhookPath)[keyof typeof WebhookPath];

/** AdmissionReview versions understood; the answer uses the request's. */
export const ADMISSION_REVIEW_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** The fields of an AdmissionRequest the handlers use, after decoding. */
export interface AdmissionRequest {
  uid: string;
  kind?: { group?: string; version?: string; kind?: string };
  resource: GroupVersionResource;
  subResource: string;
  name: string;
  namespace: string;
  operation: string;
  object?: unknown;
  oldObject?: unknown;
  /** The requesting user, for webhooks that check the user's own permissions (OCM's executor check). */
  userInfo?: AdmissionUserInfo;
}

/** metav1.Status as the webhook returns it in `response.status`. */
export interface ResponseStatus {
  metadata: Record<string, never>;
  status: 'Failure';
  code: number;
  reason: string;
  message: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: ResponseStatus;
  patchType?: 'JSONPatch';
  /** Base64 of the JSON patch. */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReviewResponse {
  apiVersion: string;
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

export type Decision =
  | { allowed: true; patch?: JsonPatchOperation[]; warnings?: string[] }
  | { allowed: false; code: number; reason: string; message: string; warnings?: string[] };

/** What a handler may read besides the request: the webhook's view of the control plane, when it has one. */
export interface AdmissionContext {
  /** The current view, or undefined without API access or before its informers have synced. */
  controlPlane?: () => ControlPlaneView | undefined;
  /** The propagation policies, or undefined without API access or before their informers have synced. */
  policies?: () => PolicyView | undefined;
}

export type AdmissionHandler = (req: AdmissionRequest, ctx?: AdmissionContext) => Decision;

const ALLOW: Decision = { allowed: true };

export const badRequest = (message: string): Decision => ({
  allowed: false,
  code: 400,
  reason: 'BadRequest',
  message,
});

/** KubeFed's webhook.Validate: 403 Forbidden with `field.ErrorList.ToAggregate()` as message. */
export function decide(errors: readonly FieldError[], warnings: string[] = []): Decision {
  const w = warnings.length > 0 ? { warnings } : {};
  if (errors.length === 0) return { allowed: true, ...w };
  return { allowed: false, code: 403, reason: 'Forbidden', message: formatFieldErrors(errors), ...w };
}

const isCreateOrUpdate = (req: AdmissionRequest): boolean =>
  req.operation === 'CREATE' || req.operation === 'UPDATE';

/** KubeFed's webhook.Allowed: let through anything but CREATE/UPDATE of this core.kubefed.io resource. */
function examined(req: AdmissionRequest, plural: string): boolean {
  return isCreateOrUpdate(req) && req.resource.group === CORE_GROUP && req.resource.resource === plural;
}

/** The request's object, if it is a JSON object at all (KubeFed: otherwise it does not unmarshal). */
function objectOf(req: AdmissionRequest, field: 'object' | 'oldObject'): JsonObject | undefined {
  const obj = req[field];
  return isPlainObject(obj) ? obj : undefined;
}

const notAnObject = (req: AdmissionRequest, field: 'object' | 'oldObject'): Decision =>
  badRequest(`${field}: expected a JSON object, got ${describe(req[field])}`);

/**
 * An UPDATE of the object (not a subresource) that leaves its spec as it was: a change of metadata only,
 * such as a controller adding or removing its finalizer. Such updates are let through, so that an object
 * stored before the webhook was installed (or before a rule was added) can still be finalized and deleted.
 */
function specUnchanged(req: AdmissionRequest, obj: JsonObject): boolean {
  if (req.operation !== 'UPDATE' || req.subResource !== '' || !isPlainObject(req.oldObject)) return false;
  return jsonEqual(obj['spec'] ?? null, req.oldObject['spec'] ?? null);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

/** CREATE or UPDATE of this policy.karmada.io resource itself (its status subresource is not examined). */
const examinedPolicy = (req: AdmissionRequest, plural: string): boolean =>
  isCreateOrUpdate(req) &&
  req.resource.group === POLICY_GROUP &&
  req.resource.resource === plural &&
  req.subResource === '';

/** Karmada's MutatingAdmission of a (Cluster)PropagationPolicy: defaults, and on CREATE id and finalizer. */
function mutatePolicy(req: AdmissionRequest, plural: string, cluster: boolean): Decision {
  if (!examinedPolicy(req, plural)) return ALLOW;
  const obj = objectOf(req, 'object');
  if (!obj) return notAnObject(req, 'object');
  const patch = propagationPolicyPatch(obj, {
    cluster,
    operation: req.operation,
    namespace: req.namespace,
    oldObject: req.oldObject,
  });
  return patch.length > 0 ? { allowed: true, patch } : ALLOW;
}

/** Karmada's ValidatingAdmission of a (Cluster)PropagationPolicy; its denials are 403 Forbidden. */
function validatePolicy(req: AdmissionRequest, plural: string, cluster: boolean): Decision {
  if (!examinedPolicy(req, plural)) return ALLOW;
  const obj = objectOf(req, 'object');
  if (!obj) return notAnObject(req, 'object');
  let old: JsonObject | undefined;
  if (req.operation === 'UPDATE') {
    old = objectOf(req, 'oldObject');
    if (!old) return notAnObject(req, 'oldObject');
    // A change of metadata other than the permanent id (a finalizer removed at deletion, a label added) of
    // an object stored before the webhook: only the immutability rules apply.
    if (specUnchanged(req, obj)) {
      const denial = propagationPolicyDenial(obj, { cluster, namespace: req.namespace }, old, {
        immutabilityOnly: true,
      });
      return denial ? { allowed: false, code: 403, reason: 'Forbidden', message: denial } : ALLOW;
    }
  }
  const denial = propagationPolicyDenial(obj, { cluster, namespace: req.namespace }, old);
  return denial ? { allowed: false, code: 403, reason: 'Forbidden', message: denial } : ALLOW;
}

/** API groups of KubeFed itself: their kinds named Federated* (FederatedTypeConfig...) are not Federated<Kind>s. */
const KUBEFED_API_GROUPS: ReadonlySet<string> = new Set([CORE_GROUP, SCHEDULING_GROUP, DNS_GROUP]);

/** A request for a Federated<Kind> object itself (not a subresource), of any federated group. */
const isFederated = (req: AdmissionRequest): boolean =>
  !KUBEFED_API_GROUPS.has(req.resource.group) &&
  req.resource.resource.startsWith('federated') &&
  req.subResource === '';

/** The placement, override and template rules of a Federated<Kind> object (CREATE and UPDATE). */
function validateFederated(req: AdmissionRequest, obj: JsonObject): Decision {
  const { errors, warnings } = validateFederatedObject(obj, {
    federatedNamespace: req.resource.resource === 'federatednamespaces',
    namespace: req.namespace,
  });
  return decide(errors, warnings);
}

/**
 * A create's validation, then the sync finalizer for types whose sync controller runs. Validating here, in
 * the call that adds the finalizer, with updates left to the validating webhook, makes one webhook call per
 * create instead of two (each costs the API server an AdmissionReview round trip over HTTP/1.1, which it
 * uses for webhooks); the webhook is re-invoked if a later mutating webhook changes the object
 * (reinvocationPolicy IfNeeded), so what it allowed is what gets stored. For the finalizer, anything it
 * cannot tell (no API access, informers not synced) admits the object unchanged: the controller's finalizer
 * PATCH is the fallback, so only the validation rules ever refuse a create.
 */
function mutateFederated(req: AdmissionRequest, ctx: AdmissionContext | undefined): Decision {
  if (req.operation !== 'CREATE' || !isFederated(req)) return ALLOW;
  const obj = objectOf(req, 'object');
  if (!obj) return notAnObject(req, 'object');
  const verdict = validateFederated(req, obj);
  const view = ctx?.controlPlane?.();
  if (!verdict.allowed || !view) return verdict;
  const metadata = isPlainObject(obj['metadata']) ? obj['metadata'] : {};
  const target = {
    group: req.resource.group,
    resource: req.resource.resource,
    namespace: req.namespace,
    name: req.name || str(metadata['name']),
  };
  if (!syncControllerRuns(view, target)) return verdict;
  const patch = syncFinalizerPatch(obj);
  return patch.length > 0 ? { ...verdict, patch } : verdict;
}

/**
 * The claim of the policy that selects a resource template being created. It never refuses a create: it is
 * registered with failurePolicy Ignore, and anything it cannot tell (no view yet, an object it cannot read,
 * a bug) admits the object unchanged, for the detector to claim as Karmada's does.
 */
function claimResourceTemplate(req: AdmissionRequest, ctx: AdmissionContext | undefined): Decision {
  const view = ctx?.policies?.();
  if (!view) return ALLOW;
  try {
    const patch = templateClaimPatch(req, view);
    return patch.length > 0 ? { allowed: true, patch } : ALLOW;
  } catch {
    return ALLOW;
  }
}

export const handlers: Readonly<Record<WebhookPath, AdmissionHandler>> = {
  [WebhookPath.ValidateFederatedTypeConfigs]: (req) => {
    if (!examined(req, 'federatedtypeconfigs')) return ALLOW;
    const obj = objectOf(req, 'object');
    if (!obj) return notAnObject(req, 'object');
    if (specUnchanged(req, obj)) return ALLOW;
    return decide(validateFederatedTypeConfig(obj, { statusSubresource: req.subResource !== '' }));
  },
  [WebhookPath.ValidateKubeFedCluster]: (req) => {
    if (!examined(req, 'kubefedclusters')) return ALLOW;
    const obj = objectOf(req, 'object');
    if (!obj) return notAnObject(req, 'object');
    if (specUnchanged(req, obj)) return ALLOW;
    return decide(validateKubeFedCluster(obj, { statusSubresource: req.subResource !== '' }));
  },
  [WebhookPath.ValidateKubeFedConfig]: (req) => {
    if (!examined(req, 'kubefedconfigs')) return ALLOW;
    const obj = objectOf(req, 'object');
    if (!obj) return notAnObject(req, 'object');
    if (req.operation !== 'UPDATE') return decide(validateKubeFedConfigObject(obj));
    const old = objectOf(req, 'oldObject');
    if (!old) return notAnObject(req, 'oldObject');
    if (specUnchanged(req, obj)) return ALLOW;
    return decide(validateKubeFedConfigObject(obj, old));
  },
  [WebhookPath.DefaultKubeFedConfig]: (req) => {
    // Defaults are filled on CREATE only: an update keeps what the user wrote.
    if (req.operation !== 'CREATE' || !examined(req, 'kubefedconfigs')) return ALLOW;
    const obj = objectOf(req, 'object');
    if (!obj) return notAnObject(req, 'object');
    const patch = kubeFedConfigDefaultingPatch(obj);
    return patch.length > 0 ? { allowed: true, patch } : ALLOW;
  },
  // Registered for UPDATE (a create is validated by MutateFederated); CREATE is still served, for
  // configurations registered before that.
  [WebhookPath.ValidateFederated]: (req) => {
    if (!isCreateOrUpdate(req) || !isFederated(req)) return ALLOW;
    const obj = objectOf(req, 'object');
    if (!obj) return notAnObject(req, 'object');
    if (specUnchanged(req, obj)) return ALLOW;
    return validateFederated(req, obj);
  },
  [WebhookPath.MutateFederated]: mutateFederated,
  [WebhookPath.MutatePropagationPolicy]: (req) => mutatePolicy(req, PP_PLURAL, false),
  [WebhookPath.ValidatePropagationPolicy]: (req) => validatePolicy(req, PP_PLURAL, false),
  [WebhookPath.MutateClusterPropagationPolicy]: (req) => mutatePolicy(req, CPP_PLURAL, true),
  [WebhookPath.ValidateClusterPropagationPolicy]: (req) => validatePolicy(req, CPP_PLURAL, true),
  [WebhookPath.ValidateOverridePolicy]: overridePolicyHandler(OP_PLURAL, validateOverrideSpec),
  [WebhookPath.ValidateClusterOverridePolicy]: overridePolicyHandler(COP_PLURAL, validateOverrideSpec),
  [WebhookPath.ClaimResourceTemplate]: claimResourceTemplate,
};

export function isWebhookPath(path: string): path is WebhookPath {
  return Object.hasOwn(handlers, path);
}

export interface AdmissionResult {
  review: AdmissionReviewResponse;
  decision: Decision;
  /** The decoded request, when the body was an AdmissionReview at all. */
  request?: AdmissionRequest;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Decodes the envelope; a string is the reason it cannot be used. */
export function decodeAdmissionReview(
  body: string,
): { apiVersion: string; request: AdmissionRequest } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    return `couldn't decode AdmissionReview: ${(e as Error).message}`;
  }
  if (!isPlainObject(parsed))
    return `couldn't decode AdmissionReview: expected a JSON object, got ${describe(parsed)}`;
  const apiVersion = parsed['apiVersion'];
  if (!(ADMISSION_REVIEW_API_VERSIONS as readonly unknown[]).includes(apiVersion)) {
    return `unsupported AdmissionReview apiVersion ${JSON.stringify(apiVersion ?? '')}: want ${ADMISSION_REVIEW_API_VERSIONS.join(' or ')}`;
  }
  if (parsed['kind'] !== 'AdmissionReview') {
    return `unexpected kind ${JSON.stringify(parsed['kind'] ?? '')}: want AdmissionReview`;
  }
  const r = parsed['request'];
  if (!isPlainObject(r)) return 'AdmissionReview has no request';
  if (typeof r['uid'] !== 'string' || r['uid'] === '') return 'request.uid: expected a non-empty string';
  if (typeof r['operation'] !== 'string') return 'request.operation: expected a string';
  const res = r['resource'];
  if (!isPlainObject(res) || typeof res['resource'] !== 'string') {
    return 'request.resource: expected {group, version, resource}';
  }
  const kind = isPlainObject(r['kind']) ? r['kind'] : undefined;
  const request: AdmissionRequest = {
    uid: r['uid'],
    resource: { group: str(res['group']), version: str(res['version']), resource: res['resource'] },
    subResource: str(r['subResource']),
    name: str(r['name']),
    namespace: str(r['namespace']),
    operation: r['operation'],
    object: r['object'],
    oldObject: r['oldObject'],
  };
  if (kind)
    request.kind = { group: str(kind['group']), version: str(kind['version']), kind: str(kind['kind']) };
  const user = r['userInfo'];
  if (isPlainObject(user)) request.userInfo = decodeUserInfo(user);
  return { apiVersion: apiVersion as string, request };
}

function decodeUserInfo(user: JsonObject): AdmissionUserInfo {
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const info: AdmissionUserInfo = {
    username: str(user['username']),
    uid: str(user['uid']),
    groups: strings(user['groups']),
  };
  const extra = user['extra'];
  if (isPlainObject(extra)) {
    info.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strings(v)]));
  }
  return info;
}

/** The response part of a review for one decision. */
export function toResponse(uid: string, d: Decision): AdmissionResponse {
  const response: AdmissionResponse = { uid, allowed: d.allowed };
  if (d.allowed && d.patch && d.patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(d.patch)).toString('base64');
  }
  if (!d.allowed) {
    response.status = { metadata: {}, status: 'Failure', code: d.code, reason: d.reason, message: d.message };
  }
  if (d.warnings && d.warnings.length > 0) response.warnings = d.warnings;
  return response;
}

/**
 * Answers one AdmissionReview body sent to `path` (one of WebhookPath). Never throws: a body that is
 * not a usable AdmissionReview is answered with a 400 denial, as controller-runtime does.
 */
export function admit(path: WebhookPath, body: string, ctx: AdmissionContext = {}): AdmissionResult {
  const decoded = decodeAdmissionReview(body);
  if (typeof decoded === 'string') {
    const decision = badRequest(decoded);
    return {
      review: {
        apiVersion: ADMISSION_REVIEW_API_VERSIONS[0],
        kind: 'AdmissionReview',
        response: toResponse('', decision),
      },
      decision,
    };
  }
  const { apiVersion, request } = decoded;
  let decision: Decision;
  try {
    decision = handlers[path](request, ctx);
  } catch (e) {
    // A bug must deny one request, not take the server (and with failurePolicy Fail, all writes) down.
    decision = {
      allowed: false,
      code: 500,
      reason: 'InternalError',
      message: `internal error: ${(e as Error).message}`,
    };
  }
  return {
    review: { apiVersion, kind: 'AdmissionReview', response: toResponse(request.uid, decision) },
    decision,
    request,
  };
}
