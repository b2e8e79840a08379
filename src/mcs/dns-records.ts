// The clusterset.local records of an imported service, as KEP-1645's DNS specification (specification.md,
// schema 1.0.0, §2) defines them, and the DNSEndpoint that hands them to a member's ExternalDNS.

import { isIPv4, isIPv6 } from 'node:net';
import type { ServicePort } from '../api/mcs/v1beta1/index.ts';
import { EXTERNALDNS_GROUP } from '../api/multiclusterdns/v1alpha1/types.ts';
import type { KubeObject } from '../kube/client/index.ts';
import type { ImportedEndpoint, SourceEndpoints } from './model.ts';

/** `<clusterset-zone>`: "must be `clusterset.local`" (§2.1). */
export const CLUSTERSET_ZONE = 'clusterset.local';
/**
 * Short, like the specification's examples (4-5 s): headless answers are the ready endpoints of the moment,
 * and a clusterset IP record should vanish soon after the last export goes, so resolvers must not keep them.
 */
export const DEFAULT_MCS_DNS_TTL = 5;
/** §1: the schema this implements, answered at `dns-version.<zone>` (§2.2). */
export const DNS_SCHEMA_VERSION = '1.0.0';
/** §2.2's example TTL: the version never changes while kubefed-ts serves the zone. */
export const DNS_VERSION_TTL = 28800;
/**
 * RFC 2782 priority and weight, which the specification leaves open (§2.3.2, §2.4.2): one priority, equal
 * weights, so clients pick targets uniformly; constant, so a scaled service does not rewrite every target.
 */
const SRV_PRIORITY = 0;
const SRV_WEIGHT = 100;
const MAX_NAME = 253;
const MAX_LABEL = 63;

export interface DnsRecord {
  dnsName: string;
  recordType: 'A' | 'AAAA' | 'SRV' | 'TXT';
  targets: string[];
  recordTTL?: number;
}

export interface ServiceDnsInput {
  namespace: string;
  /** The ServiceImport's (= the exported Service's) name. */
  name: string;
  type: 'ClusterSetIP' | 'Headless';
  /** The clusterset IPs in this member (importIps); ignored for Headless. */
  ips: readonly string[];
  /** The ServiceImport's ports. */
  ports: readonly ServicePort[];
  /** Every exporting cluster's ready endpoints; only Headless records use them. */
  sources: readonly SourceEndpoints[];
  zone?: string;
  ttl?: number;
}

/**
 * The records of one service (no `dns-version`; see dnsVersionRecord), sorted by name and type, targets
 * sorted. ExternalDNS target formats: A/AAAA an address; SRV `priority weight port target.` (ExternalDNS
 * v0.22 drops an SRV whose target host lacks the final dot). Names longer than 253 characters or with a
 * label longer than 63 (the limits the KEP's DNS section states) are left out.
 *
 * ClusterSetIP (§2.3): A/AAAA `<svc>.<ns>.svc.<zone>` → the clusterset IPs by family (both for dual-stack),
 * SRV `_<port>._<proto>.<svc>.<ns>.svc.<zone>` → that name, for named ports only (§2.3.2: "Unnamed ports do
 * not have an SRV record"). These follow the clusterset IP, not the endpoints: §2.3.1 requires them for the
 * IP by which the service "is accessible" and states no exception for a service without ready endpoints (the
 * NXDOMAIN rule is the headless one, §2.4.1), as cluster.local keeps a ClusterIP Service's record without
 * endpoints; so they exist as soon as an IP is allocated, and not before. No PTR (§2.3.3: "NOT required"; the
 * derived Service has its cluster.local PTR) and no `<clusterid>.<svc>...` name (§2.3.4 "MUST NOT").
 *
 * Headless (§2.4): A/AAAA `<svc>.<ns>.svc.<zone>` → every ready endpoint address, and
 * `<hostname>.<clusterid>.<svc>.<ns>.svc.<zone>` → each ready endpoint's addresses; SRV per named port ×
 * ready endpoint targeting the endpoint's name with the Service's port number (§2.4.2: "port in the Service
 * with name <port> and number <port-number>"; the conformance suite expects the Service port too), for the
 * ports that endpoint's cluster serves (its slice has a port of that name). No ready endpoint anywhere: no
 * record at all, so the name is NXDOMAIN (§2.4.1). No `<clusterid>.<svc>...` name (§2.4.4).
 *
 * Both types also get SRV at the bare `<svc>.<ns>.svc.<zone>` with the union of the per-port targets (one per
 * distinct port and target, so tcp/42 and udp/42 give one): the conformance suite (clusterip_service_dns.go,
 * headless_service_dns.go) queries `nslookup -type=SRV <svc>.<ns>.svc.clusterset.local` and expects one record
 * per port (ClusterSetIP) or per endpoint (Headless) there, as cluster.local's CoreDNS answers.
 */
export function serviceDnsRecords(input: ServiceDnsInput): DnsRecord[] {
  const zone = (input.zone ?? CLUSTERSET_ZONE).replace(/\.$/, '');
  const ttl = input.ttl ?? DEFAULT_MCS_DNS_TTL;
  const service = `${input.name}.${input.namespace}.svc.${zone}`;
  const named = input.ports.filter((p) => typeof p.name === 'string' && p.name !== '');
  const records = new RecordSet();

  if (input.type === 'ClusterSetIP') {
    for (const ip of input.ips) {
      const type = addressRecordType(ip);
      if (type !== undefined) records.add(service, type, ip);
    }
    if (records.size > 0) {
      for (const port of named)
        addSrv(records, srvName(port, service), service, srvTarget(port.port, service));
    }
    return records.list(ttl);
  }

  for (const source of [...input.sources].sort((a, b) => byString(a.clusterId, b.clusterId))) {
    for (const addressType of [...source.byAddressType.keys()].sort(byString)) {
      const group = source.byAddressType.get(addressType)!;
      for (const endpoint of group.endpoints) {
        const endpointName = `${endpointHostname(endpoint)}.${source.clusterId}.${service}`;
        let addressed = false;
        for (const address of endpoint.addresses) {
          const type = addressRecordType(address);
          if (type === undefined) continue;
          records.add(service, type, address);
          addressed = records.add(endpointName, type, address) || addressed;
        }
        // An SRV target must resolve: only endpoints whose own name got an address are targets.
        if (!addressed) continue;
        for (const port of named) {
          const served = group.ports.some(
            (p) => p.name === port.name && (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP'),
          );
          if (!served) continue;
          addSrv(records, srvName(port, service), service, srvTarget(port.port, endpointName));
        }
      }
    }
  }
  return records.list(ttl);
}

/**
 * `dns-version.<zone> TXT "1.0.0"` (§2.2). The target is the quoted text, as PowerDNS wants it: ExternalDNS's
 * pdns provider (the one the MCS DNS path uses) hands targets to PowerDNS's API as record content, which
 * refuses a TXT not starting with a quote, and reads the content back as PowerDNS stores it, quoted — so a
 * quoted target is left alone on later syncs (ExternalDNS's own TXT registry quotes its targets the same
 * way). The rfc2136 provider wants the bare text instead: it writes zone-file syntax (either form gives the
 * string 1.0.0) but reads TXT back unquoted, so this target would be rewritten on its every sync.
 */
export function dnsVersionRecord(zone?: string): DnsRecord {
  return {
    dnsName: `dns-version.${(zone ?? CLUSTERSET_ZONE).replace(/\.$/, '')}`,
    recordType: 'TXT',
    targets: [`"${DNS_SCHEMA_VERSION}"`],
    recordTTL: DNS_VERSION_TTL,
  };
}

export interface DnsEndpointInput {
  namespace: string;
  /** The object's name: dnsEndpointName(import) or DNS_VERSION_ENDPOINT_NAME. */
  name: string;
  records: readonly DnsRecord[];
  labels?: Record<string, string>;
}

/** An externaldns.k8s.io/v1alpha1 DNSEndpoint publishing `records` (ExternalDNS's CRD source). */
export function dnsEndpointObject(input: DnsEndpointInput): KubeObject {
  return {
    apiVersion: `${EXTERNALDNS_GROUP}/v1alpha1`,
    kind: 'DNSEndpoint',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      ...(input.labels ? { labels: { ...input.labels } } : {}),
    },
    spec: {
      endpoints: input.records.map((r) => ({
        dnsName: r.dnsName,
        recordType: r.recordType,
        targets: [...r.targets],
        ...(r.recordTTL !== undefined ? { recordTTL: r.recordTTL } : {}),
      })),
    },
  };
}

/**
 * `<hostname>` of §2.1: "in order of precedence, a) the value of the endpoint's hostname field, or b) a
 * unique, system-assigned identifier for the endpoint". That id is the endpoint's first address with dashes,
 * as the conformance suite expects it (headless_service_dns.go, awaitK8sEndpoints: `.` → `-` for IPv4, `:` →
 * `-` for IPv6 as written, so fd00::1 is fd00--1), and as cluster.local's CoreDNS names endpoints without a
 * hostname. An IPv6 address whose dashed form is no DNS label (::1, a zone index, an embedded IPv4 tail) is
 * written out in full instead. The pod name is not used: the suite would not find it.
 */
export function endpointHostname(endpoint: ImportedEndpoint): string {
  if (endpoint.hostname !== undefined && isDnsLabel(endpoint.hostname)) return endpoint.hostname;
  return addressId(endpoint.addresses[0] ?? '');
}

function addressId(address: string): string {
  if (isIPv6(address)) {
    const dashed = address.toLowerCase().replaceAll(':', '-');
    return isDnsLabel(dashed) ? dashed : expandIPv6(address).join('-');
  }
  return address.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

/** The eight 4-digit groups of an IPv6 address (an embedded IPv4 tail becomes the last two). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => g.padStart(4, '0'));
}

function isDnsLabel(s: string): boolean {
  return s.length <= MAX_LABEL && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
}

function addressRecordType(address: string): 'A' | 'AAAA' | undefined {
  if (isIPv4(address)) return 'A';
  if (isIPv6(address)) return 'AAAA';
  return undefined;
}

function srvName(port: ServicePort, service: string): string {
  return `_${port.name}._${(port.protocol ?? 'TCP').toLowerCase()}.${service}`;
}

/** An SRV target at its `_<port>._<proto>` name and at the bare service name (see serviceDnsRecords). */
function addSrv(records: RecordSet, portName: string, service: string, target: string): void {
  if (records.add(portName, 'SRV', target)) records.add(service, 'SRV', target);
}

function srvTarget(port: number, target: string): string {
  return `${SRV_PRIORITY} ${SRV_WEIGHT} ${port} ${target}.`;
}

/** A name DNS can hold: at most 253 characters, every label 1 to 63 (KEP-1645's DNS section). */
function fitsDns(name: string): boolean {
  return name.length <= MAX_NAME && name.split('.').every((l) => l.length > 0 && l.length <= MAX_LABEL);
}

const TYPE_ORDER: Record<DnsRecord['recordType'], number> = { A: 0, AAAA: 1, SRV: 2, TXT: 3 };
const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Records keyed by name and type, each with a set of targets. */
class RecordSet {
  private readonly byKey = new Map<
    string,
    { dnsName: string; recordType: DnsRecord['recordType']; targets: Set<string> }
  >();

  get size(): number {
    return this.byKey.size;
  }

  /** Adds a target; false (and nothing added) when the name, or an SRV's target name, does not fit DNS. */
  add(dnsName: string, recordType: DnsRecord['recordType'], target: string): boolean {
    if (!fitsDns(dnsName)) return false;
    if (recordType === 'SRV' && !fitsDns(target.split(' ')[3]!.replace(/\.$/, ''))) return false;
    const key = `${dnsName} ${recordType}`;
    let record = this.byKey.get(key);
    if (record === undefined) {
      record = { dnsName, recordType, targets: new Set() };
      this.byKey.set(key, record);
    }
    record.targets.add(target);
    return true;
  }

  list(ttl: number): DnsRecord[] {
    return [...this.byKey.values()]
      .sort((a, b) => byString(a.dnsName, b.dnsName) || TYPE_ORDER[a.recordType] - TYPE_ORDER[b.recordType])
      .map((r) => ({
        dnsName: r.dnsName,
        recordType: r.recordType,
        targets: [...r.targets].sort(byString),
        recordTTL: ttl,
      }));
  }
}
