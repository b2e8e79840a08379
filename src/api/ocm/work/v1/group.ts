/** work.open-cluster-management.io/v1: OCM's ManifestWork and AppliedManifestWork. */
export const GROUP = 'work.open-cluster-management.io';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
