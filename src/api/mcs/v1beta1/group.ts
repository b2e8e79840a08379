/** multicluster.x-k8s.io/v1beta1: SIG-Multicluster's Multi-Cluster Services API (KEP-1645), the stored version. */
export const GROUP = 'multicluster.x-k8s.io';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
/** The older version, served with the same schema (sigs.k8s.io/mcs-api config/crd: v1alpha1 storage: false). */
export const ALPHA_VERSION = 'v1alpha1';
