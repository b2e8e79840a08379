// Cluster and application failover for native resources, as Karmada's taint manager, graceful eviction,
// application failover and WorkloadRebalancer controllers (docs/failover.md).

import type { KubeClient } from '../../../kube/client/index.ts';
import type { Members } from '../../../members/members.ts';
import type { Controller } from '../../../runtime/controller.ts';
import type { EventRecorder } from '../../../runtime/events.ts';
import type { SharedInformers } from '../../../runtime/informer/shared-informers.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { Bindings } from '../bindings.ts';
import { RebalancerController } from '../rebalancer.ts';
import { ApplicationFailoverController } from './application-failover-controller.ts';
import { DEFAULT_GRACEFUL_EVICTION_TIMEOUT_SECONDS } from './eviction-tasks.ts';
import { GracefulEvictionController } from './graceful-eviction-controller.ts';
import { DEFAULT_EVICTION_RATE } from './rate-limiter.ts';
import { TaintManager } from './taint-manager.ts';

export interface FailoverOptions {
  /** Bindings evicted per second by the taint manager (--resource-eviction-rate). */
  evictionRate: number;
  /** Grace period of a task without gracePeriodSeconds (--graceful-eviction-timeout), in seconds. */
  gracefulEvictionTimeoutSeconds: number;
}

export const DEFAULT_FAILOVER_OPTIONS: FailoverOptions = {
  evictionRate: DEFAULT_EVICTION_RATE,
  gracefulEvictionTimeoutSeconds: DEFAULT_GRACEFUL_EVICTION_TIMEOUT_SECONDS,
};

export interface FailoverDeps {
  host: KubeClient;
  informers: SharedInformers;
  bindings: Bindings;
  members: Members;
  events: EventRecorder;
  logger?: Logger;
}

/** The four controllers, ready to share the policy source's caches. */
export function failoverControllers(
  deps: FailoverDeps,
  options: Partial<FailoverOptions> = {},
): Array<{ controller: Controller }> {
  const o = { ...DEFAULT_FAILOVER_OPTIONS, ...options };
  const { host, bindings, members, events, logger } = deps;
  return [
    new TaintManager({ host, bindings, members, events, evictionRate: o.evictionRate, logger }),
    new GracefulEvictionController({
      host,
      bindings,
      members,
      events,
      timeoutSeconds: o.gracefulEvictionTimeoutSeconds,
      logger,
    }),
    new ApplicationFailoverController({ host, bindings, events, logger }),
    new RebalancerController({ host, informers: deps.informers, bindings, logger }),
  ];
}
