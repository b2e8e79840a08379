/** The federated kinds an RSP can target, and the FTC that propagates each. */
export const SCHEDULING_TARGETS: Readonly<Record<string, string>> = {
  FederatedDeployment: 'deployments.apps',
  FederatedReplicaSet: 'replicasets.apps',
};
