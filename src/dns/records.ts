import { isIP } from 'node:net';
import type { LoadBalancerTargets } from './load-balancer.ts';
import { sortUnique } from './sort.ts';
import type { Endpoint } from './types.ts';

/** Looks a hostname up; the caller resolves beforehand so the decisions stay pure. */
export type Resolve = (hostname: string) => string[];

export type RecordData = Pick<Endpoint, 'recordType' | 'targets'>;

/**
 * The record for a name whose load balancers have `targets`, or undefined when there is nothing to point at
 * (the caller then falls back to a CNAME up, or publishes nothing).
 *
 * - Default (KubeFed): an A record; IPs as they are, hostnames replaced by the addresses `resolve` returns.
 *   A hostname that resolves to nothing (or to non-addresses) is dropped rather than failing the reconcile as
 *   KubeFed's lookup error did; if nothing is left the name counts as having no targets.
 * - `hostnamesAsCname` (kubefed-ts option, for load balancers known only by name such as AWS ELB): when the
 *   targets are only hostnames, a CNAME to the first hostname in sorted order. A CNAME can have one target, so
 *   with several hostnames the others are not published; sorting makes the choice stable across reconciles.
 *   When IPs are present too the hostnames are resolved into the A record as by default.
 *
 * IPv6 addresses land in the A record as KubeFed put them; the endpoint type has no AAAA.
 */
export function addressRecord(
  targets: LoadBalancerTargets,
  resolve: Resolve,
  hostnamesAsCname = false,
): RecordData | undefined {
  const [firstHostname] = targets.hostnames;
  if (hostnamesAsCname && targets.ips.length === 0 && firstHostname !== undefined) {
    return { recordType: 'CNAME', targets: [firstHostname] };
  }
  const addresses = [...targets.ips];
  for (const hostname of targets.hostnames) {
    for (const address of resolve(hostname)) {
      if (typeof address === 'string' && isIP(address) !== 0) addresses.push(address);
    }
  }
  return addresses.length > 0 ? { recordType: 'A', targets: sortUnique(addresses) } : undefined;
}

/** `recordTTL`, or KubeFed's 180 when 0/unset; a negative or fractional TTL is invalid DNS, so it defaults too. */
export function recordTtl(ttl: number | undefined, fallback: number): number {
  return ttl !== undefined && Number.isInteger(ttl) && ttl > 0 ? ttl : fallback;
}
