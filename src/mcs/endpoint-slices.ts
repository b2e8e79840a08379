// What one source cluster's endpoints of an exported Service are, and the MCS EndpointSlices that carry them
// into a consuming member (KEP-1645 "Using EndpointSlice objects to track endpoints"): one source cluster per
// slice, the two well-known labels, managed by us, a non-controller owner reference to the ServiceImport.

import { isIPv4, isIPv6 } from 'node:net';
import {
  LABEL_SERVICE_NAME,
  LABEL_SOURCE_CLUSTER,
  API_VERSION as MCS_API_VERSION,
  SERVICE_IMPORT_KIND,
} from '../api/mcs/v1beta1/index.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { dropUndefined } from '../util/drop-undefined.ts';
import type { ImportedEndpoint, SourceEndpoints } from './model.ts';
import { importedSliceName, MANAGED_BY_LABEL, MCS_MANAGED_BY, UNNAMED_PORT_NAME } from './names.ts';

/** discovery.k8s.io/v1 `kubernetes.io/service-name`: the Service a slice belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const ZONE_TOPOLOGY_KEY = 'topology.kubernetes.io/zone';
/** The API server refuses an EndpointSlice with more endpoints than this (discovery/v1 validation). */
export const MAX_SLICE_ENDPOINTS = 1000;

type SlicePort = SourceEndpoints['byAddressType'] extends Map<string, { ports: Array<infer P> }> ? P : never;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;
const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One source cluster's endpoints of `serviceName`, from its own EndpointSlices of that Service, per address
 * type. Slices that are imports themselves (ours, managed by MCS_MANAGED_BY, or any MCS implementation's,
 * labelled with a source cluster) are not endpoints of this cluster. Only ready endpoints count, as kube-proxy
 * counts them (`ready` unset is ready; a terminating endpoint is not, even while serving). Endpoints are
 * de-duplicated by their first address and sorted by it; ports keep the first slice's value per name (slices
 * sorted by name), so the result never depends on list order. Malformed entries are skipped.
 */
export function sourceEndpoints(
  clusterId: string,
  serviceName: string,
  slices: readonly KubeObject[],
): SourceEndpoints {
  const own = slices
    .filter((s) => isObject(s) && isObject(s.metadata))
    .filter((s) => {
      const labels = isObject(s.metadata.labels) ? s.metadata.labels : {};
      return (
        labels[SERVICE_NAME_LABEL] === serviceName &&
        labels[MANAGED_BY_LABEL] !== MCS_MANAGED_BY &&
        labels[LABEL_SOURCE_CLUSTER] === undefined
      );
    })
    .sort((a, b) => byString(a.metadata.name ?? '', b.metadata.name ?? ''));

  const groups = new Map<
    string,
    { ports: Map<string, SlicePort>; endpoints: Map<string, ImportedEndpoint> }
  >();
  for (const slice of own) {
    const addressType = optionalString(slice.addressType);
    if (addressType === undefined) continue;
    let group = groups.get(addressType);
    if (group === undefined) {
      group = { ports: new Map(), endpoints: new Map() };
      groups.set(addressType, group);
    }
    for (const port of Array.isArray(slice.ports) ? slice.ports : []) {
      if (!isObject(port)) continue;
      const p = slicePort(port);
      // Names are unique in a Service; slices of different pods may resolve a named target port differently.
      if (!group.ports.has(p.name ?? '')) group.ports.set(p.name ?? '', p);
    }
    for (const endpoint of Array.isArray(slice.endpoints) ? slice.endpoints : []) {
      const e = readyEndpoint(endpoint);
      if (e !== undefined && !group.endpoints.has(e.addresses[0]!)) group.endpoints.set(e.addresses[0]!, e);
    }
  }

  const byAddressType: SourceEndpoints['byAddressType'] = new Map();
  for (const addressType of [...groups.keys()].sort(byString)) {
    const group = groups.get(addressType)!;
    byAddressType.set(addressType, {
      ports: [...group.ports.values()].sort((a, b) => byString(a.name ?? '', b.name ?? '')),
      endpoints: [...group.endpoints.keys()].sort(byString).map((k) => group.endpoints.get(k)!),
    });
  }
  return { clusterId, byAddressType };
}

function slicePort(port: Json): SlicePort {
  return dropUndefined({
    name: optionalString(port.name),
    protocol: optionalString(port.protocol),
    port: typeof port.port === 'number' && Number.isInteger(port.port) ? port.port : undefined,
    appProtocol: optionalString(port.appProtocol),
  });
}

function readyEndpoint(endpoint: unknown): ImportedEndpoint | undefined {
  if (!isObject(endpoint)) return undefined;
  const conditions = isObject(endpoint.conditions) ? endpoint.conditions : {};
  if (conditions.ready === false || conditions.terminating === true) return undefined;
  const addresses = Array.isArray(endpoint.addresses)
    ? endpoint.addresses.filter((a): a is string => typeof a === 'string' && a !== '')
    : [];
  if (addresses.length === 0) return undefined;
  const targetRef = isObject(endpoint.targetRef) ? endpoint.targetRef : {};
  const topology = isObject(endpoint.topology) ? endpoint.topology : {};
  return dropUndefined({
    addresses,
    hostname: optionalString(endpoint.hostname),
    podName: targetRef.kind === 'Pod' ? optionalString(targetRef.name) : undefined,
    // v1's `zone`; the v1beta1 topology key is what an older writer may have left.
    zone: optionalString(endpoint.zone) ?? optionalString(topology[ZONE_TOPOLOGY_KEY]),
  });
}

export interface ImportedSlicesInput {
  namespace: string;
  importName: string;
  /** derivedServiceName(importName): the `kubernetes.io/service-name` the slices carry, so kube-proxy
   * routes the derived Service to them and the member's own cluster.local Service of the same name never
   * sees them. */
  derivedName: string;
  source: SourceEndpoints;
  /** The ServiceImport in this member. */
  owner: { name: string; uid: string };
}

/**
 * The MCS EndpointSlices of one source cluster in one consuming member: one per address type the source has,
 * also with no ready endpoints (an empty slice says the cluster exports, with nothing ready). Endpoints are
 * ready by construction and lose their targetRef, which names an object of another cluster. One slice holds
 * at most MAX_SLICE_ENDPOINTS: the first ones by address, so a larger cluster still serves (from part of its
 * endpoints) rather than having its slice refused. None at all when
 * the cluster id is not a valid label value (the API server would refuse the slice, and with it the rest of
 * the service's writes).
 */
export function importedSlices(input: ImportedSlicesInput): KubeObject[] {
  const { source } = input;
  if (!isLabelValue(source.clusterId)) return [];
  const slices: KubeObject[] = [];
  for (const addressType of [...source.byAddressType.keys()].sort(byString)) {
    const group = source.byAddressType.get(addressType)!;
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: importedSliceName(input.derivedName, source.clusterId, addressType),
        namespace: input.namespace,
        labels: {
          [SERVICE_NAME_LABEL]: input.derivedName,
          [LABEL_SERVICE_NAME]: input.importName,
          [LABEL_SOURCE_CLUSTER]: source.clusterId,
          [MANAGED_BY_LABEL]: MCS_MANAGED_BY,
        },
        ownerReferences: [
          {
            apiVersion: MCS_API_VERSION,
            kind: SERVICE_IMPORT_KIND,
            name: input.owner.name,
            uid: input.owner.uid,
            controller: false,
          },
        ],
      },
      addressType,
      endpoints: group.endpoints
        .filter((e) => fitsAddressType(e, addressType))
        .slice(0, MAX_SLICE_ENDPOINTS)
        .map(importedEndpoint),
      ports: group.ports.map((p) => dropUndefined({ ...p, name: p.name ? p.name : UNNAMED_PORT_NAME })),
    });
  }
  return slices;
}

function importedEndpoint(e: ImportedEndpoint): Json {
  return dropUndefined({
    addresses: [...e.addresses],
    conditions: { ready: true },
    hostname: e.hostname,
    zone: e.zone,
  });
}

/** The API server refuses an IPv4 slice with an IPv6 address (and the reverse): such an endpoint is dropped
 * here rather than failing the whole write. */
function fitsAddressType(e: ImportedEndpoint, addressType: string): boolean {
  if (addressType === 'IPv4') return e.addresses.every((a) => isIPv4(a));
  if (addressType === 'IPv6') return e.addresses.every((a) => isIPv6(a));
  return true;
}

function isLabelValue(v: string): boolean {
  return v.length <= 63 && /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(v) && v !== '';
}
