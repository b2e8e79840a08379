// What `kubefedctl join --mode pull` writes (pure): the hub side of a Pull cluster (its namespace, the
// agent's ServiceAccount, token, Role and Lease, the KubeFedCluster) and the agent's install in the member.
// The hub RBAC is OCM's managedcluster work role bound in the cluster's namespace only (ocm
// pkg/registration/hub/manifests/rbac/managedcluster-work-clusterrole.yaml); the member's agent role is
// OCM's klusterlet work agent role (ocm manifests/klusterlet/managed/klusterlet-work-clusterrole.yaml).
// charts/kubefed-agent renders the same member objects. See docs/pull-mode.md.

import type { KubeFedClusterSpec } from '../api/core/v1beta1/index.ts';
import {
  AGENT_LEASE_NAME,
  API_VERSION,
  KUBEFED_CLUSTER_KIND,
  KubeFedClusterType,
} from '../api/core/v1beta1/index.ts';
import { memberCrds } from '../api/crds.ts';
import { GROUP as WORK_GROUP } from '../api/ocm/work/v1/index.ts';
import { CoreTypes, type KubeObject, type ResourceType } from '../kube/client/index.ts';
import { renderKubeconfig } from '../kube/kubeconfig/index.ts';
import { VERSION } from '../version.ts';

/** Names in the member. */
export const AGENT_NAMESPACE = 'kubefed-agent';
export const AGENT_NAME = 'kubefed-agent';
export const AGENT_EXECUTION_ROLE = 'kubefed-agent:execution';
/** OCM's name of the hub kubeconfig Secret, mounted at /spoke/hub-kubeconfig. */
export const HUB_KUBECONFIG_SECRET = 'hub-kubeconfig-secret';
export const HUB_KUBECONFIG_MOUNT = '/spoke/hub-kubeconfig';
export const DEFAULT_AGENT_IMAGE = `ghcr.io/kubefed-ts/kubefed-ts:${VERSION}`;
/** The label OCM puts on a cluster's hub objects (clusterv1.ClusterNameLabelKey). */
export const CLUSTER_NAME_LABEL = 'open-cluster-management.io/cluster-name';

/** Names on the hub, in the cluster's namespace. */
export const hubAgentServiceAccount = (cluster: string) => `${cluster}-agent`;
export const hubAgentTokenSecret = (cluster: string) => `${cluster}-agent-token`;
export const HUB_AGENT_ROLE = 'kubefed-agent:work';

export const DeploymentType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
} as const satisfies ResourceType;

export interface PlannedObject {
  type: ResourceType;
  object: KubeObject;
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const RBAC = 'rbac.authorization.k8s.io/v1';

/** The agent's rights on the hub: its own namespace only (OCM's work role, without its manifestworks delete). */
export const HUB_AGENT_RULES: PolicyRule[] = [
  { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
  {
    apiGroups: [WORK_GROUP],
    resources: ['manifestworks'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
  },
  { apiGroups: [WORK_GROUP], resources: ['manifestworks/status'], verbs: ['patch', 'update'] },
  // The heartbeat (OCM's registration agent's right): join creates the Lease, so no create.
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [AGENT_LEASE_NAME],
    verbs: ['get', 'update'],
  },
];

/** OCM's mandatory work agent role in the member: its AppliedManifestWorks and the executor checks. */
export const MEMBER_AGENT_RULES: PolicyRule[] = [
  {
    apiGroups: [WORK_GROUP],
    resources: ['appliedmanifestworks'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  },
  { apiGroups: [WORK_GROUP], resources: ['appliedmanifestworks/status'], verbs: ['patch', 'update'] },
  { apiGroups: [WORK_GROUP], resources: ['appliedmanifestworks/finalizers'], verbs: ['update'] },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
];

const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
/**
 * The default execution role: what the agent may apply. OCM binds the built-in `admin` (plus an aggregated
 * role for namespaces, RBAC with escalate/bind, CRDs, webhooks); kubefed-ts grants the everyday workload
 * kinds only and no RBAC, CRDs or webhooks, so a hub that can write ManifestWorks cannot take the member over.
 * `--agent-execution-role NAME` binds another ClusterRole instead (e.g. `admin` or `cluster-admin`).
 */
export const DEFAULT_EXECUTION_RULES: PolicyRule[] = [
  {
    apiGroups: [''],
    resources: [
      'namespaces',
      'configmaps',
      'secrets',
      'services',
      'serviceaccounts',
      'persistentvolumeclaims',
    ],
    verbs: ALL,
  },
  { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: ALL },
  { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: ALL },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: ALL },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ALL },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ALL },
];

/** The hub objects of a Pull cluster, in creation order (the token Secret's data is filled by the hub). */
export function hubPlan(opts: {
  cluster: string;
  kubefedNamespace: string;
  apiEndpoint: string;
  provider?: string;
  leaseDurationSeconds: number;
}): { namespace: PlannedObject; objects: PlannedObject[]; kubefedCluster: KubeObject } {
  const C = opts.cluster;
  const labels = { [CLUSTER_NAME_LABEL]: C };
  const sa = hubAgentServiceAccount(C);
  const spec: KubeFedClusterSpec = {
    apiEndpoint: opts.apiEndpoint,
    syncMode: 'Pull',
    ...(opts.provider ? { provider: opts.provider } : {}),
  };
  const kubefedCluster: KubeObject = {
    apiVersion: API_VERSION,
    kind: KUBEFED_CLUSTER_KIND,
    metadata: { name: C, namespace: opts.kubefedNamespace },
    spec,
  };
  return {
    namespace: {
      type: CoreTypes.namespaces,
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: C, labels } },
    },
    objects: [
      {
        type: CoreTypes.serviceAccounts,
        object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: C, labels } },
      },
      {
        type: CoreTypes.roles,
        object: {
          apiVersion: RBAC,
          kind: 'Role',
          metadata: { name: HUB_AGENT_ROLE, namespace: C, labels },
          rules: HUB_AGENT_RULES,
        },
      },
      {
        type: CoreTypes.roleBindings,
        object: {
          apiVersion: RBAC,
          kind: 'RoleBinding',
          metadata: { name: HUB_AGENT_ROLE, namespace: C, labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: HUB_AGENT_ROLE },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace: C }],
        },
      },
      {
        // No renewTime: the cluster is not Ready until its agent has renewed the lease once.
        type: CoreTypes.leases,
        object: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: AGENT_LEASE_NAME, namespace: C, labels },
          spec: { leaseDurationSeconds: opts.leaseDurationSeconds },
        },
      },
      {
        type: CoreTypes.secrets,
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: hubAgentTokenSecret(C),
            namespace: C,
            labels,
            annotations: { 'kubernetes.io/service-account.name': sa },
          },
          type: 'kubernetes.io/service-account-token',
        },
      },
      { type: KubeFedClusterType, object: kubefedCluster },
    ],
    kubefedCluster,
  };
}

/** The agent's kubeconfig for the hub: the hub URL, its CA and the agent's token, all inline. */
export function hubKubeconfig(opts: {
  cluster: string;
  hubUrl: string;
  caData?: Buffer;
  token: string;
}): string {
  return renderKubeconfig(
    [
      {
        name: 'hub',
        server: opts.hubUrl,
        caData: opts.caData ?? Buffer.alloc(0),
        token: opts.token,
        namespace: opts.cluster,
      },
    ],
    'hub',
  );
}

export interface AgentInstallOptions {
  cluster: string;
  /** The hub kubeconfig (hubKubeconfig()). */
  kubeconfig: string;
  image?: string;
  /** An existing ClusterRole to bind as the execution role instead of the default one. */
  executionRole?: string;
  /** The agent's --lease-duration. */
  leaseDurationSeconds: number;
}

/** The member objects of the agent, in creation order (namespace, CRD, RBAC, hub kubeconfig, Deployment). */
export function agentInstallPlan(opts: AgentInstallOptions): PlannedObject[] {
  const ns = AGENT_NAMESPACE;
  const labels = { 'app.kubernetes.io/name': AGENT_NAME, 'app.kubernetes.io/part-of': 'kubefed-ts' };
  const subjects = [{ kind: 'ServiceAccount', name: AGENT_NAME, namespace: ns }];
  const executionRole = opts.executionRole || AGENT_EXECUTION_ROLE;
  const plan: PlannedObject[] = [
    {
      type: CoreTypes.namespaces,
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels } },
    },
    ...memberCrds().map((crd) => ({ type: CoreTypes.crds, object: crd as unknown as KubeObject })),
    {
      type: CoreTypes.serviceAccounts,
      object: {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: AGENT_NAME, namespace: ns, labels },
      },
    },
    {
      type: CoreTypes.clusterRoles,
      object: {
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: AGENT_NAME, labels },
        rules: MEMBER_AGENT_RULES,
      },
    },
    {
      type: CoreTypes.clusterRoleBindings,
      object: {
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: AGENT_NAME, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: AGENT_NAME },
        subjects,
      },
    },
  ];
  if (!opts.executionRole) {
    plan.push({
      type: CoreTypes.clusterRoles,
      object: {
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: AGENT_EXECUTION_ROLE, labels },
        rules: DEFAULT_EXECUTION_RULES,
      },
    });
  }
  plan.push(
    {
      type: CoreTypes.clusterRoleBindings,
      object: {
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: AGENT_EXECUTION_ROLE, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: executionRole },
        subjects,
      },
    },
    {
      type: CoreTypes.secrets,
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: HUB_KUBECONFIG_SECRET, namespace: ns, labels },
        type: 'Opaque',
        stringData: { kubeconfig: opts.kubeconfig, 'cluster-name': opts.cluster, 'agent-name': opts.cluster },
      },
    },
    { type: DeploymentType, object: agentDeployment(opts, labels) },
  );
  return plan;
}

function agentDeployment(opts: AgentInstallOptions, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: AGENT_NAME, namespace: AGENT_NAMESPACE, labels },
    spec: {
      // One agent per cluster, never two at once (OCM's work agent runs one leader).
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { 'app.kubernetes.io/name': AGENT_NAME } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: AGENT_NAME,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 },
          containers: [
            {
              name: 'agent',
              image: opts.image || DEFAULT_AGENT_IMAGE,
              command: ['node', '/app/src/cmd/agent.ts'],
              args: [
                `--hub-kubeconfig=${HUB_KUBECONFIG_MOUNT}/kubeconfig`,
                `--cluster-name=${opts.cluster}`,
                `--lease-duration=${opts.leaseDurationSeconds}s`,
                '--healthz-addr=:8080',
                '--metrics-addr=:9090',
              ],
              ports: [
                { name: 'healthz', containerPort: 8080 },
                { name: 'metrics', containerPort: 9090 },
              ],
              livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
              readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '512Mi' } },
              volumeMounts: [
                { name: 'hub-kubeconfig', mountPath: HUB_KUBECONFIG_MOUNT, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'hub-kubeconfig', secret: { secretName: HUB_KUBECONFIG_SECRET } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  };
}
