/** core.kubefed.io/v1alpha1: the sync controller's internal bookkeeping (PropagatedVersion). */
export const GROUP = 'core.kubefed.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
