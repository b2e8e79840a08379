// What `kubefedctl join` does with the member's multi-cluster services CRDs (pure). A member may already run
// another MCS implementation (Submariner's Lighthouse, Karmada's mcs-api v0.1.0 copy, a cloud's), whose CRDs
// and ServiceExports must survive a join: only a copy kubefed-ts installed itself is ever updated.

import { mcsMemberCrds } from '../api/crds.ts';
import type { KubeObject } from '../kube/client/index.ts';
import { type CrdLike, planCrdTakeover, replacementCrd } from './crd-takeover.ts';

/** Marks the MCS CRDs join installed, so that a later join may update them (and only them). */
export const MCS_CRD_OWNER_LABEL = 'app.kubernetes.io/part-of';
export const MCS_CRD_OWNER_VALUE = 'kubefed-ts';

export type McsCrdStep =
  | { action: 'create'; name: string; object: KubeObject }
  /** `previous` is the copy read before, for a failed join to put back ({@link restoredMcsCrd}). */
  | { action: 'update'; name: string; object: KubeObject; changes: string[]; previous: KubeObject }
  /** Nothing to write; `warning` says why the member may still not be served (else the CRD is fine as it is). */
  | { action: 'keep'; name: string; reason: string; warning?: string };

/**
 * The API server refuses a CRD in a `*.k8s.io` group (about.k8s.io's ClusterProperty) without this
 * annotation (kubernetes/enhancements#1111). The value is the one sigs.k8s.io/about-api's kustomize patch
 * (config/crd/patches/annotation_for_clusterproperties.yaml) gives it.
 */
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';
const ABOUT_API_APPROVAL = 'https://github.com/kubernetes/kubernetes/pull/78458';
const isProtectedGroup = (group: string) => /(^|\.)(k8s|kubernetes)\.io$/.test(group);

/** The desired MCS CRDs as join writes them: with kubefed-ts's owner label (and the approval a protected group needs). */
export function labelledMcsCrds(): CrdLike[] {
  return mcsMemberCrds().map((crd) => {
    const c = structuredClone(crd) as unknown as CrdLike;
    c.metadata.labels = { ...c.metadata.labels, [MCS_CRD_OWNER_LABEL]: MCS_CRD_OWNER_VALUE };
    if (isProtectedGroup(c.spec.group) && !c.metadata.annotations?.[API_APPROVED_ANNOTATION])
      c.metadata.annotations = { ...c.metadata.annotations, [API_APPROVED_ANNOTATION]: ABOUT_API_APPROVAL };
    return c;
  });
}

const isOurs = (crd: CrdLike): boolean => crd.metadata.labels?.[MCS_CRD_OWNER_LABEL] === MCS_CRD_OWNER_VALUE;

/**
 * One CRD: created when missing; kubefed-ts's own older copy is updated in place (never dropping a version it
 * serves or stores); anyone else's is left alone — fine when it serves the version kubefed-ts stores (the
 * schemas are mcs-api's), else with a warning that this member cannot be served until it does.
 */
export function planMcsCrd(existing: CrdLike | undefined, desired: CrdLike): McsCrdStep {
  const name = desired.metadata.name ?? '';
  if (!existing) return { action: 'create', name, object: desired as unknown as KubeObject };
  const stored = desired.spec.versions.find((v) => v.storage)?.name ?? '';
  const api = `${desired.spec.group}/${stored}`;
  if (isOurs(existing)) {
    const step = planCrdTakeover(existing, desired);
    switch (step.action) {
      case 'create':
      case 'unchanged':
        return { action: 'keep', name, reason: 'up to date' };
      case 'replace':
        return {
          action: 'update',
          name,
          object: replacementCrd(existing, desired) as unknown as KubeObject,
          changes: step.changes,
          previous: existing as unknown as KubeObject,
        };
      case 'refuse':
        return {
          action: 'keep',
          name,
          reason: `kubefed-ts's copy was changed`,
          warning: `not updated: ${step.reason}`,
        };
    }
  }
  const serves = existing.spec.versions.some((v) => v.name === stored && v.served !== false);
  if (serves) return { action: 'keep', name, reason: `installed by someone else and serves ${api}` };
  return {
    action: 'keep',
    name,
    reason: 'installed by someone else',
    warning: `it does not serve ${api}, which kubefed-ts's multi-cluster services need, so they cannot serve this member until it does (config/crds/members holds kubefed-ts's CRDs)`,
  };
}

/**
 * Why a join installs no MCS CRDs although not told to skip them: the MCS controller serves neither a member
 * joined with --scoped-rbac (its credentials reach only the enabled federated types) nor any member of a
 * namespaced control plane. undefined: install them.
 */
export function mcsCrdsSkipReason(join: {
  scopedRbac: boolean;
  scope: 'Cluster' | 'Namespaced';
}): string | undefined {
  if (join.scopedRbac) return 'a member joined with --scoped-rbac is not served by multi-cluster services';
  if (join.scope === 'Namespaced') return 'a namespaced control plane does not serve multi-cluster services';
  return undefined;
}

/** The steps for every MCS CRD, given what the member has (by CRD name). */
export function planMcsCrds(existing: ReadonlyMap<string, CrdLike>): McsCrdStep[] {
  return labelledMcsCrds().map((desired) => planMcsCrd(existing.get(desired.metadata.name ?? ''), desired));
}

/**
 * What a failed join PUTs over a CRD it updated: the previous spec, labels and annotations on the current
 * metadata (its resourceVersion). A version the API server has meanwhile stored objects in cannot leave the
 * spec (the server refuses, and those objects would be unreadable): it stays, served as it is, not storage.
 */
export function restoredMcsCrd(current: CrdLike, previous: CrdLike): CrdLike {
  const versions = [...previous.spec.versions];
  for (const stored of current.status?.storedVersions ?? []) {
    if (versions.some((v) => v.name === stored)) continue;
    const kept = current.spec.versions.find((v) => v.name === stored);
    if (kept) versions.push({ ...kept, storage: false });
  }
  const { labels, annotations } = previous.metadata;
  const metadata = { ...current.metadata };
  delete metadata.labels;
  delete metadata.annotations;
  return {
    ...current,
    metadata: { ...metadata, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: { ...previous.spec, versions },
  };
}
