// The facts the multi-cluster services decisions take and what they give back (KEP-1645). Everything in
// src/mcs is pure: the shell (src/sources/mcs) gathers these from the member caches and writes the results
// through the engine.

import type { ExportReason, ServiceExport } from '../api/mcs/v1beta1/serviceexport.ts';
import type { ServiceImportSpec } from '../api/mcs/v1beta1/serviceimport.ts';
import type { MetaCondition } from '../api/policy/v1alpha1/propagationpolicy.ts';
import type { KubeObject } from '../kube/client/index.ts';

/** A core/v1 Service as read from a member (only what MCS looks at is typed). */
export interface ServiceObject extends KubeObject {
  spec?: {
    type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName' | string;
    clusterIP?: string;
    clusterIPs?: string[];
    ports?: Array<{
      name?: string;
      protocol?: string;
      appProtocol?: string;
      port: number;
      targetPort?: number | string;
      nodePort?: number;
    }>;
    selector?: Record<string, string>;
    sessionAffinity?: string;
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
    ipFamilies?: string[];
    ipFamilyPolicy?: string;
    internalTrafficPolicy?: string;
    trafficDistribution?: string;
    externalName?: string;
    [k: string]: unknown;
  };
}

export type ServiceExportObject = KubeObject & ServiceExport;

/** One cluster's export of a service: the ServiceExport, the Service of the same name there (if any). */
export interface ExportFacts {
  /** The KubeFedCluster name (where to write the export's status). */
  cluster: string;
  /** The cluster's MCS id (ClusterProperty cluster.clusterset.k8s.io), what ServiceImports and slices name. */
  clusterId: string;
  export: ServiceExportObject;
  service: ServiceObject | undefined;
}

/** Whether an export can take part at all: the `Valid` condition's content. */
export type Validity =
  | { valid: true; reason: 'Valid'; message: string }
  | { valid: false; reason: 'NoService' | 'InvalidServiceType'; message: string };

/** The conflict on one export: reasons empty means NoConflicts. */
export interface ExportConflict {
  /** Conflict reasons in the order mcs-api lists them; joined with ',' as the condition's reason. */
  reasons: ExportReason[];
  /** Human message, like the KEP's: `Conflicting type. Using "ClusterSetIP" from oldest service export in "cluster-1". 1/2 clusters disagree.` (several joined with '; '). '' when none. */
  message: string;
}

/** What the clusterset imports of one service, decided from its valid exports (oldest first wins). */
export interface MergedImport {
  /** The ServiceImport spec without `ips` (those are per consuming cluster). */
  spec: Omit<ServiceImportSpec, 'ips'>;
  /** The oldest export's exportedLabels / exportedAnnotations. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The ids of the clusters whose exports are valid, sorted (ServiceImport status.clusters). */
  clusterIds: string[];
}

export interface Resolution {
  /** undefined when no export is valid: no ServiceImport anywhere. */
  merged: MergedImport | undefined;
  /** Per KubeFedCluster name, for every export given. */
  validity: Map<string, Validity>;
  /** Per KubeFedCluster name, for every valid export. */
  conflicts: Map<string, ExportConflict>;
}

/** The conditions a ServiceExport should carry, given its previous ones (lastTransitionTime kept when status is unchanged). */
export interface ExportConditionsInput {
  previous: readonly MetaCondition[] | undefined;
  validity: Validity;
  /** undefined for an invalid export (no Conflict condition is set then; a previous one is removed). */
  conflict: ExportConflict | undefined;
  /** Ready: True `Exported` once its import has been written to every ready consuming member; Unknown `Pending` before. */
  ready: { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
  generation: number | undefined;
  now: string;
}

/** A ready endpoint of one source cluster, as MCS slices and DNS carry it. */
export interface ImportedEndpoint {
  addresses: string[];
  hostname?: string;
  /** The pod (targetRef name) when the source slice names it: DNS's unique id when there is no hostname. */
  podName?: string;
  zone?: string;
}

/** One source cluster's endpoints of a service, per address type. */
export interface SourceEndpoints {
  clusterId: string;
  /** EndpointSlice addressType (IPv4 | IPv6) → ports and ready endpoints, merged over that cluster's slices. */
  byAddressType: Map<
    string,
    {
      ports: Array<{ name?: string; protocol?: string; port?: number; appProtocol?: string }>;
      endpoints: ImportedEndpoint[];
    }
  >;
}
