import type { Endpoint } from './types.ts';

/** The fields that matter on the wire: 0/unset TTL and empty/unset labels are the same after omitempty. */
function normalise(e: Endpoint): string {
  const labels = Object.entries(e.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([e.dnsName, e.recordType, e.targets, e.recordTTL || 0, labels]);
}

/**
 * Whether a DNSEndpoint's `spec.endpoints` already equals the desired list (KubeFed's deep-equal before update).
 * Order-sensitive (endpoints and targets) because the desired list is always sorted; fields outside `Endpoint`
 * (e.g. a server-side default) are ignored, since rewriting `spec.endpoints` would not keep them anyway.
 */
export function endpointsEqual(a: readonly Endpoint[], b: readonly Endpoint[]): boolean {
  return a.length === b.length && a.every((e, i) => normalise(e) === normalise(b[i]!));
}
