/**
 * Shapes of multiclusterdns.kubefed.io/v1alpha1 (KubeFed v0.6.1) that the DNS decisions read and write.
 * Field order follows the Go structs so objects built here serialise like KubeFed's.
 */

/** core/v1 LoadBalancerIngress, reduced to what DNS uses. */
export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

/** core/v1 LoadBalancerStatus; `{}` (no `ingress` key) when there is no load balancer, as Go's omitempty writes it. */
export interface LoadBalancerStatus {
  ingress?: LoadBalancerIngress[];
}

/** One `ServiceDNSRecord.status.dns[]` entry. */
export interface ClusterDns {
  cluster: string;
  loadBalancer: LoadBalancerStatus;
  zones?: string[];
  region?: string;
}

/** One `IngressDNSRecord.status.dns[]` entry. */
export interface IngressClusterDns {
  cluster: string;
  loadBalancer: LoadBalancerStatus;
}

/** One `DNSEndpoint.spec.endpoints[]` entry, as ExternalDNS's CRD source reads it. */
export interface Endpoint {
  dnsName: string;
  targets: string[];
  recordType: 'A' | 'CNAME';
  recordTTL?: number;
  labels?: Record<string, string>;
}

/** KubeFed's `defaultDNSTTL`: used when a record's `recordTTL` is 0 or unset. */
export const DEFAULT_RECORD_TTL = 180;
