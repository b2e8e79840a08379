// The application failover controller (karmada pkg/controllers/applicationfailover/
// rb_application_failover_controller.go): evicts a binding from a cluster whose copy stayed Unhealthy for
// failover.application.decisionConditions.tolerationSeconds. "Unhealthy since" lives in memory, as in
// Karmada: a restart starts every clock again. The decision is application-failures.ts'; this is the shell.

import { isConflict, isNotFound, type KubeClient } from '../../../kube/client/index.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../runtime/reconcile.ts';
import { conditionTimestamp } from '../../../util/conditions.ts';
import type { BindingObject } from '../binding-spec.ts';
import { type Bindings, bindingTypeOf } from '../bindings.ts';
import { applicationFailures, applicationTaskOptions } from './application-failures.ts';
import { bindingEvent } from './events.ts';
import { gracefulEvictCluster } from './evict.ts';

export interface ApplicationFailoverControllerOptions {
  host: KubeClient;
  bindings: Bindings;
  events: EventRecorder;
  logger?: Logger;
}

export class ApplicationFailoverController {
  readonly #opts: ApplicationFailoverControllerOptions;
  readonly controller: Controller;
  /** Per binding key: since when (ms) each cluster's copy has been Unhealthy. */
  readonly #unhealthy = new Map<string, Map<string, number>>();

  constructor(opts: ApplicationFailoverControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: 'policy-application-failover' });
    this.controller = new Controller({
      name: 'policy-application-failover',
      logger: log,
      reconcile: (k) => this.reconcile(k),
      workers: 2,
    });
    this.controller.source((enqueue) =>
      opts.bindings.addListener((key, b, change, old) => {
        if (change === 'delete' || wantsFailover(b) || (old && wantsFailover(old))) enqueue(key);
      }),
    );
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const b = this.#opts.bindings.get(key);
    if (!b || b.metadata.deletionTimestamp || !wantsFailover(b)) {
      this.#unhealthy.delete(key);
      return ok();
    }
    const now = new Date();
    const f = applicationFailures(b, this.#unhealthy.get(key) ?? new Map(), now.getTime());
    this.#unhealthy.set(key, f.unhealthySince);
    const behavior = b.spec.failover?.application;
    if (f.evict.length > 0 && behavior) {
      let spec = b.spec;
      const options = applicationTaskOptions(behavior, conditionTimestamp(now));
      for (const cluster of f.evict) spec = gracefulEvictCluster(spec, cluster, options);
      try {
        const written = await this.#opts.host.update<BindingObject>(bindingTypeOf(b), { ...b, spec });
        for (const cluster of f.evict) {
          f.unhealthySince.delete(cluster);
          bindingEvent(
            this.#opts.events,
            written,
            'Normal',
            'EvictWorkloadFromClusterSucceed',
            `Evict from cluster ${cluster} succeed: the application stayed unhealthy`,
          );
        }
      } catch (err) {
        if (isConflict(err)) return requeueAfter(500);
        if (isNotFound(err)) return ok();
        return retry(err);
      }
    }
    return f.recheckAfterMs !== undefined ? requeueAfter(Math.max(1, f.recheckAfterMs) + 50) : ok();
  }
}

function wantsFailover(b: BindingObject): boolean {
  return b.spec.failover?.application !== undefined;
}
