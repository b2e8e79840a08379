// The policy source: native resources placed by Karmada's PropagationPolicy / ClusterPropagationPolicy and
// shaped by OverridePolicy / ClusterOverridePolicy, on the same engine as Federated<Kind>. Four controllers,
// one concern each, as in Karmada: the detector claims templates and writes bindings, the scheduler chooses
// clusters, the binding controller applies through the engine and writes status back, and the policy
// controller handles policy identity, deletion and status; one more keeps the admission webhook's claim of new
// templates to the kinds the policies select. They share one cache of each host kind.

import type { KubeClient } from '../../kube/client/index.ts';
import type { Members } from '../../members/members.ts';
import type { CacheSource } from '../../runtime/controller.ts';
import { EventRecorder } from '../../runtime/events.ts';
import { SharedInformers } from '../../runtime/informer/shared-informers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import type { Runnable } from '../../runtime/manager.ts';
import { BindingController } from './binding-controller.ts';
import { Bindings } from './bindings.ts';
import { CapacityEstimator } from './capacity-estimator.ts';
import { ClaimAdmissionController } from './claim-admission-controller.ts';
import { Detector } from './detector.ts';
import { type FailoverOptions, failoverControllers } from './failover/index.ts';
import { NamespaceController } from './namespace-controller.ts';
import { DEPENDENCY_KINDS, Policies } from './policies.ts';
import { PolicyController } from './policy-controller.ts';
import { Scheduler } from './scheduler.ts';
import { kindKey, Templates } from './templates.ts';

export interface PolicySourceOptions {
  host: KubeClient;
  members: Members;
  /** The KubeFed namespace: never a source of templates. */
  namespace: string;
  /** See BindingControllerOptions.deletionTimeoutMs. */
  deletionTimeoutMs: number;
  logger?: Logger;
  memberEventDelayMs?: number;
  /** Eviction rate and graceful eviction timeout (failover/index.ts). */
  failover?: Partial<FailoverOptions>;
  /**
   * Reconciles the detector, the scheduler and the binding controller each run at once: the sync controllers'
   * `syncController.maxConcurrentReconciles`, so that both front ends feed the engine alike.
   */
  workers?: number;
}

export const POLICY_SOURCE_COMPONENT = 'kubefed-policy-controller';

export class PolicySource implements Runnable {
  readonly name = 'policy-source';
  readonly leaderOnly = true;
  readonly #opts: PolicySourceOptions;
  readonly #log: Logger;

  constructor(opts: PolicySourceOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ source: 'policy' });
  }

  async run(signal: AbortSignal): Promise<void> {
    const { members } = this.#opts;
    // Own clients, like each sync controller: the source's writes do not queue behind the others'.
    const host = this.#opts.host.fork();
    const eventClient = this.#opts.host.fork();
    const events = new EventRecorder(eventClient, POLICY_SOURCE_COMPONENT, this.#log);
    const informers = new SharedInformers(this.#opts.host, this.#log);
    const policies = new Policies(informers);
    const bindings = new Bindings(informers);
    const templates = new Templates({ host: this.#opts.host, informers, logger: this.#log });
    // Every controller starts once the policies and bindings are loaded, and then the templates of every kind
    // they select: deciding from half-loaded caches would release claims, delete dependencies or write a
    // status of "nothing claimed" after each restart.
    let hostLoaded: Promise<void> | undefined;
    const hostCaches: CacheSource = {
      start: () => {},
      waitForSync: () => {
        hostLoaded ??= Promise.all([policies.waitForSync(), bindings.waitForSync()]).then(async () => {
          await templates.want(wantedKinds(policies, bindings));
          await templates.loaded();
        });
        return hostLoaded;
      },
      hasSynced: () => policies.hasSynced() && bindings.hasSynced() && templates.hasLoaded(),
      stop: async () => {},
    };
    const capacity = new CapacityEstimator({ caches: members.caches });
    const { workers } = this.#opts;
    const scheduler = new Scheduler({
      host,
      bindings,
      members,
      events,
      capacity,
      workers,
      logger: this.#log,
    });
    const detector = new Detector({
      host,
      templates,
      policies,
      bindings,
      events,
      firstSchedule: (b) => scheduler.firstSchedule(b),
      skippedNamespaces: [this.#opts.namespace],
      workers,
      logger: this.#log,
    });
    const policyController = new PolicyController({
      host,
      templates,
      policies,
      bindings,
      reexamine: (key) => detector.controller.enqueue(key),
      members,
      logger: this.#log,
    });
    const binder = new BindingController({
      host,
      members,
      templates,
      policies,
      bindings,
      events,
      deletionTimeoutMs: this.#opts.deletionTimeoutMs,
      workers,
      logger: this.#log,
      memberEventDelayMs: this.#opts.memberEventDelayMs,
    });
    const namespaces = new NamespaceController({ members, bindings, logger: this.#log });
    const claimAdmission = new ClaimAdmissionController({ host, policies, templates, logger: this.#log });
    // Watch exactly the kinds the policies select, from the first sync on and after every policy change.
    let wanting = false;
    const wantSelected = () => {
      if (wanting) return;
      wanting = true;
      queueMicrotask(() => {
        wanting = false;
        void templates.want(wantedKinds(policies, bindings));
      });
    };
    const unsubscribe = policies.addListener((kind) => {
      if (kind === 'PropagationPolicy' || kind === 'ClusterPropagationPolicy') wantSelected();
    });
    // A binding keeps its template's kind watched after the last policy selecting it went: its copies are
    // still synced and, when the template is deleted, removed (Karmada keeps syncing from the binding).
    const unsubscribeBindings = bindings.addListener((_key, _b, change) => {
      if (change !== 'update') wantSelected();
    });
    const unsubscribeClusters = members.registry.addListener({
      onClusterChange: () => policyController.enqueueAll(1_000),
    });
    const failover = failoverControllers(
      { host, informers, bindings, members, events, logger: this.#log },
      this.#opts.failover,
    );
    const controllers = [
      detector,
      policyController,
      scheduler,
      binder,
      namespaces,
      claimAdmission,
      ...failover,
    ];
    for (const c of controllers) c.controller.cache(hostCaches);
    try {
      await Promise.all(controllers.map((c) => c.controller.run(signal)));
    } finally {
      unsubscribe();
      unsubscribeBindings();
      unsubscribeClusters();
      await templates.stop();
      await Promise.all([policies.close(), bindings.close(), capacity.close()]);
      await Promise.all([host.close(), eventClient.close()]);
    }
  }
}

/** The kinds to watch: those the policies select, and those of the templates bindings exist for. */
export function wantedKinds(policies: Policies, bindings: Bindings): Set<string> {
  const kinds = policies.selectedKinds();
  for (const b of bindings.list()) {
    const r = b.spec.resource;
    if (r?.apiVersion && r.kind) kinds.add(kindKey(r));
    if (b.spec.propagateDeps) for (const k of DEPENDENCY_KINDS) kinds.add(k);
  }
  return kinds;
}
