// The names of what kubefed-ts writes into a consuming member for an imported service: the derived Service,
// the MCS EndpointSlices and the DNSEndpoints. Derived from the import (and source cluster) alone, so every
// reconcile finds the same objects without a lookup; too long, they are cut and end with a hash of the exact
// name, which keeps them unique.

import { createHash } from 'node:crypto';

/** `endpointslice.kubernetes.io/managed-by` on our slices: not `endpointslice-controller.k8s.io`, so the
 * member's EndpointSlice controller leaves them alone (and the conformance suite checks it is not). */
export const MCS_MANAGED_BY = 'mcs.kubefed-ts.io';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The DNSEndpoint holding `dns-version.<zone>` (one per consuming member). */
export const DNS_VERSION_ENDPOINT_NAME = 'mcs-dns-version';

/**
 * The name the import's unnamed port gets on the derived Service and on the MCS EndpointSlices. The union of
 * ports can hold one unnamed port among named ones (KEP-1645 merges by name), which a Service with several
 * ports may not; kube-proxy pairs Service and slice ports by name, so both sides use this same name.
 */
export const UNNAMED_PORT_NAME = 'mcs-unnamed';

/** A DNS-1035 label (Service names): at most 63 characters. */
const MAX_LABEL = 63;
/** A DNS-1123 subdomain (EndpointSlice and DNSEndpoint names): at most 253 characters. */
const MAX_SUBDOMAIN = 253;
const HASH_LENGTH = 10;

const shortHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, HASH_LENGTH);

/**
 * `exact` when it is already valid and short enough; otherwise made safe (lower case, other characters `-`),
 * cut to leave room for `-<hash of exact>`, and suffixed with it. `safeChars` is what the name may hold.
 */
function boundedName(exact: string, max: number, safeChars: RegExp, valid: (s: string) => boolean): string {
  if (exact.length <= max && valid(exact)) return exact;
  const safe = exact.toLowerCase().replace(safeChars, '-');
  const head = safe
    .slice(0, max - HASH_LENGTH - 1)
    .replace(/^[^a-z]+/, '')
    .replace(/[^a-z0-9]+$/, '');
  return head ? `${head}-${shortHash(exact)}` : `h${shortHash(exact)}`;
}

const isDns1035Label = (s: string): boolean => /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s);
const isDns1123Subdomain = (s: string): boolean =>
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);

/**
 * `derived-<name>` (Karmada's name for the same Service): a valid Service name (a DNS-1035 label of at most
 * 63 characters). A long import name is cut and ends with a hash.
 */
export function derivedServiceName(importName: string): string {
  return boundedName(`derived-${importName}`, MAX_LABEL, /[^a-z0-9-]/g, isDns1035Label);
}

/**
 * `<derived>-<clusterId>-<ipv4|ipv6|fqdn>`: one slice per source cluster and address type. A cluster id may be
 * `<name>.<label>` (KEP-1645); its dots become dashes, and since that could make two ids meet (`a.b` and
 * `a-b`), an id that had dots adds a hash of itself. Longer than a DNS subdomain (253), the name is cut and
 * ends with a hash.
 */
export function importedSliceName(derivedName: string, clusterId: string, addressType: string): string {
  const id = clusterId.includes('.') ? `${clusterId.replace(/\./g, '-')}-${shortHash(clusterId)}` : clusterId;
  const exact = `${derivedName}-${id}-${addressType.toLowerCase()}`;
  return boundedName(exact, MAX_SUBDOMAIN, /[^a-z0-9-]/g, isDns1123Subdomain);
}

/** `mcs-<name>`: the DNSEndpoint with the import's records, in the import's namespace. */
export function dnsEndpointName(importName: string): string {
  return boundedName(`mcs-${importName}`, MAX_SUBDOMAIN, /[^a-z0-9.-]/g, isDns1123Subdomain);
}
