// The labels, annotations and finalizers Karmada writes on policies, templates, bindings and member copies
// (karmada pkg/apis/policy/v1alpha1/well_known_constants.go, pkg/apis/work/v1alpha2/well_known_constants.go),
// with the same keys so Karmada's tooling and habits (selecting by permanent-id) keep working.

export const PP_PERMANENT_ID_LABEL = 'propagationpolicy.karmada.io/permanent-id';
export const CPP_PERMANENT_ID_LABEL = 'clusterpropagationpolicy.karmada.io/permanent-id';
export const PP_NAMESPACE_ANNOTATION = 'propagationpolicy.karmada.io/namespace';
export const PP_NAME_ANNOTATION = 'propagationpolicy.karmada.io/name';
export const CPP_NAME_ANNOTATION = 'clusterpropagationpolicy.karmada.io/name';

/** Karmada's policy finalizer (pkg/util/constants.go PropagationPolicyControllerFinalizer). */
export const PP_FINALIZER = 'karmada.io/propagation-policy-controller';
export const CPP_FINALIZER = 'karmada.io/cluster-propagation-policy-controller';
/** Karmada's binding finalizers (BindingControllerFinalizer, ClusterResourceBindingControllerFinalizer). */
export const RB_FINALIZER = 'karmada.io/binding-controller';
export const CRB_FINALIZER = 'karmada.io/cluster-resource-binding-controller';

/** Templates carrying it are ignored by policies (pkg/detector/detector.go). */
export const CLAIMED_BY_LABEL = 'resourcetemplate.karmada.io/claimed-by';
/** Keep the member's replicas (an HPA there owns them). */
export const RETAIN_REPLICAS_LABEL = 'resourcetemplate.karmada.io/retain-replicas';
/** `Always`: deleting the template is denied. */
export const DELETION_PROTECTED_LABEL = 'resourcetemplate.karmada.io/deletion-protected';
/** Per-template override of the policy's conflictResolution: `overwrite` or `abort`. */
export const CONFLICT_RESOLUTION_ANNOTATION = 'work.karmada.io/conflict-resolution';
/** On member copies (pkg/util/constants.go ManagedByKarmadaLabel). */
export const KARMADA_MANAGED_LABEL = 'karmada.io/managed';
/** The template generation a member copy was rendered from (ResourceTemplateGenerationAnnotationKey). */
export const TEMPLATE_GENERATION_ANNOTATION = 'resourcetemplate.karmada.io/generation';

/** Namespaces a policy never propagates from (pkg/util/names: karmada-system, karmada-cluster, karmada-es-*). */
export function isReservedNamespace(ns: string): boolean {
  return ns === 'karmada-system' || ns === 'karmada-cluster' || ns.startsWith('karmada-es-');
}
