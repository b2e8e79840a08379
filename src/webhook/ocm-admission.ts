// OCM's work webhooks (ocm pkg/work/webhook): ManifestWork and ManifestWorkReplicaSet validation, on OCM's
// paths. Unlike the other webhooks these may call the API: an executor is admitted only if the requesting
// user may `execute-as` it, which a SubjectAccessReview on the hub answers. Every denial is a 400 BadRequest
// with OCM's message, as controller-runtime returns apierrors.NewBadRequest.

import { GROUP as WORK_GROUP } from '../api/ocm/work/v1/group.ts';
import { MW_PLURAL } from '../api/ocm/work/v1/manifestwork.ts';
import { MWRS_PLURAL } from '../api/ocm/work/v1alpha1/manifestworkreplicaset.ts';
import { errorMessage } from '../kube/client/index.ts';
import { isPlainObject, type JsonObject, jsonEqual } from '../propagation/json.ts';
import {
  ADMISSION_REVIEW_API_VERSIONS,
  type AdmissionRequest,
  type AdmissionResult,
  badRequest,
  type Decision,
  decodeAdmissionReview,
  toResponse,
} from './admission.ts';
import {
  DEFAULT_MANIFEST_LIMIT,
  executorAccessReview,
  executorDeniedMessage,
  reviewManifestWork,
} from './validation/manifestwork.ts';
import { manifestWorkReplicaSetDenial } from './validation/manifestworkreplicaset.ts';

/** OCM's webhook paths (controller-runtime's /validate-<group>-<version>-<kind>). */
export const OcmWebhookPath = {
  ValidateManifestWork: '/validate-work-open-cluster-management-io-v1-manifestwork',
  ValidateManifestWorkReplicaSet: '/validate-work-open-cluster-management-io-v1alpha1-manifestworkreplicaset',
} as const;
export type OcmWebhookPath = (typeof OcmWebhookPath)[keyof typeof OcmWebhookPath];

export function isOcmWebhookPath(path: string): path is OcmWebhookPath {
  return (Object.values(OcmWebhookPath) as string[]).includes(path);
}

export interface OcmAdmissionOptions {
  /** Largest total size of a work's manifests, in bytes (OCM's --manifestLimit); 500 KiB by default. */
  manifestLimit?: number;
  /** Creates the SubjectAccessReview on the hub and says whether it is allowed; throws when it cannot. */
  reviewAccess: (review: JsonObject) => Promise<boolean>;
}

const ALLOW: Decision = { allowed: true };

/** CREATE or UPDATE of this work.open-cluster-management.io resource itself (not its status). */
const examined = (req: AdmissionRequest, plural: string): boolean =>
  (req.operation === 'CREATE' || req.operation === 'UPDATE') &&
  req.resource.group === WORK_GROUP &&
  req.resource.resource === plural &&
  req.subResource === '';

/** The object, or a denial; and on UPDATE the stored object. */
function objects(req: AdmissionRequest): { obj: JsonObject; old?: JsonObject } | Decision {
  if (!isPlainObject(req.object)) return badRequest('object: expected a JSON object');
  if (req.operation !== 'UPDATE') return { obj: req.object };
  if (!isPlainObject(req.oldObject)) return badRequest('oldObject: expected a JSON object');
  return { obj: req.object, old: req.oldObject };
}

const isDecision = (v: object): v is Decision => 'allowed' in v;

/**
 * A metadata-only UPDATE (a finalizer removed, a label added) is let through, as for kubefed-ts's other
 * webhooks, so a work stored before the webhook (or a rule) existed can still be finalized and deleted.
 */
const specUnchanged = (obj: JsonObject, old: JsonObject | undefined): boolean =>
  old !== undefined && jsonEqual(obj['spec'] ?? null, old['spec'] ?? null);

async function validateManifestWork(req: AdmissionRequest, opts: OcmAdmissionOptions): Promise<Decision> {
  if (!examined(req, MW_PLURAL)) return ALLOW;
  const got = objects(req);
  if (isDecision(got)) return got;
  if (specUnchanged(got.obj, got.old)) return ALLOW;
  const review = reviewManifestWork(got.obj, got.old, opts.manifestLimit ?? DEFAULT_MANIFEST_LIMIT);
  if (review.kind === 'deny') return badRequest(review.message);
  if (review.kind === 'allow') return ALLOW;
  const user = req.userInfo ?? { username: '', uid: '', groups: [] };
  const namespace =
    req.namespace ||
    (isPlainObject(got.obj['metadata']) ? String(got.obj['metadata']['namespace'] ?? '') : '');
  let allowed: boolean;
  try {
    allowed = await opts.reviewAccess(executorAccessReview(user, namespace, review.serviceAccount));
  } catch (e) {
    return badRequest(errorMessage(e));
  }
  return allowed ? ALLOW : badRequest(executorDeniedMessage(user.username, review.serviceAccount, namespace));
}

function validateManifestWorkReplicaSet(req: AdmissionRequest, opts: OcmAdmissionOptions): Decision {
  if (!examined(req, MWRS_PLURAL)) return ALLOW;
  const got = objects(req);
  if (isDecision(got)) return got;
  if (specUnchanged(got.obj, got.old)) return ALLOW;
  const denial = manifestWorkReplicaSetDenial(got.obj, opts.manifestLimit ?? DEFAULT_MANIFEST_LIMIT);
  return denial ? badRequest(denial) : ALLOW;
}

/** Answers one AdmissionReview sent to an OCM path. Never throws (a failure denies the one request). */
export async function admitOcm(
  path: OcmWebhookPath,
  body: string,
  opts: OcmAdmissionOptions,
): Promise<AdmissionResult> {
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
    decision =
      path === OcmWebhookPath.ValidateManifestWork
        ? await validateManifestWork(request, opts)
        : validateManifestWorkReplicaSet(request, opts);
  } catch (e) {
    decision = {
      allowed: false,
      code: 500,
      reason: 'InternalError',
      message: `internal error: ${errorMessage(e)}`,
    };
  }
  return {
    review: { apiVersion, kind: 'AdmissionReview', response: toResponse(request.uid, decision) },
    decision,
    request,
  };
}
