/** KubeFed v0.6's multi-cluster DNS API group (removed from KubeFed in v0.7; kept wire-compatible here). */
export const GROUP = 'multiclusterdns.kubefed.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
