// The AppliedManifestWork on the member: the record of what one ManifestWork applied there, the owner of
// those resources (their ownerRef points at it) and, with its finalizer, the guarantee that they are cleaned
// up (ocm pkg/work/spoke/controllers/manifestcontroller/appliedmanifestwork_reconciler.go).

import {
  AMW_KIND,
  AMW_PLURAL,
  API_VERSION,
  APPLIED_MANIFEST_WORK_FINALIZER,
  type AppliedManifestResourceMeta,
  type AppliedManifestWork,
  GROUP,
  type ManifestWork,
  VERSION,
} from '../../api/ocm/work/v1/index.ts';
import { isAlreadyExists, type KubeClient, type ResourceType } from '../../kube/client/index.ts';
import { canonicalJson } from '../../propagation/json.ts';

export const AMW_TYPE: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: AMW_PLURAL,
  namespaced: false,
  kind: AMW_KIND,
};

export const MW_TYPE: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: 'manifestworks',
  namespaced: true,
  kind: 'ManifestWork',
};

export interface AppliedWorkIdentity {
  name: string;
  hubHash: string;
  agentId: string;
}

/** The AMW a work should have: spec, the work's labels, our finalizer (the rest of `live` kept). */
export function desiredAppliedWork(
  id: AppliedWorkIdentity,
  work: ManifestWork,
  live: AppliedManifestWork | undefined,
): AppliedManifestWork {
  const finalizers = live?.metadata.finalizers ?? [];
  return {
    ...(live ?? {}),
    apiVersion: API_VERSION,
    kind: AMW_KIND,
    metadata: {
      ...(live?.metadata ?? {}),
      name: id.name,
      labels: { ...(work.metadata.labels ?? {}) },
      finalizers: finalizers.includes(APPLIED_MANIFEST_WORK_FINALIZER)
        ? finalizers
        : [...finalizers, APPLIED_MANIFEST_WORK_FINALIZER],
    },
    spec: { hubHash: id.hubHash, agentID: id.agentId, manifestWorkName: work.metadata.name ?? '' },
  };
}

/** Whether `live` already is `desired` in what this agent sets. */
export function appliedWorkUpToDate(live: AppliedManifestWork, desired: AppliedManifestWork): boolean {
  return (
    canonicalJson(live.spec) === canonicalJson(desired.spec) &&
    canonicalJson(live.metadata.labels ?? {}) === canonicalJson(desired.metadata.labels ?? {}) &&
    (live.metadata.finalizers ?? []).includes(APPLIED_MANIFEST_WORK_FINALIZER)
  );
}

/** Creates or updates the AMW; returns it as the member has it now. */
export async function ensureAppliedWork(
  member: KubeClient,
  id: AppliedWorkIdentity,
  work: ManifestWork,
  live: AppliedManifestWork | undefined,
): Promise<AppliedManifestWork> {
  const desired = desiredAppliedWork(id, work, live);
  if (!live) {
    try {
      return await member.create(AMW_TYPE, desired);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await member.get<AppliedManifestWork>(AMW_TYPE, id.name);
      return ensureAppliedWork(member, id, work, existing);
    }
  }
  if (appliedWorkUpToDate(live, desired)) return live;
  return member.update(AMW_TYPE, desired);
}

/** Writes the AMW's status (appliedResources, evictionStartTime) when it changed. */
export async function writeAppliedWorkStatus(
  member: KubeClient,
  live: AppliedManifestWork,
  status: { appliedResources: AppliedManifestResourceMeta[]; evictionStartTime?: string },
): Promise<AppliedManifestWork> {
  const next = {
    ...(status.appliedResources.length > 0 ? { appliedResources: status.appliedResources } : {}),
    ...(status.evictionStartTime ? { evictionStartTime: status.evictionStartTime } : {}),
  };
  if (canonicalJson(next) === canonicalJson(normalizedStatus(live))) return live;
  return member.update(
    AMW_TYPE,
    { ...live, apiVersion: API_VERSION, kind: AMW_KIND, status: next },
    { subresource: 'status' },
  );
}

function normalizedStatus(live: AppliedManifestWork): object {
  const s = live.status ?? {};
  return {
    ...(s.appliedResources && s.appliedResources.length > 0 ? { appliedResources: s.appliedResources } : {}),
    ...(s.evictionStartTime ? { evictionStartTime: s.evictionStartTime } : {}),
  };
}
