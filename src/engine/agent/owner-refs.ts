// Owner references from AppliedManifestWorks to the objects they applied. OCM uses plain owner references,
// never controller ones, because several works may declare the same object (ocm pkg/work/helper/helpers.go
// NewAppliedManifestWorkOwner, IsOwnedBy, existOtherAppliedManifestWorkOwners).

import { AMW_KIND, API_VERSION } from '../../api/ocm/work/v1/index.ts';
import type { KubeObject } from '../../kube/client/index.ts';

/** metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export function appliedManifestWorkOwner(amw: { name: string; uid: string }): OwnerReference {
  return { apiVersion: API_VERSION, kind: AMW_KIND, name: amw.name, uid: amw.uid };
}

export function ownerReferences(obj: KubeObject): OwnerReference[] {
  const refs = obj.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.filter(
    (r): r is OwnerReference =>
      typeof r === 'object' && r !== null && typeof (r as OwnerReference).uid === 'string',
  );
}

/** A copy of `obj` with `owner` among its owners (an existing reference of that uid is replaced). */
export function withOwner<T extends KubeObject>(obj: T, owner: OwnerReference): T {
  const others = ownerReferences(obj).filter((r) => r.uid !== owner.uid);
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: [...others, owner] } };
}

/** A copy of `obj` without the owner reference of `uid`; ownerReferences is dropped when none is left. */
export function withoutOwner<T extends KubeObject>(obj: T, uid: string): T {
  const rest = ownerReferences(obj).filter((r) => r.uid !== uid);
  const { ownerReferences: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata: rest.length > 0 ? { ...metadata, ownerReferences: rest } : metadata };
}

/** IsOwnedBy: any owner reference with this uid. */
export function isOwnedBy(obj: KubeObject, uid: string): boolean {
  return ownerReferences(obj).some((r) => r.uid === uid);
}

/** How many AppliedManifestWorks other than `uid` own the object (existOtherAppliedManifestWorkOwners). */
export function otherWorkOwners(obj: KubeObject, uid: string): number {
  return ownerReferences(obj).filter(
    (r) => r.apiVersion === API_VERSION && r.kind === AMW_KIND && r.uid !== uid,
  ).length;
}
