// The Placement controller: kubefed-ts's stand-in for OCM's placement scheduler. It writes the
// PlacementDecisions of each Placement from the ready KubeFedClusters (push and pull alike) as decide.ts
// says, and the Placement's status. Placements annotated `kubefed-ts.io/decisions: external` are left to
// whoever writes their decisions (docs/manifestworkreplicaset.md).

import { isDeepStrictEqual } from 'node:util';
import { isClusterReady, KubeFedClusterType } from '../../../api/core/v1beta1/index.ts';
import {
  API_VERSION,
  PLACEMENT_DECISION_KIND,
  PLACEMENT_KIND,
  PLACEMENT_LABEL,
  type Placement,
  type PlacementDecision,
} from '../../../api/ocm/cluster/v1beta1/index.ts';
import { isNotFound, type KubeClient } from '../../../kube/client/index.ts';
import type { ClusterObject } from '../../../members/cluster-registry.ts';
import type { ClusterInfo } from '../../../propagation/placement.ts';
import { Controller } from '../../../runtime/controller.ts';
import { enqueueMapped, enqueueObject } from '../../../runtime/handlers.ts';
import type { Informer } from '../../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import type { Runnable } from '../../../runtime/manager.ts';
import { afterWriteError, ok, type ReconcileResult } from '../../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../../runtime/status.ts';
import { conditionTimestamp, stampCondition } from '../../../util/conditions.ts';
import { type DesiredDecision, decidedByKubefed, type PlacementPlan, planPlacement } from './decide.ts';
import { PlacementDecisionType, PlacementType } from './resource-types.ts';

export interface PlacementControllerOptions {
  host: KubeClient;
  /** The KubeFed namespace, where the KubeFedClusters are. */
  namespace: string;
  logger?: Logger;
}

type Status = NonNullable<Placement['status']>;

/** The Placement's status as the plan says, conditions stamped against the current ones. */
export function placementStatus(current: Placement, plan: PlacementPlan, now: string): Status {
  const previous = current.status?.conditions;
  const conditions = plan.conditions.map((c) => stampCondition(c, previous, now));
  if (plan.kind === 'misconfigured') return { ...current.status, conditions };
  return { numberOfSelectedClusters: plan.selected.length, decisionGroups: plan.groups, conditions };
}

/** The clusters a Placement may choose: the ready ones, push or pull alike. */
export function placeableClusters(clusters: readonly ClusterObject[]): ClusterInfo[] {
  return clusters
    .filter((c) => isClusterReady(c.status?.conditions))
    .map((c) => ({ name: c.metadata.name ?? '', labels: c.metadata.labels }));
}

function decisionObject(placement: Placement, d: DesiredDecision, current?: PlacementDecision) {
  return {
    apiVersion: API_VERSION,
    kind: PLACEMENT_DECISION_KIND,
    metadata: {
      ...(current?.metadata ?? {}),
      name: d.name,
      namespace: placement.metadata.namespace,
      labels: { ...(current?.metadata.labels ?? {}), ...d.labels },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: PLACEMENT_KIND,
          name: placement.metadata.name ?? '',
          uid: placement.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    status: { decisions: d.clusters.map((clusterName) => ({ clusterName, reason: '' })) },
  } satisfies PlacementDecision;
}

export class PlacementController implements Runnable {
  readonly name = 'placement';
  readonly leaderOnly = true;
  readonly #opts: PlacementControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #placements: Informer<Placement>;
  readonly #decisions: Informer<PlacementDecision>;
  readonly #clusters: Informer<ClusterObject>;

  constructor(opts: PlacementControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#log = log;
    this.#controller = new Controller({ name: this.name, logger: log, reconcile: (k) => this.reconcile(k) });
    this.#placements = this.#controller.watch<Placement>(
      { client: opts.host, type: PlacementType },
      enqueueObject(),
    );
    this.#decisions = this.#controller.watch<PlacementDecision>(
      { client: opts.host, type: PlacementDecisionType, labelSelector: PLACEMENT_LABEL },
      enqueueMapped((d) => [`${d.metadata.namespace}/${d.metadata.labels?.[PLACEMENT_LABEL] ?? ''}`]),
    );
    // A cluster joining, leaving, or changing labels or readiness may change any Placement.
    this.#clusters = this.#controller.watch<ClusterObject>(
      { client: opts.host, type: KubeFedClusterType, namespace: opts.namespace },
      enqueueMapped(() => this.#placements.store.keys()),
    );
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const placement = this.#placements.store.get(key);
    if (!placement || placement.metadata.deletionTimestamp || !decidedByKubefed(placement)) return ok();
    const plan = planPlacement(placement, placeableClusters(this.#clusters.store.list()));
    if (plan.kind === 'decided') {
      const written = await this.#writeDecisions(placement, plan.decisions);
      if (written) return written;
    }
    const now = conditionTimestamp(new Date());
    const w = await writeStatusIfChanged({
      client: this.#opts.host,
      type: PlacementType,
      typeMeta: { apiVersion: API_VERSION, kind: PLACEMENT_KIND },
      object: placement,
      compute: (current) => {
        const status = placementStatus(current, plan, now);
        return { status, changed: !isDeepStrictEqual(status, current.status) };
      },
    });
    return statusWriteResult(w);
  }

  /** Creates or updates the wanted decisions, deletes this Placement's others; a failure's result, or none. */
  async #writeDecisions(
    placement: Placement,
    desired: readonly DesiredDecision[],
  ): Promise<ReconcileResult | undefined> {
    const { host } = this.#opts;
    const namespace = placement.metadata.namespace;
    const existing = this.#decisions.store
      .list(namespace)
      .filter((d) => d.metadata.labels?.[PLACEMENT_LABEL] === placement.metadata.name);
    try {
      for (const d of desired) {
        const current = existing.find((e) => e.metadata.name === d.name);
        const want = decisionObject(placement, d, current);
        if (!current) {
          const created = await host.create<PlacementDecision>(PlacementDecisionType, {
            ...want,
            metadata: { ...want.metadata, resourceVersion: undefined },
          });
          await host.update(
            PlacementDecisionType,
            { ...created, status: want.status },
            { subresource: 'status' },
          );
          this.#log.info(
            { placement: `${namespace}/${placement.metadata.name}`, decision: d.name },
            'created',
          );
          continue;
        }
        let live = current;
        if (
          !isDeepStrictEqual(want.metadata.labels, current.metadata.labels) ||
          !isDeepStrictEqual(want.metadata.ownerReferences, current.metadata.ownerReferences)
        ) {
          live = await host.update<PlacementDecision>(PlacementDecisionType, {
            ...want,
            status: current.status,
          });
        }
        if (!isDeepStrictEqual(want.status, current.status))
          await host.update(
            PlacementDecisionType,
            { ...want, metadata: live.metadata },
            { subresource: 'status' },
          );
      }
      for (const e of existing) {
        if (desired.some((d) => d.name === e.metadata.name)) continue;
        // Only the decisions this Placement owns: a hand-written one with the label stays.
        const owned = (e.metadata.ownerReferences as Array<{ uid?: string }> | undefined)?.some(
          (r) => r.uid === placement.metadata.uid,
        );
        if (!owned) continue;
        try {
          await host.delete(PlacementDecisionType, e.metadata.name ?? '', { namespace });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    } catch (e) {
      return afterWriteError(e);
    }
    return undefined;
  }
}
