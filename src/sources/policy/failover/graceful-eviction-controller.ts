// The graceful eviction controller (karmada pkg/controllers/gracefuleviction/rb_graceful_eviction_controller.go):
// ends eviction tasks per assessEvictionTasks, puts back clusters whose eviction is cancelled, and says on
// the template why a task is kept. The decision is eviction-tasks.ts'; this is the shell.

import { isConflict, isNotFound, type KubeClient } from '../../../kube/client/index.ts';
import type { Members } from '../../../members/members.ts';
import { jsonEqual } from '../../../propagation/json.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../runtime/reconcile.ts';
import type { BindingObject } from '../binding-spec.ts';
import { type Bindings, bindingTypeOf } from '../bindings.ts';
import { policyClusterOf } from '../clusters.ts';
import { bindingKey } from '../keys.ts';
import { templateEvent } from './events.ts';
import { assessEvictionTasks } from './eviction-tasks.ts';

export interface GracefulEvictionControllerOptions {
  host: KubeClient;
  bindings: Bindings;
  members: Members;
  events: EventRecorder;
  /** The grace period of a task without gracePeriodSeconds (--graceful-eviction-timeout). */
  timeoutSeconds: number;
  logger?: Logger;
}

export class GracefulEvictionController {
  readonly #opts: GracefulEvictionControllerOptions;
  readonly controller: Controller;

  constructor(opts: GracefulEvictionControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: 'policy-graceful-eviction' });
    this.controller = new Controller({
      name: 'policy-graceful-eviction',
      logger: log,
      reconcile: (k) => this.reconcile(k),
      workers: 2,
    });
    this.controller
      .cache(opts.members.asCache())
      // Status too: a task ends when the scheduler has placed the replicas and the new copies are healthy.
      .source((enqueue) =>
        opts.bindings.addListener((key, b, change) => {
          if (change !== 'delete' && hasTasks(b)) enqueue(key);
        }),
      )
      // An evicted cluster that recovers clears its TaintUntolerated tasks.
      .source((enqueue) =>
        opts.members.registry.addListener({
          onClusterChange: (name) => {
            for (const b of opts.bindings.list())
              if (b.spec.gracefulEvictionTasks?.some((t) => t.fromCluster === name)) enqueue(bindingKey(b));
          },
        }),
      );
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const b = this.#opts.bindings.get(key);
    if (!b || b.metadata.deletionTimestamp || !hasTasks(b)) return ok();
    const clusters = this.#opts.members.registry.list().map(policyClusterOf);
    const a = assessEvictionTasks(b, new Date(), { timeoutSeconds: this.#opts.timeoutSeconds, clusters });
    const tasksChanged = !jsonEqual(a.tasks, b.spec.gracefulEvictionTasks ?? []);
    const clustersChanged = !jsonEqual(a.clusters, b.spec.clusters ?? []);
    if (tasksChanged || clustersChanged) {
      const spec = { ...b.spec, clusters: a.clusters };
      if (a.tasks.length > 0) spec.gracefulEvictionTasks = a.tasks;
      else delete spec.gracefulEvictionTasks;
      try {
        await this.#opts.host.update<BindingObject>(bindingTypeOf(b), { ...b, spec });
      } catch (err) {
        if (isConflict(err)) return requeueAfter(500);
        if (isNotFound(err)) return ok();
        return retry(err);
      }
      for (const x of a.blocked)
        templateEvent(
          this.#opts.events,
          b,
          'Warning',
          'EvictionBlocked',
          `cluster ${x.cluster}: ${x.message}`,
        );
      for (const e of a.ended)
        if (e.why === 'cancelled')
          templateEvent(
            this.#opts.events,
            b,
            'Normal',
            'EvictionCancelled',
            `cluster ${e.cluster} recovered before its replicas could move: it keeps them`,
          );
    }
    return a.recheckAfterMs !== undefined ? requeueAfter(a.recheckAfterMs + 50) : ok();
  }
}

function hasTasks(b: BindingObject): boolean {
  return (b.spec.gracefulEvictionTasks?.length ?? 0) > 0;
}
