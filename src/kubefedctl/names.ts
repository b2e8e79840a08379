/** Object names that join creates and unjoin removes; identical to KubeFed's (pkg/controller/util). */
export const serviceAccountName = (cluster: string, hostCluster: string): string =>
  `${cluster}-${hostCluster}`;
export const roleName = (serviceAccount: string): string => `kubefed-controller-manager:${serviceAccount}`;
export const healthCheckRoleName = (serviceAccount: string, namespace: string): string =>
  `kubefed-controller-manager:${namespace}:healthcheck-${serviceAccount}`;

/** Rules KubeFed grants its service account in a member (cluster scope: everything). */
export const clusterPolicyRules = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['get'] },
];
export const namespacedPolicyRules = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
/**
 * KubeFed writes the verb as "Get", which RBAC never matches (verbs are case-sensitive); /healthz is public
 * anyway. We write "get" so the rule means what it says.
 */
export const healthCheckPolicyRules = [
  { nonResourceURLs: ['/healthz'], verbs: ['get'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
];
