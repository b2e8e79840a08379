/** What enable needs to know about a target type: its discovery names plus two facts from its schema. */
export interface TargetTypeInfo {
  /** Empty for the core group. */
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  /**
   * The target has `spec.replicas` of type integer/int32, so the federated type gets `spec.retainReplicas`.
   */
  scalable: boolean;
  /**
   * A schema for the target was found; without one KubeFed declares no `spec.template`
   * (pkg/kubefedctl/enable/validation.go, federatedTypeValidationSchema).
   */
  hasSchema: boolean;
}
