/** work.karmada.io/v1alpha2: Karmada's ResourceBinding, the visible decision for one template. */
export const GROUP = 'work.karmada.io';
export const VERSION = 'v1alpha2';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
