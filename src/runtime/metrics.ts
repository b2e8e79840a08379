import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { setRequestObserver } from '../kube/client/index.ts';
import type { ReconcileResult } from './reconcile.ts';
import type { WorkQueueMetrics } from './workqueue/metrics.ts';

/** One registry per process, served at /metrics. */
export const registry = new Registry();

let processMetricsCollected = false;

/**
 * The process's own metrics (CPU, memory, heap, GC, event-loop lag) in the registry; called by whoever serves
 * /metrics (the Manager), once per process. Not at import: a process that serves no metrics (the admission
 * webhook) would pay for collecting them.
 *
 * The event-loop lag is sampled every 100 ms, not prom-client's default 10 ms: that sampler's timer wakes the
 * event loop about 200 times a second, which was a third of an idle controller's CPU (and the idle webhook's
 * largest cost). Ten samples a second still give its percentiles hundreds of points between two scrapes 15–30 s apart.
 */
export function collectProcessMetrics(): void {
  if (processMetricsCollected) return;
  processMetricsCollected = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
}

const DURATION_BUCKETS = [
  0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25, 27.5, 30, 50, 75, 100, 1000,
];

export const restClientRequests = new Counter({
  name: 'rest_client_requests_total',
  help: 'Requests to Kubernetes API servers, by cluster, method and HTTP code.',
  labelNames: ['cluster', 'method', 'code'] as const,
  registers: [registry],
});
export const restClientLatency = new Histogram({
  name: 'rest_client_request_duration_seconds',
  help: 'Latency of requests to Kubernetes API servers.',
  labelNames: ['cluster', 'method'] as const,
  buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
  registers: [registry],
});
setRequestObserver(({ cluster, method, statusCode, seconds }) => {
  restClientRequests.inc({
    cluster,
    method,
    code: statusCode === undefined ? '<error>' : String(statusCode),
  });
  restClientLatency.observe({ cluster, method }, seconds);
});

export const informerEvents = new Counter({
  name: 'kubefed_informer_events_total',
  help: 'Informer lifecycle events: list, relist after 410 Gone, watch reconnects and stalled watches.',
  labelNames: ['cluster', 'resource', 'event'] as const,
  registers: [registry],
});

export const leaderStatus = new Gauge({
  name: 'leader_election_master_status',
  help: '1 while this process holds the leader lease.',
  labelNames: ['name'] as const,
  registers: [registry],
});

// KubeFed's own metric names (pkg/metrics/metrics.go), kept for dashboards that already use them.
export const kubefedClusterTotal = new Gauge({
  name: 'kubefedcluster_total',
  help: 'Member cluster health: 1 for the state of the latest probe, 0 for the others.',
  labelNames: ['state', 'cluster'] as const,
  registers: [registry],
});
export const clusterHealthStatusDuration = new Histogram({
  name: 'cluster_health_status_duration_seconds',
  help: 'Duration of one cluster health probe.',
  buckets: DURATION_BUCKETS,
  registers: [registry],
});
export const clusterClientConnectionDuration = new Histogram({
  name: 'cluster_client_connection_duration_seconds',
  help: 'Time to build a member client from its KubeFedCluster and token Secret.',
  buckets: DURATION_BUCKETS,
  registers: [registry],
});
/**
 * KubeFed's name, but not its meaning: KubeFed inc/dec'd it in the kubefedctl process, where the controller
 * never saw it move. Here it is the number of KubeFedClusters the controller manager knows (leader only).
 */
export const joinedClusterTotal = new Gauge({
  name: 'joined_cluster_total',
  help: 'KubeFedClusters registered in the KubeFed namespace, as seen by the leading controller manager.',
  registers: [registry],
});
/** KubeFed's `action` label, plus `cluster` so that one slow member stands out. */
export const dispatchOperationDuration = new Histogram({
  name: 'dispatch_operation_duration_seconds',
  help: 'Latency of one write (create, update, delete) to a member cluster.',
  labelNames: ['action', 'cluster'] as const,
  buckets: DURATION_BUCKETS,
  registers: [registry],
});

export type DispatchAction = 'create' | 'update' | 'delete';

/** Times one member write; failed writes are timed too (a member that times out is the one to see). */
export async function timedDispatch<T>(action: DispatchAction, cluster: string, op: Promise<T>): Promise<T> {
  const end = dispatchOperationDuration.startTimer({ action, cluster });
  try {
    return await op;
  } finally {
    end();
  }
}

export const reconcileTotal = new Counter({
  name: 'controller_runtime_reconcile_total',
  help: 'Reconciles by controller and result.',
  labelNames: ['controller', 'result'] as const,
  registers: [registry],
});
export const reconcileErrors = new Counter({
  name: 'controller_runtime_reconcile_errors_total',
  help: 'Reconcile errors by controller.',
  labelNames: ['controller'] as const,
  registers: [registry],
});
export const reconcileTime = new Histogram({
  name: 'controller_runtime_reconcile_time_seconds',
  help: 'Reconcile duration by controller.',
  labelNames: ['controller'] as const,
  buckets: [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25,
    1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
  ],
  registers: [registry],
});

export const maxConcurrentReconciles = new Gauge({
  name: 'controller_runtime_max_concurrent_reconciles',
  help: 'Maximum number of concurrent reconciles per controller.',
  labelNames: ['controller'] as const,
  registers: [registry],
});
export const activeWorkers = new Gauge({
  name: 'controller_runtime_active_workers',
  help: 'Number of currently used workers per controller.',
  labelNames: ['controller'] as const,
  registers: [registry],
});

// Work queues, with client-go's metric names so existing controller dashboards apply.
const workqueueAdds = new Counter({
  name: 'workqueue_adds_total',
  help: 'Keys added to a work queue.',
  labelNames: ['name'] as const,
  registers: [registry],
});
const workqueueDepth = new Gauge({
  name: 'workqueue_depth',
  help: 'Keys waiting in a work queue.',
  labelNames: ['name'] as const,
  registers: [registry],
});
const workqueueQueueDuration = new Histogram({
  name: 'workqueue_queue_duration_seconds',
  help: 'Seconds a key waits in a work queue before it is processed.',
  labelNames: ['name'] as const,
  buckets: [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 0.001, 0.01, 0.1, 1, 10],
  registers: [registry],
});
const workqueueWorkDuration = new Histogram({
  name: 'workqueue_work_duration_seconds',
  help: 'Seconds processing one key takes.',
  labelNames: ['name'] as const,
  buckets: [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 0.001, 0.01, 0.1, 1, 10],
  registers: [registry],
});
const workqueueRetries = new Counter({
  name: 'workqueue_retries_total',
  help: 'Delayed or rate-limited re-adds to a work queue.',
  labelNames: ['name'] as const,
  registers: [registry],
});

/** WorkQueue hooks that feed the registry; pass as `metrics` when creating a controller's queue. */
export const prometheusWorkQueueMetrics: WorkQueueMetrics = {
  onAdd: (name) => workqueueAdds.inc({ name }),
  onDepth: (name, depth) => workqueueDepth.set({ name }, depth),
  onLatency: (name, seconds) => workqueueQueueDuration.observe({ name }, seconds),
  onWorkDuration: (name, seconds) => workqueueWorkDuration.observe({ name }, seconds),
  onRetry: (name) => workqueueRetries.inc({ name }),
  // Queues are named after their controller, so the queue name is controller-runtime's `controller` label.
  onWorkers: (name, max) => maxConcurrentReconciles.set({ controller: name }, max),
  onActiveWorkers: (name, active) => activeWorkers.set({ controller: name }, active),
};

/**
 * Wraps a reconcile function so that each call feeds controller-runtime's reconcile metrics
 * (`controller_runtime_reconcile_total{result}`, `..._errors_total`, `..._time_seconds`), as KubeFed v0.10
 * does.
 */
export function measuredReconcile(
  controller: string,
  reconcile: (key: string) => Promise<ReconcileResult>,
): (key: string) => Promise<ReconcileResult> {
  return async (key) => {
    const end = reconcileTime.startTimer({ controller });
    try {
      const r = await reconcile(key);
      const result = r.kind === 'ok' ? 'success' : r.kind === 'error' ? 'error' : 'requeue_after';
      reconcileTotal.inc({ controller, result });
      if (r.kind === 'error') reconcileErrors.inc({ controller });
      return r;
    } catch (e) {
      reconcileTotal.inc({ controller, result: 'error' });
      reconcileErrors.inc({ controller });
      throw e;
    } finally {
      end();
    }
  };
}
