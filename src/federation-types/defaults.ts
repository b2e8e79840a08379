import type { TargetTypeInfo } from './target.ts';

type Builtin = Omit<TargetTypeInfo, 'hasSchema' | 'scalable' | 'singular'> & { scalable?: boolean };

/** Built-in types always have an OpenAPI schema; singular names are the lower-cased kind. */
function builtin(t: Builtin): TargetTypeInfo {
  return { ...t, singular: t.kind.toLowerCase(), scalable: t.scalable ?? false, hasSchema: true };
}

/**
 * The ten types KubeFed's Helm chart enables (charts/kubefed/templates/federatedtypeconfig.yaml), in its
 * order (by FTC name), with Kubernetes' own short names so that the federated short names come out as in the
 * chart (fcm, fdeploy, fing, fns, frs, fsa, fsvc).
 */
export const DEFAULT_TARGET_TYPES: readonly TargetTypeInfo[] = [
  builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    shortNames: [],
    namespaced: false,
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    shortNames: ['cm'],
    namespaced: true,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    shortNames: ['deploy'],
    namespaced: true,
    scalable: true,
  }),
  builtin({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    shortNames: ['ing'],
    namespaced: true,
  }),
  // Jobs have spec.parallelism/completions but no spec.replicas, so no retainReplicas.
  builtin({ group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', shortNames: [], namespaced: true }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    shortNames: ['ns'],
    namespaced: false,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    shortNames: ['rs'],
    namespaced: true,
    scalable: true,
  }),
  builtin({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', shortNames: [], namespaced: true }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    shortNames: ['sa'],
    namespaced: true,
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    shortNames: ['svc'],
    namespaced: true,
  }),
];
