/** API group of KubeFed's own configuration types (KubeFedCluster, KubeFedConfig, FederatedTypeConfig). */
export const GROUP = 'core.kubefed.io';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
