// The Work seam: what a front end ("source") hands the engine, and what the engine hands back. A source
// decides where its objects go and what each member should hold; the engine only applies that and reports.

import type { KubeObject, ResourceType } from '../kube/client/index.ts';

/** Records an event on the object the Work was made from (best effort, never throws). */
export type EventSink = (type: 'Normal' | 'Warning', reason: string, message: string) => void;

/** Who a Work, and every member object it makes, belongs to. */
export interface WorkOwner {
  /** The front end: `federated` (Federated<Kind>); later `policy`, `work`, `mcs`. */
  source: string;
  /** Kind of the object the Work was made from, e.g. FederatedConfigMap. */
  kind: string;
  namespace?: string;
  name: string;
  uid: string;
}

/** One member object, by type and name. */
export interface ObjectRef {
  type: ResourceType & { kind: string };
  namespace?: string;
  name: string;
}

export interface RenderWarning {
  reason: string;
  message: string;
}

/** The object to write into one member, with what the source wants said about it. */
export interface Rendered {
  object: KubeObject;
  warnings: readonly RenderWarning[];
}

/** A render error that says which member status it means (e.g. FieldRetentionFailed). */
export class RenderError extends Error {
  override name = 'RenderError';
  readonly status: string;
  constructor(status: string, message: string) {
    super(message);
    this.status = status;
  }
}

/** What one member should hold of one object. */
export interface DesiredObject extends ObjectRef {
  /**
   * The object for this member, rendered against its live copy (undefined when creating), so that fields
   * the member owns are kept. Throws RenderError (or any error: ComputeResourceFailed).
   */
  render(live: KubeObject | undefined): Rendered;
  /** The live object's version recorded when this desired state was last applied: unchanged, no write. */
  recordedVersion?: string;
  /**
   * A hash of what this member should receive, before the member's own fields are merged in. The applier
   * stamps it on the member object (RENDERING_ANNOTATION) with the owner marks; with no recordedVersion (after
   * a restart) a live copy carrying the same hash counts as applied at its current version, so a restart
   * writes nothing. Sources that must keep member objects byte-identical to KubeFed's leave it unset.
   */
  appliedHash?: string;
  /**
   * The desired object cannot be made at all (e.g. overrides that do not parse): the member copy is left
   * as it is and this status is reported. The source says so in its own event.
   */
  invalid?: { status: string; message: string };
}

export interface Work {
  owner: WorkOwner;
  /** Every object this owner may hold in any member: where one is not desired, its copy is removed. */
  objects: readonly ObjectRef[];
  /** The selected clusters and what each should hold; a cluster absent here holds nothing of this owner. */
  clusters: ReadonlyMap<string, readonly DesiredObject[]>;
  /** Take over a member object that exists but was not made by kubefed-ts (KubeFed's adoptResources). */
  adopt: boolean;
  /**
   * Member objects never deleted, only released (and adopted even without `adopt`): KubeFed's rule for the
   * host's own Namespace when the host is also a member.
   */
  keep?(cluster: string, live: KubeObject): boolean;
  event: EventSink;
}

/** What happened to one object in one member. */
export interface ObjectOutcome {
  ref: ObjectRef;
  /** '' is OK; otherwise a propagation status (ClusterStatus); undefined: nothing to report (released). */
  status: string | undefined;
  message?: string;
  /** The member object as last seen or written (selected clusters only). */
  object?: KubeObject;
  /** Version of the member object written or found up to date. */
  version?: string;
  written?: boolean;
}

/** What happened in one member. */
export interface ClusterOutcome {
  /** The member as a whole could not be worked on (not ready, cache unavailable): why. */
  status?: string;
  message?: string;
  /** Whether the Work selects this cluster. */
  selected: boolean;
  objects: ObjectOutcome[];
}

export interface WorkOutcome {
  /** One entry per cluster that has something to say. */
  clusters: Map<string, ClusterOutcome>;
  /** Some member cache is still loading: the answer is incomplete; apply again shortly. */
  pending: boolean;
  /** A member object was created or updated. */
  written: boolean;
}

/** `namespace/name`, or `name` for a cluster-scoped object: the key of member caches. */
export function refKey(ref: { type: ResourceType; namespace?: string; name: string }): string {
  return ref.type.namespaced && ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

/** The same member object: same type (group and plural), namespace and name. */
export function sameRef(a: ObjectRef, b: ObjectRef): boolean {
  return (
    a.type.group === b.type.group &&
    a.type.plural === b.type.plural &&
    (a.namespace ?? '') === (b.namespace ?? '') &&
    a.name === b.name
  );
}

export function emptyWorkOutcome(): WorkOutcome {
  return { clusters: new Map(), pending: false, written: false };
}
