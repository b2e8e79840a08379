// The taint manager (karmada pkg/controllers/cluster/taint_manager.go NoExecuteTaintManager): evicts bindings
// from clusters with NoExecute taints they do not tolerate (clusterEvictions), at a bounded rate, and looks
// again when a toleration runs out. The decision is cluster-evictions.ts'; this is the shell.

import { EvictionProducer, EvictionReason } from '../../../api/work/v1alpha2/resourcebinding.ts';
import { isConflict, isNotFound, type KubeClient } from '../../../kube/client/index.ts';
import type { Members } from '../../../members/members.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../runtime/reconcile.ts';
import { conditionTimestamp } from '../../../util/conditions.ts';
import type { BindingObject } from '../binding-spec.ts';
import { type Bindings, bindingTypeOf } from '../bindings.ts';
import { policyClusterOf } from '../clusters.ts';
import { bindingKey } from '../keys.ts';
import { taintString } from '../taints.ts';
import { clusterEvictions } from './cluster-evictions.ts';
import { bindingEvent } from './events.ts';
import { gracefulEvictCluster, normalizedPurgeMode, PurgeMode } from './evict.ts';
import { TokenBucket } from './rate-limiter.ts';

export interface TaintManagerOptions {
  host: KubeClient;
  bindings: Bindings;
  members: Members;
  events: EventRecorder;
  /** Bindings evicted per second (--resource-eviction-rate); 0 or less: unlimited. */
  evictionRate: number;
  logger?: Logger;
}

export class TaintManager {
  readonly #opts: TaintManagerOptions;
  readonly #limiter: TokenBucket;
  readonly controller: Controller;

  constructor(opts: TaintManagerOptions) {
    this.#opts = opts;
    this.#limiter = new TokenBucket(opts.evictionRate);
    const log = (opts.logger ?? silentLogger).child({ controller: 'policy-taint-manager' });
    this.controller = new Controller({
      name: 'policy-taint-manager',
      logger: log,
      reconcile: (k) => this.reconcile(k),
      workers: 1,
    });
    this.controller
      .cache(opts.members.asCache())
      .source(opts.bindings.changes)
      // A taint added or removed, or a cluster's readiness, may evict any binding scheduled there.
      .source((enqueue) =>
        opts.members.registry.addListener({
          onClusterChange: (name) => {
            for (const b of opts.bindings.list())
              if (b.spec.clusters?.some((c) => c.name === name)) enqueue(bindingKey(b));
          },
        }),
      );
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const b = this.#opts.bindings.get(key);
    if (!b || b.metadata.deletionTimestamp) return ok();
    const clusters = this.#opts.members.registry.list().map(policyClusterOf);
    const now = new Date();
    const decision = clusterEvictions(b, clusters, now);
    if (decision.evict.length > 0) {
      const wait = this.#limiter.take(now.getTime());
      if (wait > 0) return requeueAfter(wait);
      const purgeMode = normalizedPurgeMode(b.spec.failover?.cluster?.purgeMode);
      let spec = b.spec;
      for (const e of decision.evict) {
        spec = gracefulEvictCluster(spec, e.cluster, {
          reason: EvictionReason.TaintUntolerated,
          producer: EvictionProducer.TaintManager,
          purgeMode: purgeMode === PurgeMode.Directly ? PurgeMode.Directly : PurgeMode.Gracefully,
          now: conditionTimestamp(now),
        });
      }
      try {
        const written = await this.#opts.host.update<BindingObject>(bindingTypeOf(b), { ...b, spec });
        for (const e of decision.evict)
          bindingEvent(
            this.#opts.events,
            written,
            'Normal',
            'EvictWorkloadFromClusterSucceed',
            `Evict from cluster ${e.cluster} succeed: taint ${taintString(e.taint)} not tolerated`,
          );
      } catch (err) {
        if (isConflict(err)) return requeueAfter(500);
        if (isNotFound(err)) return ok();
        for (const e of decision.evict)
          bindingEvent(
            this.#opts.events,
            b,
            'Warning',
            'EvictWorkloadFromClusterFailed',
            `Evict from cluster ${e.cluster} failed.`,
          );
        return retry(err);
      }
    }
    return decision.recheckAfterMs !== undefined ? requeueAfter(decision.recheckAfterMs + 50) : ok();
  }
}
