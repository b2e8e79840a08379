import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { DateTime, StringEnum, TypedString } from '../../schema-helpers.ts';

export const KUBEFED_CLUSTER_KIND = 'KubeFedCluster';
export const KUBEFED_CLUSTER_LIST_KIND = 'KubeFedClusterList';
export const KUBEFED_CLUSTER_PLURAL = 'kubefedclusters';
export const KUBEFED_CLUSTER_SINGULAR = 'kubefedcluster';
export const KUBEFED_CLUSTER_SHORT_NAMES = ['kfc'] as const;

/** Member-cluster TLS checks that `spec.disabledTLSValidations` may switch off. `*` must stand alone. */
export const TLSValidation = {
  All: '*',
  SubjectName: 'SubjectName',
  ValidityPeriod: 'ValidityPeriod',
} as const;
export type TLSValidation = (typeof TLSValidation)[keyof typeof TLSValidation];

/** Condition types of `status.conditions` (pkg/apis/core/common/constants.go). */
export const ClusterConditionType = {
  Ready: 'Ready',
  Offline: 'Offline',
  ConfigMalformed: 'ConfigMalformed',
} as const;
export type ClusterConditionType = (typeof ClusterConditionType)[keyof typeof ClusterConditionType];

/** Reasons the health controller writes (pkg/controller/kubefedcluster/clusterclient.go). */
export const ClusterConditionReason = {
  ClusterReady: 'ClusterReady',
  ClusterNotReady: 'ClusterNotReady',
  ClusterNotReachable: 'ClusterNotReachable',
  ClusterReachable: 'ClusterReachable',
  ClusterConfigMalformed: 'ClusterConfigMalformed',
} as const;
export type ClusterConditionReason = (typeof ClusterConditionReason)[keyof typeof ClusterConditionReason];

/** Messages paired with the reasons above; the not-reachable one is followed by `: <error>`. */
export const ClusterConditionMessage = {
  HealthzOk: '/healthz responded with ok',
  HealthzNotOk: '/healthz responded without ok',
  ClusterNotReachable: 'cluster is not reachable',
  ClusterReachable: 'cluster is reachable',
  ClusterConfigMalformed: "cluster's configuration may be malformed",
} as const;

export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** Taint effects (corev1.TaintEffect). */
export const TaintEffect = {
  NoSchedule: 'NoSchedule',
  PreferNoSchedule: 'PreferNoSchedule',
  NoExecute: 'NoExecute',
} as const;
export type TaintEffect = (typeof TaintEffect)[keyof typeof TaintEffect];

/** Taint keys kubefed-ts writes itself (karmada pkg/apis/cluster/v1alpha1/well_known_constants.go). */
export const ClusterTaintKey = {
  /** `kubefedctl cordon`: no new placement. */
  Unschedulable: 'cluster.karmada.io/unschedulable',
  /** The health controller: Ready=False. */
  NotReady: 'cluster.karmada.io/not-ready',
  /** The health controller: the cluster could not be reached (Ready Unknown / Offline). */
  Unreachable: 'cluster.karmada.io/unreachable',
} as const;

// corev1.Taint, as Karmada's Cluster.spec.taints has it.
export const TaintSchema = Type.Object(
  {
    key: Type.String({ description: 'The taint key.' }),
    value: Type.Optional(Type.String({ description: 'The taint value.' })),
    effect: StringEnum([TaintEffect.NoSchedule, TaintEffect.PreferNoSchedule, TaintEffect.NoExecute], {
      description: 'NoSchedule, PreferNoSchedule or NoExecute.',
    }),
    timeAdded: Type.Optional(DateTime('When the taint was added (set for NoExecute taints).')),
  },
  {
    description: 'A taint on a member cluster: policies that do not tolerate it are kept off (corev1.Taint).',
  },
);
export type Taint = Static<typeof TaintSchema>;

/** How the control plane reaches a member (Karmada's ClusterSyncMode). */
export const SYNC_MODES = ['Push', 'Pull'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];
export function syncModeOf(c: { spec?: { syncMode?: SyncMode } }): SyncMode {
  return c.spec?.syncMode ?? 'Push';
}
/** The Lease a pull-mode agent renews in its hub namespace (OCM's registration agent's lease name). */
export const AGENT_LEASE_NAME = 'managed-cluster-lease';

const LocalSecretReferenceSchema = Type.Object(
  { name: Type.String({ description: 'Name of a Secret in the KubeFed namespace.' }) },
  {
    description:
      'Secret holding the bearer token (key "token") used to reach the member cluster. ' +
      'It must live in the KubeFed namespace.',
  },
);

export const KubeFedClusterSpecSchema = Type.Object(
  {
    apiEndpoint: Type.String({
      description: 'API endpoint of the member cluster: a hostname, hostname:port, IP, IP:port or URL.',
    }),
    caBundle: Type.Optional(
      Type.String({ format: 'byte', description: 'PEM CA bundle used to verify the member API server.' }),
    ),
    // Required for Push clusters (KubeFed's only kind); a Pull cluster has none: the hub holds no member credential.
    secretRef: Type.Optional(LocalSecretReferenceSchema),
    disabledTLSValidations: Type.Optional(
      Type.Array(StringEnum([TLSValidation.All, TLSValidation.SubjectName, TLSValidation.ValidityPeriod]), {
        description:
          'TLS checks to skip when talking to the member cluster: any of *, SubjectName, ValidityPeriod. ' +
          'If * is given it must be the only item.',
      }),
    ),
    // KubeFed's JSON tag has no omitempty, so Go clients always send it (possibly "").
    proxyURL: Type.Optional(
      Type.String({ description: 'Proxy URL (http, https or socks5) used to reach the member cluster.' }),
    ),
    // kubefed-ts addition (Karmada's Cluster.spec.provider): matched by policies' fieldSelector.
    provider: Type.Optional(
      Type.String({
        description:
          "kubefed-ts addition: cloud provider of the member cluster, matched by policies' fieldSelector (key provider).",
      }),
    ),
    // kubefed-ts addition (Karmada's Cluster.spec.taints): kept off by policies that do not tolerate them.
    taints: Type.Optional(
      Type.Array(TaintSchema, {
        description:
          'kubefed-ts addition: taints of the member cluster, as Karmada has them. Policies that do not tolerate a ' +
          'NoSchedule taint place nothing new here; a NoExecute taint evicts what they placed.',
      }),
    ),
    // kubefed-ts addition (Karmada's Cluster.spec.syncMode): Pull clusters run kubefed-agent, which fetches their
    // ManifestWorks from the hub namespace named after the cluster; the hub never calls them.
    syncMode: Type.Optional(
      StringEnum(SYNC_MODES, {
        description:
          'kubefed-ts addition: Push (default) — the control plane applies to the member with the credentials in ' +
          'secretRef; Pull — kubefed-agent in the member fetches its work from the hub, which holds no member ' +
          'credential, and the cluster is healthy while the agent renews its lease.',
      }),
    ),
  },
  { description: 'KubeFedClusterSpec defines the desired state of KubeFedCluster.' },
);
export type KubeFedClusterSpec = Static<typeof KubeFedClusterSpecSchema>;
export type LocalSecretReference = Static<typeof LocalSecretReferenceSchema>;

export const ClusterConditionSchema = Type.Object(
  {
    type: TypedString<ClusterConditionType>({ description: 'Ready, Offline or ConfigMalformed.' }),
    status: TypedString<ConditionStatus>({ description: 'True, False or Unknown.' }),
    lastProbeTime: DateTime('Last time the condition was probed.'),
    lastTransitionTime: Type.Optional(DateTime('Last time the condition changed status.')),
    reason: Type.Optional(
      Type.String({ description: 'Brief machine-readable reason for the last transition.' }),
    ),
    message: Type.Optional(Type.String({ description: 'Human-readable details of the last transition.' })),
  },
  { description: 'ClusterCondition describes the current state of a cluster.' },
);
export type ClusterCondition = Static<typeof ClusterConditionSchema>;

export const KubeFedClusterStatusSchema = Type.Object(
  {
    conditions: Type.Array(ClusterConditionSchema, { description: 'Current cluster conditions.' }),
    kubernetesVersion: Type.Optional(
      Type.String({ description: 'gitVersion reported by the member cluster.' }),
    ),
    // zones/region are kept for wire compatibility; KubeFed v0.10 no longer fills them.
    zones: Type.Optional(
      Type.Array(Type.String(), { description: 'Availability zones of the nodes in the cluster.' }),
    ),
    region: Type.Optional(Type.String({ description: 'Region of the nodes in the cluster.' })),
  },
  { description: 'KubeFedClusterStatus is updated periodically by the cluster health controller.' },
);
export type KubeFedClusterStatus = Static<typeof KubeFedClusterStatusSchema>;

export const KubeFedClusterSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    spec: KubeFedClusterSpecSchema,
    status: Type.Optional(KubeFedClusterStatusSchema),
  },
  {
    description:
      'KubeFedCluster registers a member Kubernetes cluster with KubeFed and holds what is needed to reach it.',
  },
);
export type KubeFedCluster = Static<typeof KubeFedClusterSchema>;

/** A cluster is ready iff it has a condition Ready=True (KubeFed's util.IsClusterReady). */
export function isClusterReady(conditions: readonly ClusterCondition[] | undefined): boolean {
  return (conditions ?? []).some((c) => c.type === ClusterConditionType.Ready && c.status === 'True');
}

/** Marks a KubeFedCluster joined with `kubefedctl join --scoped-rbac`; its value is the mode. */
export const MEMBER_RBAC_ANNOTATION = 'kubefed-ts.io/member-rbac';
export const SCOPED_RBAC_MODE = 'scoped';

/**
 * The cluster was joined with `--scoped-rbac`: its member credentials grant only the enabled federated types,
 * nothing the controller manager adds of its own (AppliedManifestWorks, the MCS types).
 */
export function isScopedRbac(
  cluster: { metadata?: { annotations?: Record<string, string> } } | undefined,
): boolean {
  return cluster?.metadata?.annotations?.[MEMBER_RBAC_ANNOTATION] === SCOPED_RBAC_MODE;
}
