// multicluster.x-k8s.io/v1alpha1: served beside v1beta1 with the same schema (only two deprecated Go constants
// differ), so the v1beta1 types describe it too. Karmada still speaks v1alpha1 only (mcs-api v0.1.0).
export { GROUP } from '../v1beta1/group.ts';
export const VERSION = 'v1alpha1';
export const API_VERSION = 'multicluster.x-k8s.io/v1alpha1' as const;
