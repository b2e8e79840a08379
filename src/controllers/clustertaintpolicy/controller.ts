// The ClusterTaintPolicy controller (karmada pkg/controllers/taint): watches ClusterTaintPolicies and
// KubeFedClusters and keeps each cluster's spec.taints as the policies say (decide.ts). A fleet without a
// ClusterTaintPolicy gets no automatic NoExecute taint (docs/cluster-taints.md).

import { KubeFedClusterType } from '../../api/core/v1beta1/resource-types.ts';
import {
  type ClusterTaintPolicy,
  CTP_KIND,
  CTP_PLURAL,
} from '../../api/policy/v1alpha1/clustertaintpolicy.ts';
import { GROUP, VERSION } from '../../api/policy/v1alpha1/group.ts';
import type { KubeClient, KubeObject, ResourceType } from '../../kube/client/index.ts';
import { Controller } from '../../runtime/controller.ts';
import { enqueueMapped, enqueueObject } from '../../runtime/handlers.ts';
import type { Informer } from '../../runtime/informer/index.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { ok, type ReconcileResult, retry } from '../../runtime/reconcile.ts';
import { taintString } from '../../sources/policy/taints.ts';
import { type ClusterObject, updateClusterTaints } from '../kubefedcluster/taint-writer.ts';
import { decideTaints, policiesInOrder } from './decide.ts';

export const ClusterTaintPolicyType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: CTP_PLURAL,
  namespaced: false,
  kind: CTP_KIND,
};

type PolicyObject = ClusterTaintPolicy & KubeObject;

export interface ClusterTaintPolicyControllerOptions {
  host: KubeClient;
  /** The KubeFed namespace, where the KubeFedClusters are. */
  namespace: string;
  logger?: Logger;
  /** The time stamped on added taints (tests fix it). */
  now?: () => Date;
}

export class ClusterTaintPolicyController implements Runnable {
  readonly name = 'clustertaintpolicy';
  readonly leaderOnly = true;
  readonly #opts: ClusterTaintPolicyControllerOptions;
  readonly #log: Logger;
  readonly #controller: Controller;
  readonly #clusters: Informer<ClusterObject>;
  readonly #policies: Informer<PolicyObject>;

  constructor(opts: ClusterTaintPolicyControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: this.name });
    this.#log = log;
    this.#controller = new Controller({ name: this.name, logger: log, reconcile: (k) => this.reconcile(k) });
    this.#clusters = this.#controller.watch<ClusterObject>(
      { client: opts.host, type: KubeFedClusterType, namespace: opts.namespace },
      enqueueObject(),
    );
    // Any policy change may concern every cluster.
    this.#policies = this.#controller.watch<PolicyObject>(
      { client: opts.host, type: ClusterTaintPolicyType },
      enqueueMapped(() =>
        this.#clusters.store.list().map((c) => `${c.metadata.namespace}/${c.metadata.name}`),
      ),
    );
  }

  hasSynced(): boolean {
    return this.#controller.hasSynced();
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#controller.run(signal);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const cluster = this.#clusters.store.get(key);
    if (!cluster) return ok();
    const policies = policiesInOrder(this.#policies.store.list());
    const now = (this.#opts.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    try {
      const written = await updateClusterTaints(this.#opts.host, cluster, (fresh) =>
        decideTaints(fresh, policies, now),
      );
      if (written.kind === 'written')
        this.#log.info(
          { cluster: key, taints: (written.cluster.spec.taints ?? []).map(taintString) },
          'cluster taints updated by ClusterTaintPolicies',
        );
      return ok();
    } catch (e) {
      return retry(e);
    }
  }
}
