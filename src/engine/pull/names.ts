// How the engine names and marks the ManifestWork it hands a Pull cluster's agent: one per owner and cluster,
// in the hub namespace named after the cluster, with a name derived from the owner alone so that every
// reconcile, and every cluster, finds the same one without a lookup.

import { createHash } from 'node:crypto';
import { MANIFEST_WORK_TYPE, WORK_SOURCE_LABEL } from '../../members/pull-works.ts';
import type { WorkOwner } from '../work.ts';

export { MANIFEST_WORK_TYPE, WORK_SOURCE_LABEL };
export const WORK_KIND_LABEL = 'kubefed-ts.io/owner-kind';
export const WORK_NAMESPACE_LABEL = 'kubefed-ts.io/owner-namespace';
/** The owner's name, or (too long for a label) its first characters and a hash. */
export const WORK_NAME_LABEL = 'kubefed-ts.io/owner-name';
/** Hash of the spec as written: an unchanged spec is never written again. */
export const WORK_SPEC_HASH_ANNOTATION = 'kubefed-ts.io/work-spec-hash';

/**
 * The agent names its AppliedManifestWork `<hubHash>-<work name>` (64 hex digits and a dash), and that must
 * still be a DNS subdomain (253): so the work name keeps to 253 - 65.
 */
export const MAX_WORK_NAME = 188;
const MAX_LABEL_VALUE = 63;
const HASH_LENGTH = 10;

const shortHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, HASH_LENGTH);

/**
 * `kubefed-<source>-<kind>-<namespace>.<name>` (cluster-scoped: `kubefed-<source>-<kind>-<name>`), lowercased.
 * Unambiguous: a source and a kind hold no dash, a namespace no dot, and a kind is either namespaced or not.
 * Too long, or changed by making it DNS-safe, it is cut and ends with a hash of the owner.
 */
export function manifestWorkName(owner: Pick<WorkOwner, 'source' | 'kind' | 'namespace' | 'name'>): string {
  const exact = `kubefed-${owner.source}-${owner.kind}-${owner.namespace ? `${owner.namespace}.` : ''}${owner.name}`;
  const safe = exact.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  const changed = safe !== exact.toLowerCase();
  if (!changed && safe.length <= MAX_WORK_NAME) return safe;
  const head = safe.slice(0, MAX_WORK_NAME - HASH_LENGTH - 1).replace(/[.-]+$/, '');
  return `${head}-${shortHash(exact)}`;
}

/** The labels that name the owner of a ManifestWork (the owner annotation holds its exact id). */
export function manifestWorkLabels(owner: WorkOwner): Record<string, string> {
  const labels: Record<string, string> = {
    [WORK_SOURCE_LABEL]: labelValue(owner.source),
    [WORK_KIND_LABEL]: labelValue(owner.kind),
  };
  if (owner.namespace) labels[WORK_NAMESPACE_LABEL] = labelValue(owner.namespace);
  labels[WORK_NAME_LABEL] = labelValue(owner.name);
  return labels;
}

function labelValue(v: string): string {
  const safe = v.replace(/[^A-Za-z0-9._-]/g, '-');
  if (safe === v && v.length <= MAX_LABEL_VALUE && /^[A-Za-z0-9]/.test(v) && /[A-Za-z0-9]$/.test(v)) return v;
  const head = safe
    .slice(0, MAX_LABEL_VALUE - HASH_LENGTH - 1)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
  return head ? `${head}-${shortHash(v)}` : shortHash(v);
}
