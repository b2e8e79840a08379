// Propagated-version bookkeeping: which version of each member object the current template and
// overrides produced, so unchanged members are not PUT again (KubeFed pkg/controller/sync/version,
// pkg/controller/util/propagatedversion.go and meta.go).

import { createHash } from 'node:crypto';
import type { KubeObject, ObjectMeta } from '../kube/client/index.ts';
import { canonicalJson, compareCodePoints, goQuote, isPlainObject, jsonEqual } from './json.ts';

export { canonicalJson } from './json.ts';

const md5Hex = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

/** md5 of the template as Go's json.Encoder writes it (sorted keys, trailing newline); '' without a template. */
export function templateHash(template: unknown): string {
  if (template === undefined) return '';
  return md5Hex(`${canonicalJson(template)}\n`);
}

/**
 * md5 of `{"overrides": spec.overrides}` as KubeFed re-serialises it through its Go structs:
 * item keys clusterName then clusterOverrides (omitted when empty), op keys op (omitted when
 * empty), path, value (omitted when null). Malformed overrides are hashed as they are; they fail
 * validation anyway, so only determinism matters there.
 */
export function overridesHash(overrides: unknown): string {
  return md5Hex(`{"overrides":${overridesJson(overrides)}}\n`);
}

function overridesJson(overrides: unknown): string {
  if (overrides === undefined || overrides === null) return 'null';
  if (!Array.isArray(overrides) || !overrides.every(isPlainObject)) return canonicalJson(overrides);
  const items = overrides.map((item) => {
    const parts = [`"clusterName":${goQuote(typeof item.clusterName === 'string' ? item.clusterName : '')}`];
    const list = item.clusterOverrides;
    if (Array.isArray(list) && list.length > 0)
      parts.push(`"clusterOverrides":[${list.map(opJson).join(',')}]`);
    else if (list !== undefined && list !== null && !Array.isArray(list))
      parts.push(`"clusterOverrides":${canonicalJson(list)}`);
    return `{${parts.join(',')}}`;
  });
  return `[${items.join(',')}]`;
}

function opJson(entry: unknown): string {
  if (!isPlainObject(entry)) return canonicalJson(entry);
  const parts: string[] = [];
  if (typeof entry.op === 'string' && entry.op !== '') parts.push(`"op":${goQuote(entry.op)}`);
  else if (entry.op !== undefined && entry.op !== null && entry.op !== '')
    parts.push(`"op":${canonicalJson(entry.op)}`);
  parts.push(
    `"path":${typeof entry.path === 'string' ? goQuote(entry.path) : canonicalJson(entry.path ?? '')}`,
  );
  if (entry.value !== undefined && entry.value !== null) parts.push(`"value":${canonicalJson(entry.value)}`);
  return `{${parts.join(',')}}`;
}

const metaOf = (obj: KubeObject): ObjectMeta => (isPlainObject(obj.metadata) ? obj.metadata : {});

/** `gen:<generation>` when the object has a non-zero generation, else `rv:<resourceVersion>`; '' with neither. */
export function objectVersion(obj: KubeObject): string {
  const meta = metaOf(obj);
  if (typeof meta.generation === 'number' && meta.generation !== 0) return `gen:${meta.generation}`;
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '')
    return `rv:${meta.resourceVersion}`;
  return '';
}

const emptyIfMissing = (m: Record<string, string> | undefined): Record<string, string> => m ?? {};

/** Name, namespace, labels and annotations equal; a nil map equals an empty one (KubeFed ObjectMetaEquivalent). */
export function objectMetaEquivalent(a: ObjectMeta, b: ObjectMeta): boolean {
  return (
    (a.name ?? '') === (b.name ?? '') &&
    (a.namespace ?? '') === (b.namespace ?? '') &&
    jsonEqual(emptyIfMissing(a.labels), emptyIfMissing(b.labels)) &&
    jsonEqual(emptyIfMissing(a.annotations), emptyIfMissing(b.annotations))
  );
}

export interface NeedsUpdateInput {
  /** Version recorded for this cluster when the current template and overrides were last written. */
  recordedVersion: string | undefined;
  member: KubeObject;
  desired: KubeObject;
}

/**
 * Whether the member must be PUT: its version is not the recorded one, or (generation-tracked
 * objects only) its labels/annotations drifted, since metadata changes do not bump the generation.
 */
export function needsUpdate(input: NeedsUpdateInput): boolean {
  const current = objectVersion(input.member);
  if (
    input.recordedVersion === undefined ||
    input.recordedVersion === '' ||
    input.recordedVersion !== current
  )
    return true;
  return current.startsWith('gen:') && !objectMetaEquivalent(metaOf(input.desired), metaOf(input.member));
}

export interface ClusterVersion {
  clusterName: string;
  version: string;
}

/** Status of a PropagatedVersion / ClusterPropagatedVersion object. */
export interface PropagatedVersionStatus {
  templateVersion: string;
  overridesVersion: string;
  clusterVersions: ClusterVersion[];
}

/** The recorded member versions, usable only while the template and overrides are unchanged. */
export function recordedVersions(
  stored: PropagatedVersionStatus | undefined,
  templateVersion: string,
  overridesVersion: string,
): Map<string, string> {
  const out = new Map<string, string>();
  if (stored === undefined || !sameHashes(stored, templateVersion, overridesVersion)) return out;
  for (const cv of stored.clusterVersions ?? []) out.set(cv.clusterName, cv.version);
  return out;
}

function sameHashes(
  stored: PropagatedVersionStatus,
  templateVersion: string,
  overridesVersion: string,
): boolean {
  return stored.templateVersion === templateVersion && stored.overridesVersion === overridesVersion;
}

export interface NextPropagatedVersionInput {
  stored: PropagatedVersionStatus | undefined;
  templateVersion: string;
  overridesVersion: string;
  selectedClusters: ReadonlySet<string>;
  /** Versions recorded this round; '' means the member object was deleted. */
  updated: ReadonlyMap<string, string>;
}

/**
 * The status to store after a reconcile. Old entries of still-selected clusters not touched this
 * round survive only while the hashes are unchanged; empty versions are dropped; sorted by cluster.
 * `changed` says whether it must be written (always true when nothing is stored yet).
 */
export function nextPropagatedVersion(input: NextPropagatedVersionInput): {
  status: PropagatedVersionStatus;
  changed: boolean;
} {
  const { stored, templateVersion, overridesVersion } = input;
  const versions = new Map(input.updated);
  if (stored !== undefined && sameHashes(stored, templateVersion, overridesVersion)) {
    for (const cv of stored.clusterVersions ?? []) {
      if (input.selectedClusters.has(cv.clusterName) && !versions.has(cv.clusterName))
        versions.set(cv.clusterName, cv.version);
    }
  }
  const clusterVersions = [...versions]
    .filter(([, version]) => version !== '')
    .map(([clusterName, version]) => ({ clusterName, version }))
    .sort((a, b) => compareCodePoints(a.clusterName, b.clusterName));
  const status: PropagatedVersionStatus = { templateVersion, overridesVersion, clusterVersions };
  const changed =
    stored === undefined ||
    !sameHashes(stored, templateVersion, overridesVersion) ||
    !sameVersionList(stored.clusterVersions ?? [], clusterVersions);
  return { status, changed };
}

function sameVersionList(a: readonly ClusterVersion[], b: readonly ClusterVersion[]): boolean {
  return (
    a.length === b.length &&
    a.every((cv, i) => cv.clusterName === b[i]!.clusterName && cv.version === b[i]!.version)
  );
}
