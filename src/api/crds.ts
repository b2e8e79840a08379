import * as about from './about/v1alpha1/index.ts';
import * as apps from './apps/v1alpha1/index.ts';
import * as internal from './core/v1alpha1/index.ts';
import * as core from './core/v1beta1/index.ts';
import { buildCrd, type CustomResourceDefinition } from './crd.ts';
import * as mcs from './mcs/v1beta1/index.ts';
import * as mcdns from './multiclusterdns/v1alpha1/index.ts';
import * as ocmCluster from './ocm/cluster/v1beta1/index.ts';
import * as ocmWork from './ocm/work/v1/index.ts';
import * as ocmWorkAlpha from './ocm/work/v1alpha1/index.ts';
import * as policy from './policy/v1alpha1/index.ts';
import * as scheduling from './scheduling/v1alpha1/index.ts';
import * as work from './work/v1alpha2/index.ts';

/**
 * Every CRD kubefed-ts installs. Add new groups here; the generator, `--check` and the
 * staleness test all read this list.
 */
export function allCrds(): CustomResourceDefinition[] {
  return [
    buildCrd({
      group: core.GROUP,
      version: core.VERSION,
      kind: core.KUBEFED_CLUSTER_KIND,
      listKind: core.KUBEFED_CLUSTER_LIST_KIND,
      plural: core.KUBEFED_CLUSTER_PLURAL,
      singular: core.KUBEFED_CLUSTER_SINGULAR,
      shortNames: core.KUBEFED_CLUSTER_SHORT_NAMES,
      scope: 'Namespaced',
      schema: core.KubeFedClusterSchema,
      statusSubresource: true,
      // Same columns, order and types as KubeFed v0.10, so `kubectl get kfc` prints
      // NAME AGE READY KUBERNETES-VERSION.
      printerColumns: [
        { name: 'age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        { name: 'ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
        { name: 'kubernetes-version', type: 'string', jsonPath: '.status.kubernetesVersion' },
      ],
    }),
    buildCrd({
      group: core.GROUP,
      version: core.VERSION,
      kind: core.KUBEFED_CONFIG_KIND,
      listKind: core.KUBEFED_CONFIG_LIST_KIND,
      plural: core.KUBEFED_CONFIG_PLURAL,
      singular: core.KUBEFED_CONFIG_SINGULAR,
      scope: 'Namespaced',
      schema: core.KubeFedConfigSchema,
      statusSubresource: false,
      printerColumns: [],
    }),
    buildCrd({
      group: core.GROUP,
      version: core.VERSION,
      kind: core.FEDERATED_TYPE_CONFIG_KIND,
      listKind: core.FEDERATED_TYPE_CONFIG_LIST_KIND,
      plural: core.FEDERATED_TYPE_CONFIG_PLURAL,
      singular: core.FEDERATED_TYPE_CONFIG_SINGULAR,
      shortNames: core.FEDERATED_TYPE_CONFIG_SHORT_NAMES,
      scope: 'Namespaced',
      schema: core.FederatedTypeConfigSchema,
      statusSubresource: true,
      printerColumns: [],
    }),
    buildCrd({
      group: internal.GROUP,
      version: internal.VERSION,
      kind: internal.PROPAGATED_VERSION_KIND,
      plural: internal.PROPAGATED_VERSION_PLURAL,
      singular: internal.PROPAGATED_VERSION_SINGULAR,
      scope: 'Namespaced',
      schema: internal.PropagatedVersionSchema,
      statusSubresource: true,
      printerColumns: [],
    }),
    buildCrd({
      group: internal.GROUP,
      version: internal.VERSION,
      kind: internal.CLUSTER_PROPAGATED_VERSION_KIND,
      plural: internal.CLUSTER_PROPAGATED_VERSION_PLURAL,
      singular: internal.CLUSTER_PROPAGATED_VERSION_SINGULAR,
      scope: 'Cluster',
      schema: internal.PropagatedVersionSchema,
      statusSubresource: true,
      printerColumns: [],
    }),
    buildCrd({
      group: scheduling.GROUP,
      version: scheduling.VERSION,
      kind: scheduling.RSP_KIND,
      listKind: scheduling.RSP_LIST_KIND,
      plural: scheduling.RSP_PLURAL,
      singular: scheduling.RSP_SINGULAR,
      shortNames: scheduling.RSP_SHORT_NAMES,
      scope: 'Namespaced',
      schema: scheduling.ReplicaSchedulingPreferenceSchema,
      // KubeFed had no status; kubefed-ts records the last plan there, written through /status.
      statusSubresource: true,
      printerColumns: [
        { name: 'Target', type: 'string', jsonPath: '.spec.targetKind' },
        { name: 'Total', type: 'integer', jsonPath: '.spec.totalReplicas' },
        { name: 'Scheduled', type: 'integer', jsonPath: '.status.totalScheduled' },
        { name: 'Clusters', type: 'string', jsonPath: '.status.clusters' },
        { name: 'Status', type: 'string', jsonPath: ".status.conditions[?(@.type=='Scheduled')].status" },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    }),
    buildCrd({
      group: mcdns.GROUP,
      version: mcdns.VERSION,
      kind: 'Domain',
      plural: 'domains',
      singular: 'domain',
      scope: 'Namespaced',
      schema: mcdns.DomainSchema,
      statusSubresource: false,
      printerColumns: [{ name: 'Domain', type: 'string', jsonPath: '.domain' }],
    }),
    buildCrd({
      group: mcdns.GROUP,
      version: mcdns.VERSION,
      kind: 'ServiceDNSRecord',
      plural: 'servicednsrecords',
      singular: 'servicednsrecord',
      scope: 'Namespaced',
      schema: mcdns.ServiceDNSRecordSchema,
      statusSubresource: true,
      printerColumns: [
        { name: 'Domain', type: 'string', jsonPath: '.status.domain' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    }),
    buildCrd({
      group: mcdns.GROUP,
      version: mcdns.VERSION,
      kind: 'IngressDNSRecord',
      plural: 'ingressdnsrecords',
      singular: 'ingressdnsrecord',
      scope: 'Namespaced',
      schema: mcdns.IngressDNSRecordSchema,
      statusSubresource: true,
      printerColumns: [
        { name: 'Hosts', type: 'string', jsonPath: '.spec.hosts' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    }),
    buildCrd({
      group: mcdns.GROUP,
      version: mcdns.VERSION,
      kind: 'DNSEndpoint',
      plural: 'dnsendpoints',
      singular: 'dnsendpoint',
      scope: 'Namespaced',
      schema: mcdns.DNSEndpointSchema,
      statusSubresource: true,
      printerColumns: [],
    }),
    ...policyCrds(),
    ...ocmHubCrds(),
  ];
}

/**
 * OCM's hub-side work and placement CRDs (open-cluster-management-io/api work/v1, work/v1alpha1,
 * cluster/v1beta1), with OCM's names and printer columns. ManifestWork gains Applied/Available/Age columns
 * (a kubefed-ts addition; OCM's CRD has none).
 */
export function ocmHubCrds(): CustomResourceDefinition[] {
  return [
    buildCrd({
      group: ocmWork.GROUP,
      version: ocmWork.VERSION,
      kind: ocmWork.MW_KIND,
      plural: ocmWork.MW_PLURAL,
      singular: ocmWork.MW_SINGULAR,
      scope: 'Namespaced',
      schema: ocmWork.ManifestWorkCrdSchema,
      statusSubresource: true,
      printerColumns: [
        { name: 'Applied', type: 'string', jsonPath: ".status.conditions[?(@.type=='Applied')].status" },
        { name: 'Available', type: 'string', jsonPath: ".status.conditions[?(@.type=='Available')].status" },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    }),
    buildCrd({
      group: ocmWorkAlpha.GROUP,
      version: ocmWorkAlpha.VERSION,
      kind: ocmWorkAlpha.MWRS_KIND,
      plural: ocmWorkAlpha.MWRS_PLURAL,
      singular: ocmWorkAlpha.MWRS_SINGULAR,
      shortNames: ocmWorkAlpha.MWRS_SHORT_NAMES,
      scope: 'Namespaced',
      schema: ocmWorkAlpha.ManifestWorkReplicaSetCrdSchema,
      statusSubresource: true,
      printerColumns: [
        {
          name: 'Placement',
          type: 'string',
          description: 'Reason',
          jsonPath: '.status.conditions[?(@.type=="PlacementVerified")].reason',
        },
        {
          name: 'Found',
          type: 'string',
          description: 'Configured',
          jsonPath: '.status.conditions[?(@.type=="PlacementVerified")].status',
        },
        {
          name: 'ManifestWorks',
          type: 'string',
          description: 'Reason',
          jsonPath: '.status.conditions[?(@.type=="ManifestworkApplied")].reason',
        },
        {
          name: 'Applied',
          type: 'string',
          description: 'Applied',
          jsonPath: '.status.conditions[?(@.type=="ManifestworkApplied")].status',
        },
      ],
    }),
    buildCrd({
      group: ocmCluster.GROUP,
      version: ocmCluster.VERSION,
      kind: ocmCluster.PLACEMENT_KIND,
      plural: ocmCluster.PLACEMENT_PLURAL,
      singular: ocmCluster.PLACEMENT_SINGULAR,
      scope: 'Namespaced',
      schema: ocmCluster.PlacementCrdSchema,
      statusSubresource: true,
      printerColumns: [
        {
          name: 'Succeeded',
          type: 'string',
          jsonPath: '.status.conditions[?(@.type=="PlacementSatisfied")].status',
        },
        {
          name: 'Reason',
          type: 'string',
          jsonPath: '.status.conditions[?(@.type=="PlacementSatisfied")].reason',
        },
        { name: 'SelectedClusters', type: 'integer', jsonPath: '.status.numberOfSelectedClusters' },
      ],
    }),
    buildCrd({
      group: ocmCluster.GROUP,
      version: ocmCluster.VERSION,
      kind: ocmCluster.PLACEMENT_DECISION_KIND,
      plural: ocmCluster.PLACEMENT_DECISION_PLURAL,
      singular: ocmCluster.PLACEMENT_DECISION_SINGULAR,
      scope: 'Namespaced',
      schema: ocmCluster.PlacementDecisionSchema,
      statusSubresource: true,
      printerColumns: [],
    }),
  ];
}

/**
 * CRDs every push member needs for multi-cluster services, installed by `kubefedctl join` (and in
 * config/crds/members for members joined before): SIG-Multicluster's ServiceExport and ServiceImport
 * (sigs.k8s.io/mcs-api config/crd, v0.5.2: v1alpha1 and v1beta1 served with one schema, v1beta1 stored) and
 * the About API's ClusterProperty (sigs.k8s.io/about-api). kubefed-ts adds Valid/Conflict/Ready columns to
 * ServiceExports and an exporting-clusters column to ServiceImports (upstream prints Age, and Type/IP/Age).
 */
export function mcsMemberCrds(): CustomResourceDefinition[] {
  return [
    alsoServe(
      buildCrd({
        group: mcs.GROUP,
        version: mcs.VERSION,
        kind: mcs.SERVICE_EXPORT_KIND,
        plural: mcs.SERVICE_EXPORT_PLURAL,
        singular: mcs.SERVICE_EXPORT_SINGULAR,
        shortNames: mcs.SERVICE_EXPORT_SHORT_NAMES,
        scope: 'Namespaced',
        schema: mcs.ServiceExportSchema,
        statusSubresource: true,
        printerColumns: [
          { name: 'Valid', type: 'string', jsonPath: ".status.conditions[?(@.type=='Valid')].status" },
          { name: 'Conflict', type: 'string', jsonPath: ".status.conditions[?(@.type=='Conflict')].status" },
          { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }),
      mcs.ALPHA_VERSION,
    ),
    alsoServe(
      buildCrd({
        group: mcs.GROUP,
        version: mcs.VERSION,
        kind: mcs.SERVICE_IMPORT_KIND,
        plural: mcs.SERVICE_IMPORT_PLURAL,
        singular: mcs.SERVICE_IMPORT_SINGULAR,
        shortNames: mcs.SERVICE_IMPORT_SHORT_NAMES,
        scope: 'Namespaced',
        schema: mcs.ServiceImportSchema,
        statusSubresource: true,
        printerColumns: [
          { name: 'Type', type: 'string', jsonPath: '.spec.type' },
          { name: 'IP', type: 'string', jsonPath: '.spec.ips' },
          { name: 'Clusters', type: 'string', jsonPath: '.status.clusters[*].cluster' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }),
      mcs.ALPHA_VERSION,
    ),
    approved(
      buildCrd({
        group: about.GROUP,
        version: about.VERSION,
        kind: about.CLUSTER_PROPERTY_KIND,
        plural: about.CLUSTER_PROPERTY_PLURAL,
        singular: about.CLUSTER_PROPERTY_SINGULAR,
        scope: 'Cluster',
        schema: about.ClusterPropertySchema,
        statusSubresource: false,
        printerColumns: [
          { name: 'value', type: 'string', jsonPath: '.spec.value' },
          { name: 'age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }),
      // sigs.k8s.io/about-api config/crd/patches/annotation_for_clusterproperties.yaml
      'https://github.com/kubernetes/kubernetes/pull/78458',
    ),
  ];
}

/**
 * A CRD in a `*.k8s.io` group is refused by the API server without this annotation (kubernetes/enhancements
 * KEP-1111 "protected API groups"); the value names the approval, as the upstream project's CRD gives it.
 */
function approved(crd: CustomResourceDefinition, approval: string): CustomResourceDefinition {
  crd.metadata.annotations = { ...crd.metadata.annotations, 'api-approved.kubernetes.io': approval };
  return crd;
}

/** The CRD also serves an older version with the same schema, not stored (mcs-api's v1alpha1). */
function alsoServe(crd: CustomResourceDefinition, version: string): CustomResourceDefinition {
  const [stored] = crd.spec.versions;
  if (!stored) return crd;
  crd.spec.versions = [{ ...structuredClone(stored), name: version, storage: false }, stored];
  return crd;
}

/** CRDs kubefed-ts installs into members (not the host): OCM's AppliedManifestWork, for the work agent. */
export function memberCrds(): CustomResourceDefinition[] {
  return [
    buildCrd({
      group: ocmWork.GROUP,
      version: ocmWork.VERSION,
      kind: ocmWork.AMW_KIND,
      plural: ocmWork.AMW_PLURAL,
      singular: ocmWork.AMW_SINGULAR,
      scope: 'Cluster',
      schema: ocmWork.AppliedManifestWorkCrdSchema,
      statusSubresource: true,
      printerColumns: [],
    }),
  ];
}

/**
 * Karmada's policy and binding CRDs, with Karmada's names, short names, category and printer columns
 * (karmada charts/karmada/_crds/bases/policy, .../work). kubefed-ts adds a status subresource to the policies
 * (Karmada's have no status, karmada#4048); writes to a policy's spec are unaffected.
 */
function policyCrds(): CustomResourceDefinition[] {
  const policyColumns = [
    { name: 'CONFLICT-RESOLUTION', type: 'string', jsonPath: '.spec.conflictResolution' },
    { name: 'PRIORITY', type: 'string', jsonPath: '.spec.priority' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ] as const;
  const bindingColumns = [
    { name: 'SCHEDULED', type: 'string', jsonPath: ".status.conditions[?(@.type=='Scheduled')].status" },
    {
      name: 'FULLYAPPLIED',
      type: 'string',
      jsonPath: ".status.conditions[?(@.type=='FullyApplied')].status",
    },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ] as const;
  const categories = [policy.CATEGORY];
  return [
    buildCrd({
      group: policy.GROUP,
      version: policy.VERSION,
      kind: policy.PP_KIND,
      plural: policy.PP_PLURAL,
      singular: policy.PP_SINGULAR,
      shortNames: policy.PP_SHORT_NAMES,
      categories,
      scope: 'Namespaced',
      schema: policy.PropagationPolicySchema,
      statusSubresource: true,
      printerColumns: policyColumns,
    }),
    buildCrd({
      group: policy.GROUP,
      version: policy.VERSION,
      kind: policy.CPP_KIND,
      plural: policy.CPP_PLURAL,
      singular: policy.CPP_SINGULAR,
      shortNames: policy.CPP_SHORT_NAMES,
      categories,
      scope: 'Cluster',
      schema: policy.PropagationPolicySchema,
      statusSubresource: true,
      printerColumns: policyColumns,
    }),
    buildCrd({
      group: policy.GROUP,
      version: policy.VERSION,
      kind: policy.OP_KIND,
      plural: policy.OP_PLURAL,
      singular: policy.OP_SINGULAR,
      shortNames: policy.OP_SHORT_NAMES,
      categories,
      scope: 'Namespaced',
      schema: policy.OverridePolicySchema,
      statusSubresource: true,
      printerColumns: [{ name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
    }),
    buildCrd({
      group: policy.GROUP,
      version: policy.VERSION,
      kind: policy.COP_KIND,
      plural: policy.COP_PLURAL,
      singular: policy.COP_SINGULAR,
      shortNames: policy.COP_SHORT_NAMES,
      categories,
      scope: 'Cluster',
      schema: policy.OverridePolicySchema,
      statusSubresource: true,
      printerColumns: [{ name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
    }),
    buildCrd({
      group: work.GROUP,
      version: work.VERSION,
      kind: work.RB_KIND,
      plural: work.RB_PLURAL,
      singular: work.RB_SINGULAR,
      shortNames: work.RB_SHORT_NAMES,
      categories,
      scope: 'Namespaced',
      schema: work.ResourceBindingSchema,
      statusSubresource: true,
      printerColumns: bindingColumns,
    }),
    buildCrd({
      group: work.GROUP,
      version: work.VERSION,
      kind: work.CRB_KIND,
      plural: work.CRB_PLURAL,
      singular: work.CRB_SINGULAR,
      shortNames: work.CRB_SHORT_NAMES,
      categories,
      scope: 'Cluster',
      schema: work.ResourceBindingSchema,
      statusSubresource: true,
      printerColumns: bindingColumns,
    }),
    buildCrd({
      group: policy.GROUP,
      version: policy.VERSION,
      kind: policy.CTP_KIND,
      plural: policy.CTP_PLURAL,
      singular: policy.CTP_SINGULAR,
      categories,
      scope: 'Cluster',
      schema: policy.ClusterTaintPolicySchema,
      statusSubresource: false,
      printerColumns: [{ name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
    }),
    buildCrd({
      group: apps.GROUP,
      version: apps.VERSION,
      kind: apps.WR_KIND,
      plural: apps.WR_PLURAL,
      singular: apps.WR_SINGULAR,
      categories,
      scope: 'Cluster',
      schema: apps.WorkloadRebalancerSchema,
      statusSubresource: true,
      printerColumns: [{ name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
    }),
  ];
}
