// The durable record of a deletion a member still owes, kept as a ConfigMap in the KubeFed namespace
// (pure: naming, encoding, decoding). See docs/propagation.md "Deletion".

import { createHash } from 'node:crypto';
import type { DeleteOptions } from '../../../engine/applier.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../../../kube/client/index.ts';

/** Label on every pending-deletion ConfigMap (kubefed-ts): what the controller lists and watches. */
export const PENDING_DELETION_LABEL = 'kubefed.io/pending-deletion';

/** One member copy of a deleted federated object that must be deleted once the member is reachable. */
export interface PendingDeletion {
  /** The member cluster (KubeFedCluster name). */
  cluster: string;
  /** The member-side type of the copy. */
  target: KindedType;
  name: string;
  /** The copy's namespace; unset for cluster-scoped targets (Namespace included). */
  namespace?: string;
  /** The federated object whose deletion this is: a live object of this name with another uid wins. */
  federated: KindedType;
  federatedNamespace?: string;
  federatedUid: string;
  /** uid of the member copy when it was last seen; unset when the controller never saw it. */
  memberUid?: string;
  /** The federated object's deletionTimestamp (RFC 3339). */
  deletedAt: string;
  /** The `kubefed.io/deleteoption` the federated object carried. */
  deleteOptions?: DeleteOptions;
}

export type ConfigMapObject = KubeObject & { data?: Record<string, string> };

/** A resource type whose kind is known (events and messages name it). */
export type KindedType = ResourceType & { kind: string };

function parseApiVersion(v: string): { group: string; version: string } {
  const i = v.lastIndexOf('/');
  return i < 0 ? { group: '', version: v } : { group: v.slice(0, i), version: v.slice(i + 1) };
}

/**
 * One record per (federated object uid, member): `pending-deletion-<kind>-<name>-<cluster>-<hash>`,
 * lower-cased, characters a ConfigMap name cannot hold replaced by `-`, cut to fit 253 characters. The hash
 * of uid and cluster makes it unique, so records are immutable: created once, deleted once.
 */
export function pendingDeletionName(
  r: Pick<PendingDeletion, 'cluster' | 'target' | 'name' | 'federatedUid'>,
): string {
  const hash = createHash('sha256').update(`${r.federatedUid}/${r.cluster}`).digest('hex').slice(0, 10);
  const readable = `${r.target.kind}-${r.name}-${r.cluster}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/\.{2,}/g, '.');
  const prefix = 'pending-deletion-';
  const room = 253 - prefix.length - hash.length - 1;
  const middle = readable
    .slice(0, room)
    .replace(/^[.-]+/, '')
    .replace(/[.-]+$/, '');
  return `${prefix}${middle ? `${middle}-` : ''}${hash}`;
}

export function toConfigMap(r: PendingDeletion, kubefedNamespace: string): ConfigMapObject {
  const data: Record<string, string> = {
    cluster: r.cluster,
    apiVersion: apiVersionOf(r.target),
    kind: r.target.kind,
    resource: r.target.plural,
    name: r.name,
    federatedApiVersion: apiVersionOf(r.federated),
    federatedKind: r.federated.kind,
    federatedResource: r.federated.plural,
    federatedUid: r.federatedUid,
    deletedAt: r.deletedAt,
  };
  if (r.namespace) data.namespace = r.namespace;
  if (r.federatedNamespace) data.federatedNamespace = r.federatedNamespace;
  if (r.memberUid) data.memberUid = r.memberUid;
  if (r.deleteOptions && Object.keys(r.deleteOptions).length > 0)
    data.deleteOptions = JSON.stringify(r.deleteOptions);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: pendingDeletionName(r),
      namespace: kubefedNamespace,
      labels: { [PENDING_DELETION_LABEL]: 'true' },
    },
    data,
  };
}

/** The record a ConfigMap holds, or why it is not one (a record edited by hand must not crash anything). */
export function fromConfigMap(cm: ConfigMapObject): PendingDeletion | { invalid: string } {
  const d = cm.data ?? {};
  const required = [
    'cluster',
    'apiVersion',
    'kind',
    'resource',
    'name',
    'federatedApiVersion',
    'federatedKind',
    'federatedResource',
    'federatedUid',
    'deletedAt',
  ] as const;
  const missing = required.filter((k) => typeof d[k] !== 'string' || d[k] === '');
  if (missing.length > 0) return { invalid: `missing ${missing.join(', ')}` };
  let deleteOptions: DeleteOptions | undefined;
  if (d.deleteOptions) {
    try {
      const parsed: unknown = JSON.parse(d.deleteOptions);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return { invalid: 'deleteOptions is not a JSON object' };
      deleteOptions = parsed as DeleteOptions;
    } catch {
      return { invalid: 'deleteOptions is not JSON' };
    }
  }
  if (!Number.isFinite(Date.parse(d.deletedAt ?? ''))) return { invalid: 'deletedAt is not a time' };
  const namespace = d.namespace || undefined;
  const federatedNamespace = d.federatedNamespace || undefined;
  return {
    cluster: d.cluster as string,
    target: {
      ...parseApiVersion(d.apiVersion as string),
      plural: d.resource as string,
      kind: d.kind as string,
      namespaced: namespace !== undefined,
    },
    name: d.name as string,
    namespace,
    federated: {
      ...parseApiVersion(d.federatedApiVersion as string),
      plural: d.federatedResource as string,
      kind: d.federatedKind as string,
      namespaced: federatedNamespace !== undefined,
    },
    federatedNamespace,
    federatedUid: d.federatedUid as string,
    memberUid: d.memberUid || undefined,
    deletedAt: d.deletedAt as string,
    deleteOptions,
  };
}

/** Identifies the member copy a record is about, whatever federated object it came from. */
export function memberCopyKey(
  cluster: string,
  target: ResourceType,
  namespace: string | undefined,
  name: string,
): string {
  return [cluster, target.group, target.plural, namespace ?? '', name].join('\0');
}
