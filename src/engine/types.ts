import type { KubeObject } from '../kube/client/index.ts';
import type { TargetType } from '../propagation/desired.ts';
import type { OverrideOperation } from '../propagation/overrides.ts';

export type { TargetType };

/** Records an event on the object that asked for propagation (best effort, never throws). */
export type EventSink = (type: 'Normal' | 'Warning', reason: string, message: string) => void;

/**
 * What the propagation engine needs to know about one object to be propagated, whatever the front end:
 * a `Federated<Kind>` (template + placement + overrides) today, a native resource selected by a policy later.
 */
export interface PropagationRequest {
  name: string;
  /** The target object's namespace; unset for cluster-scoped targets (Namespace included). */
  namespace?: string;
  template: unknown;
  /** Per-cluster overrides, already parsed and validated. */
  overrides: ReadonlyMap<string, readonly OverrideOperation[]>;
  /** When the overrides could not be parsed: every selected cluster fails with ApplyOverridesFailed. */
  overridesError?: string;
  retainReplicas: boolean;
  /** Clusters the object belongs in. */
  selected: ReadonlySet<string>;
  /** Member object versions recorded at the last propagation of this template and these overrides. */
  recordedVersions: ReadonlyMap<string, string>;
  adoptResources: boolean;
  /** Collect each member object's `.status`. */
  collectStatus: boolean;
  /** For the namespaces type: the UID of the host's own Namespace of that name, never created or deleted. */
  hostNamespaceUid?: string;
  event: EventSink;
}

export interface PropagationOutcome {
  /** One entry per cluster that has something to say; '' = OK. */
  statuses: Map<string, string>;
  /** Why, for the clusters whose status is not OK (an API server message, a cache error). */
  messages: Map<string, string>;
  /** `.status` of each member object, for the clusters where it is known (only when collecting). */
  remoteStatuses: Map<string, unknown>;
  /** The member objects of the selected clusters as last seen or written (for health aggregation). */
  memberObjects: Map<string, KubeObject | undefined>;
  /** Versions of the member objects written (or found up to date) this round. */
  versions: Map<string, string>;
  /** A member object was created or updated. */
  resourcesUpdated: boolean;
  /** Some member cache is still loading: the answer is incomplete; reconcile again shortly. */
  pending: boolean;
}

export interface DeletionOutcome {
  /** Clusters still holding the object (deletion issued or in progress). */
  remaining: string[];
  /** Placement clusters not ready (or whose cache is unavailable), waited for until the deletion bound. */
  waiting: string[];
  /** Ready clusters where a delete or label removal failed, with why: retried with backoff. */
  errors: string[];
  /** Not-ready clusters given up on because the deletion bound passed. */
  abandoned: string[];
  /** Not-ready clusters whose deletion is left to a pending-deletion record (deletion only, not orphaning). */
  deferred: string[];
}

export type MemberObject = KubeObject;

/** An outcome with nothing in it: the start of every propagation, and the answer when nothing was done. */
export function emptyOutcome(): PropagationOutcome {
  return {
    statuses: new Map(),
    messages: new Map(),
    remoteStatuses: new Map(),
    memberObjects: new Map(),
    versions: new Map(),
    resourcesUpdated: false,
    pending: false,
  };
}
