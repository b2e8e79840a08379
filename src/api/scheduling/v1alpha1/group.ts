/** scheduling.kubefed.io/v1alpha1: replica scheduling preferences (ReplicaSchedulingPreference). */
export const GROUP = 'scheduling.kubefed.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
