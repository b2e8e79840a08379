import { loadBalancerTargets } from './load-balancer.ts';
import { postProcess } from './post-process.ts';
import { addressRecord, type RecordData, type Resolve, recordTtl } from './records.ts';
import { type ClusterDns, DEFAULT_RECORD_TTL, type Endpoint, type IngressClusterDns } from './types.ts';

export { endpointsEqual } from './equal.ts';

export interface ServiceEndpointsInput {
  /** ServiceDNSRecord name (= the Service's name). */
  recordName: string;
  namespace: string;
  /** `spec.domainRef`: the Domain's name, used as the federation name inside record names. */
  domainRef: string;
  /** `status.domain`: the DNS zone. */
  domain: string;
  dnsPrefix?: string;
  externalName?: string;
  /** `spec.recordTTL`; 0/unset means 180. */
  ttl?: number;
  dns: ClusterDns[];
  resolve: Resolve;
  hostnamesAsCname?: boolean;
}

/** A name to publish, with the load balancers behind it and the name one level up to CNAME to without them. */
interface Level {
  dnsName: string;
  up: string;
  statuses: ClusterDns['loadBalancer'][];
}

/**
 * The DNSEndpoint endpoints for a ServiceDNSRecord (KubeFed v0.6.1 `getServiceDNSEndpoints`). With
 * `P = <name|externalName>.<namespace>.<domainRef>.svc` and `D = domain`, every status entry contributes the
 * zone names `P.<zone>.<region>.D`, the region name `P.<region>.D` and the global name `P.D`. A name with targets
 * is an A record (see `addressRecord`), one without is a CNAME to the next level up (the global level has none,
 * so it is dropped). `dnsPrefix` adds `<dnsPrefix>.D` CNAME `P.D`.
 *
 * KubeFed built one endpoint per entry and level and merged equal names afterwards (A over CNAME, union of
 * targets); grouping the load balancers per name first gives the same result and lets `hostnamesAsCname` see all
 * of a name's targets at once. Entries without a region (kubefed-ts tolerates them) only contribute the global
 * name; zones without a region are ignored because the zone name needs it.
 */
export function serviceEndpoints(input: ServiceEndpointsInput): Endpoint[] {
  const { domain } = input;
  // Without the Domain's zone there is no name to publish (KubeFed would have written names ending in a dot).
  if (!domain) return [];
  const prefix = [input.externalName || input.recordName, input.namespace, input.domainRef, 'svc'].join('.');
  const global = `${prefix}.${domain}`;
  const levels = new Map<string, Level>();
  const add = (dnsName: string, up: string, entry: ClusterDns) => {
    const level = levels.get(dnsName) ?? { dnsName, up, statuses: [] };
    level.statuses.push(entry.loadBalancer);
    levels.set(dnsName, level);
  };
  for (const entry of input.dns) {
    // Status can be written by anyone: only well-typed, non-empty regions and zones make names.
    const region = typeof entry.region === 'string' ? entry.region : '';
    if (region !== '') {
      const regionName = `${prefix}.${region}.${domain}`;
      for (const zone of Array.isArray(entry.zones) ? entry.zones : []) {
        if (typeof zone === 'string' && zone !== '')
          add(`${prefix}.${zone}.${region}.${domain}`, regionName, entry);
      }
      add(regionName, global, entry);
    }
    add(global, '', entry);
  }

  const ttl = recordTtl(input.ttl, DEFAULT_RECORD_TTL);
  // ExternalName records are labelled with the record they came from, since their names no longer say it.
  const labels = input.externalName ? { serviceName: input.recordName } : undefined;
  const endpoint = (dnsName: string, record: RecordData): Endpoint => ({
    dnsName,
    targets: record.targets,
    recordType: record.recordType,
    recordTTL: ttl,
    ...(labels ? { labels: { ...labels } } : {}),
  });

  const endpoints = [...levels.values()].map((level) => {
    const record = addressRecord(loadBalancerTargets(level.statuses), input.resolve, input.hostnamesAsCname);
    return endpoint(level.dnsName, record ?? { recordType: 'CNAME', targets: [level.up] });
  });
  if (input.dnsPrefix) {
    endpoints.push(endpoint(`${input.dnsPrefix}.${domain}`, { recordType: 'CNAME', targets: [global] }));
  }
  return postProcess(endpoints);
}

export interface IngressEndpointsInput {
  /** `spec.hosts`. */
  hosts: string[];
  /** `spec.recordTTL`; 0/unset means 180. */
  ttl?: number;
  dns: IngressClusterDns[];
  resolve: Resolve;
  hostnamesAsCname?: boolean;
}

/**
 * The DNSEndpoint endpoints for an IngressDNSRecord (KubeFed v0.6.1 `getIngressDNSEndpoints`): every host is one
 * record whose targets are all clusters' load balancers together; with no targets there is no record (there is
 * no level to fall back to).
 */
export function ingressEndpoints(input: IngressEndpointsInput): Endpoint[] {
  const record = addressRecord(
    loadBalancerTargets(input.dns.map((entry) => entry.loadBalancer)),
    input.resolve,
    input.hostnamesAsCname,
  );
  if (record === undefined) return [];
  const ttl = recordTtl(input.ttl, DEFAULT_RECORD_TTL);
  return postProcess(
    input.hosts
      .filter((host) => typeof host === 'string' && host !== '')
      .map((host) => ({
        dnsName: host,
        targets: [...record.targets],
        recordType: record.recordType,
        recordTTL: ttl,
      })),
  );
}

/** The DNSEndpoint a record owns: same namespace, name prefixed with the record kind. */
export function dnsEndpointName(kind: 'service' | 'ingress', recordName: string): string {
  return `${kind}-${recordName}`;
}
