// Taking over KubeFed's CRDs (pure): what replacing each installed CRD with kubefed-ts's would do, and
// whether it is safe. Helm never upgrades a chart's crds/, so a KubeFed installation keeps KubeFed's CRDs
// until something replaces them; replacing a CRD keeps its stored objects only while every version that has
// objects stays in the spec (the API server refuses to drop a version listed in status.storedVersions, and a
// version dropped from spec is no longer readable), so the check runs before anything is written.

export interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
}

export interface CrdLike {
  metadata: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string };
    versions: CrdVersion[];
    [k: string]: unknown;
  };
  status?: { storedVersions?: string[] };
}

export type CrdTakeoverStep =
  | { action: 'create'; name: string }
  | { action: 'replace'; name: string; changes: string[] }
  | { action: 'unchanged'; name: string }
  | { action: 'refuse'; name: string; reason: string };

/** JSON equality with keys in any order (the API server adds defaults, so compare only what we set). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  return [...keys].every((k) => sameJson(ao[k], bo[k]));
}

/** Whether `desired`'s fields are all present and equal in `existing` (server defaults ignored). */
function covers(existing: unknown, desired: unknown): boolean {
  if (typeof desired !== 'object' || desired === null) return sameJson(existing, desired);
  // The API server stores an empty map or list as absent (omitempty), e.g. `properties: {}`.
  if (existing === undefined && Object.keys(desired).length === 0) return true;
  if (typeof existing !== 'object' || existing === null) return false;
  if (Array.isArray(desired))
    return (
      Array.isArray(existing) &&
      existing.length === desired.length &&
      desired.every((d, i) => covers(existing[i], d))
    );
  const e = existing as Record<string, unknown>;
  return Object.entries(desired as Record<string, unknown>).every(([k, v]) => covers(e[k], v));
}

/** What changes per version, in words, for the plan's output. */
function versionChanges(existing: CrdLike, desired: CrdLike): string[] {
  const changes: string[] = [];
  for (const dv of desired.spec.versions as Array<CrdVersion & Record<string, unknown>>) {
    const ev = (existing.spec.versions as Array<CrdVersion & Record<string, unknown>>).find(
      (v) => v.name === dv.name,
    );
    if (!ev) {
      changes.push(`adds version ${dv.name}`);
      continue;
    }
    const hadStatus = Boolean((ev.subresources as { status?: unknown } | undefined)?.status);
    const hasStatus = Boolean((dv.subresources as { status?: unknown } | undefined)?.status);
    if (!hadStatus && hasStatus) changes.push(`${dv.name}: adds the status subresource`);
    if (!covers(ev.schema, dv.schema)) changes.push(`${dv.name}: kubefed-ts schema`);
    if (!covers(ev.additionalPrinterColumns ?? [], dv.additionalPrinterColumns ?? []))
      changes.push(`${dv.name}: printer columns`);
  }
  if (!covers(existing.spec.names, desired.spec.names)) changes.push('names');
  return changes;
}

/**
 * One CRD: create it when missing; replace it when it differs, provided it keeps the group, scope and kind,
 * and every existing and stored version (with the same storage version, so no object needs migrating).
 */
export function planCrdTakeover(existing: CrdLike | undefined, desired: CrdLike): CrdTakeoverStep {
  const name = desired.metadata.name ?? '';
  if (!existing) return { action: 'create', name };
  const refuse = (reason: string): CrdTakeoverStep => ({ action: 'refuse', name, reason });
  if (existing.spec.group !== desired.spec.group)
    return refuse(`group ${existing.spec.group} would become ${desired.spec.group}`);
  if (existing.spec.scope !== desired.spec.scope)
    return refuse(`scope ${existing.spec.scope} would become ${desired.spec.scope}`);
  if (existing.spec.names.kind !== desired.spec.names.kind)
    return refuse(`kind ${existing.spec.names.kind} would become ${desired.spec.names.kind}`);
  const desiredVersions = new Set(desired.spec.versions.map((v) => v.name));
  const kept = [...existing.spec.versions.map((v) => v.name), ...(existing.status?.storedVersions ?? [])];
  const dropped = [...new Set(kept.filter((v) => !desiredVersions.has(v)))];
  if (dropped.length > 0)
    return refuse(
      `kubefed-ts's CRD has no version ${dropped.join(', ')}, which the installed one serves or stores`,
    );
  const storage = (c: CrdLike) => c.spec.versions.find((v) => v.storage)?.name;
  if (storage(existing) !== storage(desired))
    return refuse(`the storage version ${storage(existing)} would become ${storage(desired)}`);
  const notServed = desired.spec.versions.filter((v) => v.served === false).map((v) => v.name);
  const wasServed = existing.spec.versions.filter((v) => v.served !== false).map((v) => v.name);
  const unserved = notServed.filter((v) => wasServed.includes(v));
  if (unserved.length > 0) return refuse(`version ${unserved.join(', ')} would no longer be served`);
  const changes = versionChanges(existing, desired);
  return changes.length === 0 ? { action: 'unchanged', name } : { action: 'replace', name, changes };
}

/**
 * The object to PUT over `existing`: kubefed-ts's spec, the existing metadata (resourceVersion for the
 * optimistic lock, and labels/annotations someone else may rely on) with kubefed-ts's labels/annotations added.
 */
export function replacementCrd<C extends CrdLike>(existing: C, desired: CrdLike): C {
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata.labels, ...desired.metadata.labels },
      annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
    },
    spec: desired.spec,
  };
}
