// The WorkloadRebalancer controller (karmada pkg/controllers/workloadrebalancer): stamps the bindings of the
// named workloads with spec.rescheduleTriggeredAt, reports each workload, and deletes the rebalancer
// ttlSecondsAfterFinished after it finished. The decision is rebalance.ts'; this is the shell.

import {
  GROUP as APPS_GROUP,
  VERSION as APPS_VERSION,
  type WorkloadRebalancer,
  WR_KIND,
  WR_PLURAL,
} from '../../api/apps/v1alpha1/workloadrebalancer.ts';
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import type { SharedInformerReader, SharedInformers } from '../../runtime/informer/shared-informers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { type Bindings, bindingTypeOf } from './bindings.ts';
import { parseBindingKey } from './keys.ts';
import { planRebalance } from './rebalance.ts';

export const WorkloadRebalancerType = {
  group: APPS_GROUP,
  version: APPS_VERSION,
  plural: WR_PLURAL,
  namespaced: false,
  kind: WR_KIND,
} as const;

type RebalancerObject = WorkloadRebalancer & KubeObject;

export interface RebalancerControllerOptions {
  host: KubeClient;
  informers: SharedInformers;
  bindings: Bindings;
  logger?: Logger;
}

export class RebalancerController {
  readonly #opts: RebalancerControllerOptions;
  readonly #rebalancers: SharedInformerReader<RebalancerObject>;
  readonly controller: Controller;

  constructor(opts: RebalancerControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: 'policy-workload-rebalancer' });
    this.controller = new Controller({
      name: 'policy-workload-rebalancer',
      logger: log,
      reconcile: (k) => this.reconcile(k),
      workers: 1,
    });
    let enqueue: ((key: string) => void) | undefined;
    this.#rebalancers = opts.informers.open<RebalancerObject>(
      { type: WorkloadRebalancerType },
      {
        onAdd: (o) => enqueue?.(o.metadata.name ?? ''),
        onUpdate: (old, o) => {
          if (old.metadata.generation !== o.metadata.generation) enqueue?.(o.metadata.name ?? '');
        },
      },
    );
    const reader = this.#rebalancers;
    this.controller
      .cache({
        start: () => {},
        waitForSync: () => reader.waitForSync(),
        hasSynced: () => reader.hasSynced(),
        stop: () => reader.close(),
      })
      .source((e) => {
        enqueue = e;
        for (const o of reader.store.list()) e(o.metadata.name ?? '');
        return () => {
          enqueue = undefined;
        };
      });
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const wr = this.#rebalancers.store.get(name);
    if (!wr || wr.metadata.deletionTimestamp) return ok();
    const { host, bindings } = this.#opts;
    const plan = planRebalance(
      wr,
      (key) => {
        const b = bindings.get(key);
        return b ? { rescheduleTriggeredAt: b.spec.rescheduleTriggeredAt } : undefined;
      },
      new Date(),
    );
    try {
      for (const key of plan.trigger) {
        const k = parseBindingKey(key);
        const type = bindingTypeOf({ metadata: { namespace: k.namespace } });
        await host.patch(
          type,
          k.name,
          { spec: { rescheduleTriggeredAt: plan.triggeredAt } },
          { namespace: k.namespace },
        );
      }
      if (plan.deleteAfterMs === 0) {
        await host.delete(WorkloadRebalancerType, name, { preconditions: { uid: wr.metadata.uid } });
        return ok();
      }
    } catch (e) {
      if (isNotFound(e)) return requeueAfter(500);
      if (isConflict(e)) return requeueAfter(500);
      return retry(e);
    }
    const w = await writeStatusIfChanged({
      client: host,
      type: WorkloadRebalancerType,
      typeMeta: { apiVersion: `${APPS_GROUP}/${APPS_VERSION}`, kind: WR_KIND },
      object: wr,
      compute: (current) => {
        const old = current.status ?? {};
        // A finished rebalancer keeps its finishTime while its spec stays the same.
        const status =
          old.finishTime && Number(old.observedGeneration) === Number(current.metadata.generation)
            ? { ...plan.status, finishTime: old.finishTime }
            : plan.status;
        return { status, changed: !jsonEqual(status, old) };
      },
    });
    const result = statusWriteResult(w);
    if (result.kind !== 'ok') return result;
    return plan.deleteAfterMs !== undefined ? requeueAfter(plan.deleteAfterMs + 50) : ok();
  }
}
