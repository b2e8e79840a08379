import type { KubeObject } from '../kube/client/index.ts';
import { sanitizeLoadBalancer } from './load-balancer.ts';
import { compareStrings } from './sort.ts';
import type { ClusterDns, IngressClusterDns, LoadBalancerStatus } from './types.ts';

/** A status entry as the record's schema stores it, where the load balancer is optional. */
type AsStored<T extends { loadBalancer: LoadBalancerStatus }> = Omit<T, 'loadBalancer'> & {
  loadBalancer?: LoadBalancerStatus;
};

export interface ServiceDnsCluster {
  name: string;
  /** KubeFedCluster Ready condition. */
  ready: boolean;
  /** KubeFedCluster `status.zones` / `status.region`. */
  zones?: string[];
  region?: string;
  /** The member Service with the record's name, if the cluster has it. */
  service?: KubeObject;
  /** Whether the member Endpoints object of the same name has at least one address in any subset. */
  hasReadyEndpoints: boolean;
}

export interface ServiceDnsStatusInput {
  clusters: ServiceDnsCluster[];
  allowServiceWithoutEndpoints: boolean;
  /** The record's current `status.dns` (as stored: the load balancer may be missing; it is not read). */
  previous: ReadonlyArray<AsStored<ClusterDns>> | undefined;
}

export interface IngressDnsCluster {
  name: string;
  ready: boolean;
  /** The member Ingress with the record's name, if the cluster has it. */
  ingress?: KubeObject;
}

export interface IngressDnsStatusInput {
  clusters: IngressDnsCluster[];
  /** The record's current `status.dns` (as stored; only the cluster names are read). */
  previous: ReadonlyArray<AsStored<IngressClusterDns>> | undefined;
}

export interface DnsStatus<T> {
  /** The new `status.dns`, sorted by cluster. */
  dns: T[];
  /** Human-readable reasons some input was ignored, for an event or condition; empty when all was well. */
  problems: string[];
}

/** `status.loadBalancer` of a member object, unknown until validated. */
function statusLoadBalancer(obj: KubeObject | undefined): unknown {
  const status = obj?.['status'];
  return typeof status === 'object' && status !== null
    ? (status as Record<string, unknown>)['loadBalancer']
    : undefined;
}

const byCluster = (a: { cluster: string }, b: { cluster: string }) => compareStrings(a.cluster, b.cluster);

/**
 * Region and zones of a ready cluster. KubeFed failed the whole reconcile when either was missing; here the
 * cluster still gets an entry, without the missing locality, and the record's other clusters keep their names.
 * Zones are only meaningful under a region (the zone name contains it), so without a region both are omitted.
 */
function locality(cluster: ServiceDnsCluster, problems: string[]): Pick<ClusterDns, 'zones' | 'region'> {
  const region = typeof cluster.region === 'string' ? cluster.region : '';
  const zones = (Array.isArray(cluster.zones) ? cluster.zones : []).filter(
    (zone): zone is string => typeof zone === 'string' && zone !== '',
  );
  if (region === '') {
    problems.push(
      `cluster "${cluster.name}" has no region or zones: only the global name is published for it`,
    );
    return {};
  }
  if (zones.length === 0) {
    problems.push(
      `cluster "${cluster.name}" has no region or zones: region "${region}" but no zones, so only its region and global names are published`,
    );
    return { region };
  }
  return { zones, region };
}

/**
 * The new `ServiceDNSRecord.status.dns` (KubeFed v0.6.1 servicedns controller, steps 2-4):
 * - every ready cluster gets `{cluster, loadBalancer, zones, region}`; the load balancer is the member Service's
 *   (validated, ingress sorted by IP then hostname) when the Service has ready endpoints or the record allows
 *   Services without them, else `{}` (also `{}` when the cluster has no such Service);
 * - an unready cluster that had an entry keeps it with an empty load balancer, so its names fall back to CNAMEs
 *   instead of vanishing;
 * - entries are sorted by cluster name.
 * Never throws: malformed input is skipped and described in `problems`.
 */
export function serviceDnsStatus(input: ServiceDnsStatusInput): DnsStatus<ClusterDns> {
  const problems: string[] = [];
  const previous = new Map((input.previous ?? []).map((entry) => [entry.cluster, entry]));
  const dns: ClusterDns[] = [];
  for (const cluster of input.clusters) {
    if (!cluster.ready) {
      const old = previous.get(cluster.name);
      if (old) {
        dns.push({
          cluster: cluster.name,
          loadBalancer: {},
          ...(Array.isArray(old.zones) ? { zones: [...old.zones] } : {}),
          ...(typeof old.region === 'string' ? { region: old.region } : {}),
        });
      }
      continue;
    }
    const serving = cluster.hasReadyEndpoints || input.allowServiceWithoutEndpoints;
    const loadBalancer: LoadBalancerStatus = serving
      ? sanitizeLoadBalancer(statusLoadBalancer(cluster.service), `cluster "${cluster.name}"`, problems)
      : {};
    dns.push({ cluster: cluster.name, loadBalancer, ...locality(cluster, problems) });
  }
  return { dns: dns.sort(byCluster), problems };
}

/**
 * The new `IngressDNSRecord.status.dns` (KubeFed v0.6.1 ingressdns controller): every ready cluster gets
 * `{cluster, loadBalancer}` from its member Ingress (`{}` without one), sorted by cluster. Like service records,
 * an unready cluster that had an entry keeps it with an empty load balancer (KubeFed dropped it; the endpoints
 * are the same either way, and the status still shows the cluster).
 */
export function ingressDnsStatus(input: IngressDnsStatusInput): DnsStatus<IngressClusterDns> {
  const problems: string[] = [];
  const previous = new Set((input.previous ?? []).map((entry) => entry.cluster));
  const dns: IngressClusterDns[] = [];
  for (const cluster of input.clusters) {
    if (!cluster.ready) {
      if (previous.has(cluster.name)) dns.push({ cluster: cluster.name, loadBalancer: {} });
      continue;
    }
    const loadBalancer = sanitizeLoadBalancer(
      statusLoadBalancer(cluster.ingress),
      `cluster "${cluster.name}"`,
      problems,
    );
    dns.push({ cluster: cluster.name, loadBalancer });
  }
  return { dns: dns.sort(byCluster), problems };
}
