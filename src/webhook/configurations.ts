// The ValidatingWebhookConfiguration and MutatingWebhookConfiguration that register the webhooks with
// an apiserver, as KubeFed's Helm chart writes them (charts/.../templates/webhook.yaml), plus the
// kubefed-ts webhook for Federated<Kind> objects and Karmada's policy webhooks with the names, paths and
// rules of Karmada's (artifacts/deploy/webhook-configuration.yaml).

import { GROUP as CORE_GROUP, VERSION as CORE_VERSION } from '../api/core/v1beta1/group.ts';
import { GROUP as WORK_GROUP } from '../api/ocm/work/v1/group.ts';
import { MW_PLURAL } from '../api/ocm/work/v1/manifestwork.ts';
import { MWRS_PLURAL } from '../api/ocm/work/v1alpha1/manifestworkreplicaset.ts';
import { GROUP as POLICY_GROUP } from '../api/policy/v1alpha1/group.ts';
import { COP_PLURAL, OP_PLURAL } from '../api/policy/v1alpha1/overridepolicy.ts';
import { CPP_PLURAL, PP_PLURAL } from '../api/policy/v1alpha1/propagationpolicy.ts';
import { FEDERATED_GROUP } from '../federation-types/group.ts';
import type { LabelSelector } from '../propagation/label-selector.ts';
import { WebhookPath } from './admission.ts';
import { OcmWebhookPath } from './ocm-admission.ts';

export const VALIDATING_CONFIGURATION_NAME = 'validations.core.kubefed.io';
export const MUTATING_CONFIGURATION_NAME = 'mutation.core.kubefed.io';

/** Webhook names, as the apiserver prints them: `admission webhook "<name>" denied the request: ...`. */
export const WebhookName = {
  FederatedTypeConfigs: 'federatedtypeconfigs.core.kubefed.io',
  KubeFedClusters: 'kubefedclusters.core.kubefed.io',
  KubeFedConfigs: 'kubefedconfigs.core.kubefed.io',
  Federated: 'federated.types.kubefed.io',
  PropagationPolicies: 'propagationpolicy.karmada.io',
  ClusterPropagationPolicies: 'clusterpropagationpolicy.karmada.io',
  OverridePolicies: 'overridepolicy.karmada.io',
  ClusterOverridePolicies: 'clusteroverridepolicy.karmada.io',
  ManifestWorks: 'manifestworkvalidators.admission.work.open-cluster-management.io',
  ManifestWorkReplicaSets: 'manifestworkreplicasetvalidators.admission.work.open-cluster-management.io',
  ResourceTemplates: 'resourcetemplates.policy.kubefed.io',
} as const;

/** How long a create waits for the template claim before going on without it (the detector then claims). */
export const CLAIM_WEBHOOK_TIMEOUT_SECONDS = 2;

/** The Service of the Helm chart: `kubefed-admission-webhook`, port 443 → 8443. */
export const WEBHOOK_SERVICE_NAME = 'kubefed-admission-webhook';

export interface WebhookConfigurationOptions {
  /** Base64 of the PEM CA that signed the serving certificate. */
  caBundle: string;
  /** Reach the webhook through a Service (in-cluster). */
  service?: { namespace: string; name: string; port?: number };
  /**
   * Or through a URL: the base `https://host:port`, each webhook's path is appended
   * (`https://127.0.0.1:8443/validate-kubefedcluster`). Used when the webhook runs outside the cluster.
   */
  url?: string;
  /** Helm's Namespaced scope: only objects in namespaces matching this selector are sent. */
  namespaceSelector?: LabelSelector;
  /** Appended to the configuration names after a `-` (Helm's Namespaced scope uses the release namespace). */
  nameSuffix?: string;
  /** The group of the Federated<Kind> CRDs; `types.kubefed.io` unless `enable --federated-group` said otherwise. */
  federatedGroup?: string;
}

export interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope?: string;
}

export interface Webhook {
  name: string;
  admissionReviewVersions: string[];
  clientConfig: {
    caBundle: string;
    url?: string;
    service?: { namespace: string; name: string; path: string; port?: number };
  };
  rules: Rule[];
  failurePolicy: 'Fail' | 'Ignore';
  /** Seconds the API server waits for an answer; its default is 10. */
  timeoutSeconds?: number;
  sideEffects: 'None';
  namespaceSelector?: LabelSelector;
  /** Mutating webhooks only; the apiserver's default is Never. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: Webhook[];
}

export interface WebhookConfigurations {
  validating: WebhookConfiguration;
  mutating: WebhookConfiguration;
}

function suffixed(name: string, suffix: string | undefined): string {
  if (!suffix) return name;
  return suffix.startsWith('-') ? `${name}${suffix}` : `${name}-${suffix}`;
}

/** Both configurations, ready to be created; exactly one of `service` and `url` must be given. */
export function webhookConfigurations(opts: WebhookConfigurationOptions): WebhookConfigurations {
  if (Boolean(opts.service) === Boolean(opts.url)) {
    throw new Error('webhook configurations need exactly one of service and url');
  }
  const clientConfig = (path: WebhookPath | OcmWebhookPath): Webhook['clientConfig'] => {
    if (opts.url) return { url: `${opts.url.replace(/\/+$/, '')}${path}`, caBundle: opts.caBundle };
    const s = opts.service!;
    const service = { namespace: s.namespace, name: s.name, path, ...(s.port ? { port: s.port } : {}) };
    return { service, caBundle: opts.caBundle };
  };
  const webhook = (name: string, path: WebhookPath | OcmWebhookPath, rules: Rule[]): Webhook => ({
    admissionReviewVersions: ['v1'],
    name,
    clientConfig: clientConfig(path),
    rules,
    failurePolicy: 'Fail',
    sideEffects: 'None',
    ...(opts.namespaceSelector ? { namespaceSelector: structuredClone(opts.namespaceSelector) } : {}),
  });
  const core = (operations: string[], resources: string[]): Rule[] => [
    { operations, apiGroups: [CORE_GROUP], apiVersions: [CORE_VERSION], resources },
  ];
  const createUpdate = ['CREATE', 'UPDATE'];
  const federated = (operations: string[]): Rule[] => [
    {
      operations,
      apiGroups: [opts.federatedGroup ?? FEDERATED_GROUP],
      apiVersions: ['*'],
      resources: ['*'],
      scope: opts.namespaceSelector ? 'Namespaced' : '*',
    },
  ];
  const policy = (resource: string, scope: 'Namespaced' | 'Cluster'): Rule[] => [
    { operations: createUpdate, apiGroups: [POLICY_GROUP], apiVersions: ['*'], resources: [resource], scope },
  ];
  // A Namespaced control plane owns no cluster-scoped policies: a namespaceSelector cannot keep other
  // tenants' ClusterPropagationPolicies and ClusterOverridePolicies away from its webhook.
  const clusterScoped = !opts.namespaceSelector;
  const validatingPolicies: Webhook[] = [
    webhook(
      WebhookName.PropagationPolicies,
      WebhookPath.ValidatePropagationPolicy,
      policy(PP_PLURAL, 'Namespaced'),
    ),
    ...(clusterScoped
      ? [
          webhook(
            WebhookName.ClusterPropagationPolicies,
            WebhookPath.ValidateClusterPropagationPolicy,
            policy(CPP_PLURAL, 'Cluster'),
          ),
        ]
      : []),
    webhook(
      WebhookName.OverridePolicies,
      WebhookPath.ValidateOverridePolicy,
      policy(OP_PLURAL, 'Namespaced'),
    ),
    ...(clusterScoped
      ? [
          webhook(
            WebhookName.ClusterOverridePolicies,
            WebhookPath.ValidateClusterOverridePolicy,
            policy(COP_PLURAL, 'Cluster'),
          ),
        ]
      : []),
  ];
  const mutatingPolicies: Webhook[] = [
    webhook(
      WebhookName.PropagationPolicies,
      WebhookPath.MutatePropagationPolicy,
      policy(PP_PLURAL, 'Namespaced'),
    ),
    ...(clusterScoped
      ? [
          webhook(
            WebhookName.ClusterPropagationPolicies,
            WebhookPath.MutateClusterPropagationPolicy,
            policy(CPP_PLURAL, 'Cluster'),
          ),
        ]
      : []),
  ];
  return {
    validating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: suffixed(VALIDATING_CONFIGURATION_NAME, opts.nameSuffix) },
      webhooks: [
        webhook(
          WebhookName.FederatedTypeConfigs,
          WebhookPath.ValidateFederatedTypeConfigs,
          core(createUpdate, ['federatedtypeconfigs', 'federatedtypeconfigs/status']),
        ),
        webhook(
          WebhookName.KubeFedClusters,
          WebhookPath.ValidateKubeFedCluster,
          core(createUpdate, ['kubefedclusters', 'kubefedclusters/status']),
        ),
        webhook(
          WebhookName.KubeFedConfigs,
          WebhookPath.ValidateKubeFedConfig,
          core(createUpdate, ['kubefedconfigs']),
        ),
        // `*` matches every resource of the group but no subresource: status writes are not sent. A
        // namespaceSelector does not apply to cluster-scoped objects, so with one (a Namespaced control
        // plane) only namespaced resources are sent, as in the chart. UPDATE only: the mutating entry
        // validates a create in the same call that adds the finalizer.
        webhook(WebhookName.Federated, WebhookPath.ValidateFederated, federated(['UPDATE'])),
        ...validatingPolicies,
        // OCM's work webhooks (names, paths and rules of OCM's cluster-manager): the objects themselves,
        // not their status.
        webhook(WebhookName.ManifestWorks, OcmWebhookPath.ValidateManifestWork, [
          {
            operations: createUpdate,
            apiGroups: [WORK_GROUP],
            apiVersions: ['*'],
            resources: [MW_PLURAL],
            scope: 'Namespaced',
          },
        ]),
        webhook(WebhookName.ManifestWorkReplicaSets, OcmWebhookPath.ValidateManifestWorkReplicaSet, [
          {
            operations: createUpdate,
            apiGroups: [WORK_GROUP],
            apiVersions: ['*'],
            resources: [MWRS_PLURAL],
            scope: 'Namespaced',
          },
        ]),
      ],
    },
    mutating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: suffixed(MUTATING_CONFIGURATION_NAME, opts.nameSuffix) },
      webhooks: [
        webhook(
          WebhookName.KubeFedConfigs,
          WebhookPath.DefaultKubeFedConfig,
          core(['CREATE'], ['kubefedconfigs']),
        ),
        // A create's validation and its sync finalizer (the same objects the validating entry sees),
        // again if a later mutating webhook changed the object.
        {
          ...webhook(WebhookName.Federated, WebhookPath.MutateFederated, federated(['CREATE'])),
          reinvocationPolicy: 'IfNeeded',
        },
        ...mutatingPolicies,
        // The claim of a resource template at admission (template-claim.ts). Its rules start empty: the
        // controller manager keeps them to the kinds the policies select (claim-admission.ts). It refuses
        // nothing and waits little: without it the detector writes the claim, as Karmada's does.
        ...(clusterScoped
          ? [
              {
                ...webhook(WebhookName.ResourceTemplates, WebhookPath.ClaimResourceTemplate, []),
                failurePolicy: 'Ignore' as const,
                timeoutSeconds: CLAIM_WEBHOOK_TIMEOUT_SECONDS,
                reinvocationPolicy: 'Never' as const,
              },
            ]
          : []),
      ],
    },
  };
}
