/**
 * The federation API server: where templates (plain Deployments, ConfigMaps, ...) and policies live. Like
 * karmada-apiserver it runs beside a kube-controller-manager limited to the controllers below, and has no
 * nodes, so no workload controller acts on a template and the fleet's status can be written to it.
 */

/**
 * Karmada's kube-controller-manager list (artifacts/deploy/kube-controller-manager.yaml and the operator's
 * operator/pkg/controlplane/manifests.go: namespace, garbagecollector, serviceaccount-token,
 * ttl-after-finished, bootstrapsigner, tokencleaner, csrcleaner, csrsigning, clusterrole-aggregation), under
 * the names kube-controller-manager has used since v1.28 (the old ones are aliases). Namespace deletion and
 * garbage collection finish deletes (ownerReferences from bindings and PropagatedVersions); the token
 * controllers serve `kubefedctl join` and bootstrap tokens; CSR signing serves client certificates; role
 * aggregation makes kubefed-admin/edit/view extend admin/edit/view.
 */
export const FEDERATION_APISERVER_CONTROLLERS = [
  'namespace-controller',
  'garbage-collector-controller',
  'serviceaccount-token-controller',
  'ttl-after-finished-controller',
  'bootstrap-signer-controller',
  'token-cleaner-controller',
  'certificatesigningrequest-cleaner-controller',
  'certificatesigningrequest-signing-controller',
  'clusterrole-aggregation-controller',
] as const;

/**
 * The controllers that act on workload templates: they create ReplicaSets, Pods or Jobs from them, or write
 * their `.status` (which the federation writes instead). Canonical names first, then the pre-v1.28 aliases.
 */
const WORKLOAD_CONTROLLERS: ReadonlyArray<readonly [string, string]> = [
  ['deployment-controller', 'deployment'],
  ['replicaset-controller', 'replicaset'],
  ['statefulset-controller', 'statefulset'],
  ['daemonset-controller', 'daemonset'],
  ['job-controller', 'job'],
  ['cronjob-controller', 'cronjob'],
  ['replicationcontroller-controller', 'replicationcontroller'],
  ['horizontal-pod-autoscaler-controller', 'horizontalpodautoscaling'],
  ['disruption-controller', 'disruption'],
];

/**
 * The workload controllers (canonical names) that a kube-controller-manager `--controllers` value enables,
 * with its rules: `*` turns on every on-by-default controller (all of the workload ones), `foo` turns foo
 * on, `-foo` turns it off, whichever order they come in; an absent flag means `*`.
 */
export function workloadControllersEnabled(controllersFlag: string | undefined): string[] {
  const items = (controllersFlag ?? '*')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const all = items.includes('*');
  return WORKLOAD_CONTROLLERS.filter(([name, alias]) => {
    const named = (n: string) => n === name || n === alias;
    if (items.some((i) => i.startsWith('-') && named(i.slice(1)))) return false;
    return all || items.some(named);
  }).map(([name]) => name);
}
