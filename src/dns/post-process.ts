import { compareStrings, sortUnique } from './sort.ts';
import type { Endpoint } from './types.ts';

/**
 * KubeFed's `DedupeAndMergeEndpoints`: sort by dnsName; drop empty targets, then endpoints left without targets;
 * merge endpoints with equal names: when the record types differ the A record wins (a name cannot be both), when
 * they are equal the targets are the sorted, de-duplicated union. Returns copies; the input is not modified.
 */
export function postProcess(endpoints: readonly Endpoint[]): Endpoint[] {
  const kept = endpoints
    .map((e) => ({
      ...e,
      targets: e.targets.filter((t) => t !== ''),
      ...(e.labels ? { labels: { ...e.labels } } : {}),
    }))
    .filter((e) => e.targets.length > 0)
    .sort((a, b) => compareStrings(a.dnsName, b.dnsName));
  const out: Endpoint[] = [];
  for (const endpoint of kept) {
    const last = out[out.length - 1];
    if (last === undefined || last.dnsName !== endpoint.dnsName) out.push(endpoint);
    else if (last.recordType !== endpoint.recordType) {
      if (endpoint.recordType === 'A') out[out.length - 1] = endpoint;
    } else last.targets = sortUnique([...last.targets, ...endpoint.targets]);
  }
  return out;
}
