/** policy.karmada.io/v1alpha1: Karmada's placement and override policies, served wire-compatibly. */
export const GROUP = 'policy.karmada.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
/** Karmada's CRD category (`kubectl get karmada-io`). */
export const CATEGORY = 'karmada-io';
