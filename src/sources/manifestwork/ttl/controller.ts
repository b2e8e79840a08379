// Deletes completed ManifestWorks once their ttlSecondsAfterFinished has passed (decide.ts), in every
// cluster namespace.

import type { ManifestWork } from '../../../api/ocm/work/v1/index.ts';
import { isNotFound, type KubeClient } from '../../../kube/client/index.ts';
import { Controller } from '../../../runtime/controller.ts';
import { enqueueObject } from '../../../runtime/handlers.ts';
import { type Informer, withoutManagedFields } from '../../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../../runtime/logger.ts';
import type { Runnable } from '../../../runtime/manager.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../../runtime/reconcile.ts';
import { ManifestWorkType } from '../replicaset/resource-types.ts';
import { ttlDecision } from './decide.ts';

export interface CompletedWorkControllerOptions {
  host: KubeClient;
  logger?: Logger;
}

export class CompletedWorkController implements Runnable {
  readonly name = 'manifestwork-garbage-collection';
  readonly leaderOnly = true;
  readonly #opts: CompletedWorkControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #works: Informer<ManifestWork>;

  constructor(opts: CompletedWorkControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#controller = new Controller({
      name: this.name,
      logger: this.#log,
      reconcile: (k) => this.reconcile(k),
    });
    this.#works = this.#controller.watch<ManifestWork>(
      { client: opts.host, type: ManifestWorkType, transform: withoutManagedFields },
      enqueueObject(),
    );
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const work = this.#works.store.get(key);
    if (!work) return ok();
    const decision = ttlDecision(work, Date.now());
    if (decision.kind === 'keep') return ok();
    if (decision.kind === 'wait') return requeueAfter(decision.ms);
    try {
      await this.#opts.host.delete(ManifestWorkType, work.metadata.name ?? '', {
        namespace: work.metadata.namespace,
        preconditions: { uid: work.metadata.uid },
      });
      this.#log.info(
        { work: key, ttlSecondsAfterFinished: work.spec.deleteOption?.ttlSecondsAfterFinished },
        'deleted completed ManifestWork after its TTL',
      );
      return ok();
    } catch (e) {
      if (isNotFound(e)) return ok();
      return retry(e);
    }
  }
}
