// The executor check: a work that names a ServiceAccount as its executor may only do on the member what that
// ServiceAccount may do, asked of the member's authorizer with SubjectAccessReviews before each apply or
// delete (ocm pkg/work/spoke/auth/basic/auth.go SarValidator).

import type { ManifestWorkExecutor } from '../../api/ocm/work/v1/index.ts';
import type { KubeClient, KubeObject } from '../../kube/client/index.ts';

const SAR_TYPE = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'subjectaccessreviews',
  namespaced: false,
  kind: 'SubjectAccessReview',
} as const;

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface ExecutorTarget {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * The verbs to ask for: OCM's create, update, patch, get, and delete when the work will own (and so may
 * later delete) the resource. OCM checks RBAC escalation with an impersonated dry-run create; kubefed-ts asks
 * for `escalate` on Roles and `bind` on bindings instead (docs/manifestwork.md, Differences from OCM).
 */
export function executorVerbs(
  resource: Pick<ExecutorTarget, 'group' | 'resource'>,
  ownedByTheWork: boolean,
): string[] {
  const verbs = ['create', 'update', 'patch', 'get'];
  if (ownedByTheWork) verbs.push('delete');
  if (resource.group === RBAC_GROUP) {
    if (resource.resource === 'roles' || resource.resource === 'clusterroles') verbs.push('escalate');
    if (resource.resource === 'rolebindings' || resource.resource === 'clusterrolebindings')
      verbs.push('bind');
  }
  return verbs;
}

/** OCM's NotAllowedError text, requeue time included. */
export function notAllowedMessage(t: ExecutorTarget, escalation: boolean): string {
  const base = `not allowed to apply the resource ${t.group} ${t.resource}, ${t.namespace} ${t.name}`;
  return `${base}${escalation ? ', error: permission escalation' : ''}, will try again in 1m0s`;
}

/**
 * Undefined when the executor may act on the resource (or no executor is set), else why not. SAR failures
 * (the member not answering) throw: they are transient, not a denial.
 */
export async function checkExecutor(
  member: KubeClient,
  executor: ManifestWorkExecutor | undefined,
  target: ExecutorTarget,
  verbs: readonly string[],
): Promise<string | undefined> {
  if (!executor) return undefined;
  if (executor.subject.type !== 'ServiceAccount') return 'only support ServiceAccount type for the executor';
  const sa = executor.subject.serviceAccount;
  if (!sa) return 'the executor service account is nil';
  for (const verb of verbs) {
    const review = await member.create<KubeObject & { status?: { allowed?: boolean } }>(SAR_TYPE, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: `system:serviceaccount:${sa.namespace}:${sa.name}`,
        groups: ['system:serviceaccounts', 'system:authenticated', `system:serviceaccounts:${sa.namespace}`],
        resourceAttributes: {
          group: target.group,
          version: target.version,
          resource: target.resource,
          namespace: target.namespace,
          name: target.name,
          verb,
        },
      },
    });
    if (!review.status?.allowed) return notAllowedMessage(target, verb === 'escalate' || verb === 'bind');
  }
  return undefined;
}
