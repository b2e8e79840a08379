// The derived Service: a selector-less ClusterIP Service in each consuming member whose cluster IP(s) are the
// import's clusterset IP(s) there. kube-proxy routes it to the MCS EndpointSlices labelled with its name, and
// its allocation is what makes the clusterset IP stable for the ServiceImport's life (KEP-1645 "ClusterSetIP").

import { isIPv4, isIPv6 } from 'node:net';
import { ImportType, LABEL_SERVICE_NAME, type ServicePort } from '../api/mcs/v1beta1/index.ts';
import { dropUndefined } from '../util/drop-undefined.ts';
import type { MergedImport, ServiceObject } from './model.ts';
import { derivedServiceName, UNNAMED_PORT_NAME } from './names.ts';

type ServiceSpec = NonNullable<ServiceObject['spec']>;

export interface DerivedServiceInput {
  namespace: string;
  importName: string;
  spec: MergedImport['spec'];
  /** The derived Service as the member has it now (undefined before it is created). */
  live: ServiceObject | undefined;
}

/**
 * The derived Service for one consuming member, undefined for a Headless import (no clusterset IP then).
 * Ports and session affinity follow the import; the cluster IPs and IP families are kept from `live`
 * (immutable, or changeable only in steps), and so is the session affinity the import leaves to the member's
 * defaulting, which a write without it would fight.
 *
 * internalTrafficPolicy stays on the ServiceImport only: under `Local` kube-proxy uses only endpoints on the
 * client's own node, and imported endpoints have no nodeName, so the clusterset IP would drop every packet.
 * It is left unset on create (the API server defaults it to Cluster) and written as Cluster once the member
 * has one, so a Local left by an earlier version is put back.
 *
 * IP families are the member's choice, under PreferDualStack, and are never written: an API server refuses a
 * Service that lists a family it does not serve, under any policy ("spec.ipFamilies[1]: Invalid value:
 * "IPv6": not configured on this cluster", kube-apiserver v1.36 single-stack), so writing the import's
 * families would leave a member without the family with no derived Service and no way to tell why. Under
 * PreferDualStack every member creates it with what it serves, importIps picks the import's families in the
 * import's order, and missingFamilies names the rest (ServiceImport `IPFamilyNotSupported`).
 */
export function derivedService(input: DerivedServiceInput): ServiceObject | undefined {
  const { spec, live } = input;
  if (spec.type === ImportType.Headless) return undefined;
  const liveSpec: ServiceSpec = live?.spec ?? {};

  const sessionAffinity = spec.sessionAffinity ?? stringOr(liveSpec.sessionAffinity);
  const sessionAffinityConfig =
    sessionAffinity !== 'ClientIP'
      ? undefined
      : spec.sessionAffinity !== undefined
        ? spec.sessionAffinityConfig && structuredClone(spec.sessionAffinityConfig)
        : liveSpec.sessionAffinityConfig && structuredClone(liveSpec.sessionAffinityConfig);

  const out: ServiceSpec = dropUndefined({
    type: 'ClusterIP',
    ports: spec.ports.map(servicePort),
    sessionAffinity,
    sessionAffinityConfig,
    ipFamilies: stringList(liveSpec.ipFamilies),
    ipFamilyPolicy: 'PreferDualStack',
    internalTrafficPolicy: liveSpec.internalTrafficPolicy === undefined ? undefined : 'Cluster',
    ...keptClusterIps(liveSpec),
  });
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: derivedServiceName(input.importName),
      namespace: input.namespace,
      labels: { [LABEL_SERVICE_NAME]: input.importName },
    },
    spec: out,
  };
}

/** The clusterset IPs: the derived Service's cluster IPs in the import's ipFamilies order (all of them, at
 * most two, when the import names no families); [] for Headless and while none is allocated. */
export function importIps(spec: MergedImport['spec'], derived: ServiceObject | undefined): string[] {
  if (spec.type === ImportType.Headless) return [];
  const allocated = allocatedIps(derived);
  const families = spec.ipFamilies ?? [];
  if (families.length === 0) return allocated.slice(0, 2);
  const ips: string[] = [];
  for (const family of families) {
    const ip = allocated.find((a) => familyOf(a) === family);
    if (ip !== undefined && !ips.includes(ip)) ips.push(ip);
  }
  return ips;
}

/** The families the import asks for that the derived Service did not get (ServiceImport Ready=False
 * `IPFamilyNotSupported`); [] when it got them all, or while nothing is allocated yet. */
export function missingFamilies(spec: MergedImport['spec'], derived: ServiceObject | undefined): string[] {
  if (spec.type === ImportType.Headless) return [];
  const allocated = allocatedIps(derived);
  if (allocated.length === 0) return [];
  const got = new Set<string | undefined>(allocated.map(familyOf));
  return (spec.ipFamilies ?? []).filter((family) => !got.has(family));
}

function servicePort(port: ServicePort): NonNullable<ServiceSpec['ports']>[number] {
  return dropUndefined({
    name: port.name ? port.name : UNNAMED_PORT_NAME,
    protocol: port.protocol ?? 'TCP',
    appProtocol: port.appProtocol,
    port: port.port,
    // Without a selector the target port is never used (the slices carry the endpoints' ports); the API
    // server would default it to `port` anyway.
    targetPort: port.port,
  });
}

/** The live cluster IPs, which the member allocated and which are immutable. */
function keptClusterIps(live: ServiceSpec): Pick<ServiceSpec, 'clusterIP' | 'clusterIPs'> {
  const clusterIP = typeof live.clusterIP === 'string' && live.clusterIP !== '' ? live.clusterIP : undefined;
  const clusterIPs = stringList(live.clusterIPs);
  return dropUndefined({ clusterIP: clusterIP ?? clusterIPs?.[0], clusterIPs });
}

function allocatedIps(derived: ServiceObject | undefined): string[] {
  const spec = derived?.spec;
  if (spec === undefined) return [];
  const ips = stringList(spec.clusterIPs) ?? (typeof spec.clusterIP === 'string' ? [spec.clusterIP] : []);
  return ips.filter((ip) => familyOf(ip) !== undefined);
}

function familyOf(ip: string): 'IPv4' | 'IPv6' | undefined {
  if (isIPv4(ip)) return 'IPv4';
  if (isIPv6(ip)) return 'IPv6';
  return undefined;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')
    ? [...value]
    : undefined;
}
