// The engine's per-cluster, per-object outcome of a federated object's Work, in the shape its status is
// computed from (one member object per cluster, KubeFed's status.clusters[]).

import type { WorkOutcome } from '../../engine/work.ts';
import type { KubeObject } from '../../kube/client/index.ts';

export interface FederatedOutcome {
  /** One entry per cluster that has something to say; '' = OK. */
  statuses: Map<string, string>;
  /** Why, for the clusters whose status is not OK (an API server message, a cache error). */
  messages: Map<string, string>;
  /** `.status` of each selected cluster's member object, where it is known. */
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

export function emptyFederatedOutcome(): FederatedOutcome {
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

export function federatedOutcome(work: WorkOutcome): FederatedOutcome {
  const out = emptyFederatedOutcome();
  out.pending = work.pending;
  out.resourcesUpdated = work.written;
  for (const [cluster, co] of work.clusters) {
    if (co.status !== undefined) {
      out.statuses.set(cluster, co.status);
      if (co.status && co.message) out.messages.set(cluster, co.message);
      if (co.selected) out.memberObjects.set(cluster, undefined);
      continue;
    }
    for (const o of co.objects) {
      if (o.status !== undefined) {
        out.statuses.set(cluster, o.status);
        if (o.status && o.message) out.messages.set(cluster, o.message);
      }
      if (o.version) out.versions.set(cluster, o.version);
      if (co.selected) {
        out.memberObjects.set(cluster, o.object);
        if (o.object?.status !== undefined) out.remoteStatuses.set(cluster, o.object.status);
      }
    }
  }
  return out;
}
