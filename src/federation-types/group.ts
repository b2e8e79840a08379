/** API group and version of the generated Federated<Kind> CRDs unless --federated-group/--federated-version say otherwise. */
export const FEDERATED_GROUP = 'types.kubefed.io';
export const FEDERATED_VERSION = 'v1beta1';
