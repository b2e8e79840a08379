// The objects the benchmark federates, and how to tell that a member holds the expected copy.
import { CoreTypes, type KubeObject, type ResourceType } from '../src/kube/client/index.ts';

export const FED_API = 'types.kubefed.io/v1beta1';

export interface BenchKind {
  /** Short name used in flags and the table. */
  id: 'configmaps' | 'deployments';
  fedKind: string;
  fedType: ResourceType;
  target: ResourceType;
  /** The template of object i at content generation gen. */
  template(i: number, gen: number): Record<string, unknown>;
  /** Which generation a member object carries, or undefined when it is not one of ours. */
  generationOf(o: KubeObject): number | undefined;
}

const fed = (plural: string, kind: string): ResourceType => ({
  group: 'types.kubefed.io',
  version: 'v1beta1',
  plural,
  namespaced: true,
  kind,
});

/** The benchmark's namespace is federated with one of these, placed in every member. */
export const FEDERATED_NAMESPACES = fed('federatednamespaces', 'FederatedNamespace');

export const KINDS: Record<BenchKind['id'], BenchKind> = {
  configmaps: {
    id: 'configmaps',
    fedKind: 'FederatedConfigMap',
    fedType: fed('federatedconfigmaps', 'FederatedConfigMap'),
    target: CoreTypes.configMaps,
    template: (i, gen) => ({ data: { index: String(i), payload: `value-${i}`, gen: String(gen) } }),
    generationOf: (o) => {
      const g = (o as { data?: Record<string, string> }).data?.['gen'];
      return g === undefined ? undefined : Number(g);
    },
  },
  deployments: {
    id: 'deployments',
    fedKind: 'FederatedDeployment',
    fedType: fed('federateddeployments', 'FederatedDeployment'),
    target: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, kind: 'Deployment' },
    template: (i, gen) => ({
      metadata: { labels: { app: `bench-${i}` } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: `bench-${i}` } },
        template: {
          metadata: { labels: { app: `bench-${i}` }, annotations: { 'bench/gen': String(gen) } },
          spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    }),
    generationOf: (o) => {
      const spec = (o as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } })
        .spec;
      const g = spec?.template?.metadata?.annotations?.['bench/gen'];
      return g === undefined ? undefined : Number(g);
    },
  },
};

export function objectName(kind: BenchKind, i: number): string {
  return `${kind.id === 'configmaps' ? 'cm' : 'deploy'}-${String(i).padStart(5, '0')}`;
}

/** The federated object i, placed in every member by name (both systems read `placement.clusters`). */
export function federatedObject(
  kind: BenchKind,
  namespace: string,
  name: string,
  i: number,
  clusters: string[],
  gen = 0,
): KubeObject {
  return {
    apiVersion: FED_API,
    kind: kind.fedKind,
    metadata: { name, namespace },
    spec: { template: kind.template(i, gen), placement: { clusters: clusters.map((c) => ({ name: c })) } },
  } as KubeObject;
}

const apiVersionOf = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

/**
 * The plain object i at content generation gen: what a native user applies to the host, and what a
 * client creates directly in a member (the ceiling). The template plus name and namespace.
 */
export function plainObject(
  kind: BenchKind,
  namespace: string,
  name: string,
  i: number,
  gen = 0,
): KubeObject {
  const t = kind.template(i, gen) as { metadata?: Record<string, unknown> };
  return {
    ...t,
    apiVersion: apiVersionOf(kind.target),
    kind: kind.target.kind,
    metadata: { ...(t.metadata ?? {}), name, namespace },
  } as KubeObject;
}

/** The member object a client would create directly (the ceiling). */
export function memberObject(kind: BenchKind, namespace: string, i: number): KubeObject {
  return plainObject(kind, namespace, objectName(kind, i), i);
}

export const BENCH_POLICY = 'bench';

/**
 * The native front end's one policy: every object of the benchmark's kinds in the namespace (kind-only
 * selectors), on every member by name, each member getting the template's replicas (Duplicated, what a
 * FederatedDeployment without overrides does).
 */
export function propagationPolicy(namespace: string, kinds: BenchKind[], clusters: string[]): KubeObject {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: BENCH_POLICY, namespace },
    spec: {
      resourceSelectors: kinds.map((k) => ({ apiVersion: apiVersionOf(k.target), kind: k.target.kind })),
      placement: {
        clusterAffinity: { clusterNames: clusters },
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      },
    },
  } as KubeObject;
}
