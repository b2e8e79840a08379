/** Identifies a resource collection on the API server: group/version/plural and whether it is namespaced. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  kind?: string;
}

/** The `apiVersion` of the type's objects: `group/version`, or just `version` for the core group. */
export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** `plural` for the core group, else `plural.group` (KubeFed's GroupQualifiedName): FTC and CRD names, log fields. */
export function groupQualifiedName(plural: string, group: string): string {
  return group ? `${plural}.${group}` : plural;
}

/** `plural.group/version`, or `plural/version` for the core group, as KubeFed names an API resource in messages. */
export function resourceTypeName(t: Pick<ResourceType, 'group' | 'version' | 'plural'>): string {
  return t.group ? `${t.plural}.${t.group}/${t.version}` : `${t.plural}/${t.version}`;
}

/** The REST path of a collection, an object or one of its subresources. */
export function resourcePath(
  type: ResourceType,
  opts: { namespace?: string; name?: string; subresource?: string } = {},
): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  let path = base;
  if (type.namespaced && opts.namespace) path += `/namespaces/${encodeURIComponent(opts.namespace)}`;
  path += `/${type.plural}`;
  if (opts.name !== undefined) path += `/${encodeURIComponent(opts.name)}`;
  if (opts.subresource) path += `/${opts.subresource}`;
  return path;
}

export function withQuery(
  path: string,
  query: Record<string, string | number | boolean | undefined>,
): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Built-in types the control plane itself needs; federated types are discovered at run time. */
export const CoreTypes = {
  namespaces: { group: '', version: 'v1', plural: 'namespaces', namespaced: false, kind: 'Namespace' },
  secrets: { group: '', version: 'v1', plural: 'secrets', namespaced: true, kind: 'Secret' },
  serviceAccounts: {
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    namespaced: true,
    kind: 'ServiceAccount',
  },
  nodes: { group: '', version: 'v1', plural: 'nodes', namespaced: false, kind: 'Node' },
  pods: { group: '', version: 'v1', plural: 'pods', namespaced: true, kind: 'Pod' },
  events: { group: '', version: 'v1', plural: 'events', namespaced: true, kind: 'Event' },
  validatingWebhookConfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
    kind: 'ValidatingWebhookConfiguration',
  },
  mutatingWebhookConfigurations: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
    kind: 'MutatingWebhookConfiguration',
  },
  configMaps: { group: '', version: 'v1', plural: 'configmaps', namespaced: true, kind: 'ConfigMap' },
  clusterRoles: {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'clusterroles',
    namespaced: false,
    kind: 'ClusterRole',
  },
  clusterRoleBindings: {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'clusterrolebindings',
    namespaced: false,
    kind: 'ClusterRoleBinding',
  },
  roles: {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'roles',
    namespaced: true,
    kind: 'Role',
  },
  roleBindings: {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'rolebindings',
    namespaced: true,
    kind: 'RoleBinding',
  },
  leases: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespaced: true, kind: 'Lease' },
  crds: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    namespaced: false,
    kind: 'CustomResourceDefinition',
  },
} as const satisfies Record<string, ResourceType>;
