import { isIP } from 'node:net';
import { compareStrings, sortUnique } from './sort.ts';
import type { LoadBalancerIngress, LoadBalancerStatus } from './types.ts';

// DNS-1123 subdomain (case-insensitive, optional trailing dot): what Kubernetes accepts as a load-balancer hostname.
const HOSTNAME =
  /^(?=.{1,253}\.?$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const absent = (v: unknown): boolean => v === undefined || v === null || v === '';

/** A bounded JSON rendering of a bad value for a problems line. */
function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** KubeFed sorts load-balancer ingress by IP then hostname so that equal statuses compare equal. */
export function compareIngress(a: LoadBalancerIngress, b: LoadBalancerIngress): number {
  return compareStrings(a.ip ?? '', b.ip ?? '') || compareStrings(a.hostname ?? '', b.hostname ?? '');
}

/**
 * A member object's `status.loadBalancer`, validated: entries that are not objects or carry neither a valid `ip`
 * nor a valid `hostname` are skipped, a bad `ip` or `hostname` field is dropped from its entry, and each is reported
 * in `problems` as `<who>: ...`. Never throws; an empty result is `{}` like Go's omitempty.
 */
export function sanitizeLoadBalancer(raw: unknown, who: string, problems: string[]): LoadBalancerStatus {
  if (absent(raw)) return {};
  if (!isObject(raw)) {
    problems.push(`${who}: load balancer status is not an object: ${show(raw)}`);
    return {};
  }
  const list = raw['ingress'];
  if (absent(list)) return {};
  if (!Array.isArray(list)) {
    problems.push(`${who}: load balancer ingress is not a list: ${show(list)}`);
    return {};
  }
  const ingress: LoadBalancerIngress[] = [];
  for (const item of list) {
    if (!isObject(item)) {
      problems.push(`${who}: load balancer ingress entry is not an object: ${show(item)}`);
      continue;
    }
    const entry: LoadBalancerIngress = {};
    let reported = false;
    const ip = item['ip'];
    if (!absent(ip)) {
      if (typeof ip === 'string' && isIP(ip) !== 0) entry.ip = ip;
      else {
        problems.push(`${who}: load balancer ingress ip ${show(ip)} is not an IPv4 or IPv6 address`);
        reported = true;
      }
    }
    const hostname = item['hostname'];
    if (!absent(hostname)) {
      if (typeof hostname === 'string' && HOSTNAME.test(hostname)) entry.hostname = hostname;
      else {
        problems.push(`${who}: load balancer ingress hostname ${show(hostname)} is not a DNS name`);
        reported = true;
      }
    }
    if (entry.ip === undefined && entry.hostname === undefined) {
      // One line per bad entry: a bad field already named it.
      if (!reported)
        problems.push(`${who}: load balancer ingress entry has neither ip nor hostname: ${show(item)}`);
      continue;
    }
    ingress.push(entry);
  }
  return ingress.length > 0 ? { ingress: ingress.sort(compareIngress) } : {};
}

/** The DNS targets of load balancers: IP addresses and hostnames (still to be resolved), each sorted and unique. */
export interface LoadBalancerTargets {
  ips: string[];
  hostnames: string[];
}

/**
 * KubeFed's `ExtractLoadBalancerTargets` over several load balancers. Defensive because status can be written by
 * anyone: values that are not strings, IPs that do not parse and empty hostnames are ignored.
 */
export function loadBalancerTargets(statuses: Iterable<LoadBalancerStatus | undefined>): LoadBalancerTargets {
  const ips: string[] = [];
  const hostnames: string[] = [];
  for (const status of statuses) {
    const list: unknown = status?.ingress;
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isObject(item)) continue;
      const { ip, hostname } = item;
      if (typeof ip === 'string' && isIP(ip) !== 0) ips.push(ip);
      if (typeof hostname === 'string' && hostname !== '') hostnames.push(hostname);
    }
  }
  return { ips: sortUnique(ips), hostnames: sortUnique(hostnames) };
}

/** Every hostname the records' load balancers name: what a caller must look up before building endpoints. */
export function hostnamesToResolve(dns: Iterable<{ loadBalancer: LoadBalancerStatus }>): string[] {
  return loadBalancerTargets([...dns].map((entry) => entry.loadBalancer)).hostnames;
}
