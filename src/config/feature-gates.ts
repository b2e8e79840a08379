// KubeFed v0.10 feature gates (pkg/features/features.go). They can only be set through
// KubeFedConfig.spec.featureGates; validation accepts exactly these names.

export const FeatureGate = {
  PushReconciler: 'PushReconciler',
  SchedulerPreferences: 'SchedulerPreferences',
  RawResourceStatusCollection: 'RawResourceStatusCollection',
} as const;
export type FeatureGate = (typeof FeatureGate)[keyof typeof FeatureGate];

/**
 * Default state of each gate when the config does not mention it. RawResourceStatusCollection defaults to on
 * in kubefed-ts (off in KubeFed): collection is already opt-in per type through the FTC's statusCollection,
 * and the workload health it feeds is one of the things kubefed-ts exists for.
 */
export const DEFAULT_FEATURE_GATES: Readonly<Record<FeatureGate, boolean>> = {
  PushReconciler: true,
  SchedulerPreferences: true,
  RawResourceStatusCollection: true,
};

/** Known gate names, sorted like the list the defaulter produces. */
export const KNOWN_FEATURE_GATES: readonly FeatureGate[] = (
  Object.keys(DEFAULT_FEATURE_GATES) as FeatureGate[]
).sort();

export function isFeatureGate(name: string): name is FeatureGate {
  return Object.hasOwn(DEFAULT_FEATURE_GATES, name);
}
