// The order manifests are applied in: OCM applies a work's manifests sorted by kind (ocm#1500, ocm
// pkg/work/spoke/controllers/manifestcontroller/manifestwork_reconciler.go), so a Namespace or CRD exists
// before the objects that need it, and webhooks come last so they cannot block the rest of the work.

/** Rank by kind, as OCM's table keys it (kind only: a custom kind named like a built-in ranks like it). */
const RANKS: Readonly<Record<string, number>> = {
  PriorityClass: 0,
  Namespace: 0,
  CustomResourceDefinition: 0,
  StorageClass: 0,
  PersistentVolume: 0,
  PodSecurityPolicy: 0,
  ClusterRole: 1,
  ClusterRoleBinding: 1,
  Role: 1,
  RoleBinding: 1,
  NetworkPolicy: 2,
  ResourceQuota: 2,
  LimitRange: 2,
  PodDisruptionBudget: 2,
  ServiceAccount: 2,
  Secret: 3,
  ConfigMap: 3,
  PersistentVolumeClaim: 3,
  Service: 4,
  DaemonSet: 5,
  Pod: 5,
  ReplicationController: 5,
  ReplicaSet: 5,
  Deployment: 5,
  HorizontalPodAutoscaler: 5,
  StatefulSet: 5,
  Job: 5,
  CronJob: 5,
  APIService: 6,
  MutatingWebhookConfiguration: 6,
  ValidatingWebhookConfiguration: 6,
  ValidatingAdmissionPolicy: 6,
  ValidatingAdmissionPolicyBinding: 6,
};

/** Kinds OCM does not know go after every known one. */
export const UNKNOWN_KIND_RANK = 1000;

export function kindRank(_group: string, kind: string): number {
  return Object.hasOwn(RANKS, kind) ? (RANKS[kind] as number) : UNKNOWN_KIND_RANK;
}

/** The manifests in apply order: by kind rank, then by their index in the work (a stable sort). */
export function applyOrder<T extends { ordinal: number; group: string; kind: string }>(
  items: readonly T[],
): T[] {
  return [...items].sort(
    (a, b) => kindRank(a.group, a.kind) - kindRank(b.group, b.kind) || a.ordinal - b.ordinal,
  );
}
