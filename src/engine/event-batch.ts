// One event per reconcile instead of one per member write. KubeFed records a Normal event for every member
// operation (pkg/controller/sync/dispatch/managed.go: Create, Update, Delete, RemoveManagedLabel), so an object
// placed in M clusters costs M event writes on the host. The dispatcher collects those Normal events for one
// pass over the members and records each (reason, object) once, naming all its clusters. Warnings are not
// batched: their messages differ per member (the member's error).

import { compareCodePoints } from '../propagation/json.ts';
import { type ObjectRef, refKey } from './work.ts';

/** What the applier is about to do to one member object; KubeFed's event reasons. */
export const MemberEventVerb = {
  CreateInCluster: 'Creating',
  UpdateInCluster: 'Updating',
  DeleteInCluster: 'Deleting',
  RemoveManagedLabelFromInCluster: 'Removing managed label from',
} as const;

export type MemberEventReason = keyof typeof MemberEventVerb;

/** A Normal event about one member object in one cluster, as the applier notes it. */
export interface MemberEvent {
  reason: MemberEventReason;
  object: ObjectRef;
  cluster: string;
}

export interface BatchedEvent {
  type: 'Normal';
  reason: MemberEventReason;
  message: string;
}

/** `ConfigMap "ns/name"`, as KubeFed's events name a member object. */
export function describeMemberObject(ref: ObjectRef): string {
  return `${ref.type.kind} "${refKey(ref)}"`;
}

/**
 * One event per (reason, object), in the order first noted, its clusters sorted and each named once. For one
 * cluster the message is KubeFed's own (`Creating ConfigMap "ns/n" in cluster "c1"`); for several,
 * `Creating ConfigMap "ns/n" in clusters "c1", "c2"`.
 */
export function batchMemberEvents(events: readonly MemberEvent[]): BatchedEvent[] {
  const groups = new Map<string, { reason: MemberEventReason; object: ObjectRef; clusters: Set<string> }>();
  for (const e of events) {
    const t = e.object.type;
    const key = [e.reason, t.group, t.plural, t.kind, e.object.namespace ?? '', e.object.name].join('\0');
    const group = groups.get(key);
    if (group) group.clusters.add(e.cluster);
    else groups.set(key, { reason: e.reason, object: e.object, clusters: new Set([e.cluster]) });
  }
  return [...groups.values()].map(({ reason, object, clusters }) => {
    const names = [...clusters].sort(compareCodePoints).map((c) => `"${c}"`);
    const where = names.length === 1 ? `cluster ${names[0]}` : `clusters ${names.join(', ')}`;
    return {
      type: 'Normal',
      reason,
      message: `${MemberEventVerb[reason]} ${describeMemberObject(object)} in ${where}`,
    };
  });
}
