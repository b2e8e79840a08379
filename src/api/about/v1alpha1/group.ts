/** about.k8s.io/v1alpha1: KEP-2149's About API (sigs.k8s.io/about-api), cluster properties. */
export const GROUP = 'about.k8s.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
