// Instrumentation hooks for WorkQueue, mirroring client-go's workqueue metrics
// (adds_total, depth, queue_duration_seconds, work_duration_seconds, retries_total).
// Prometheus wiring lives elsewhere so this module stays dependency-free.

export interface WorkQueueMetrics {
  /** A key was accepted (not collapsed into an already pending one). */
  onAdd(name: string): void;
  /** Keys waiting to be handed out, including ones re-added while in processing. */
  onDepth(name: string, depth: number): void;
  /** Seconds a key waited between being added and being handed out by get(). */
  onLatency(name: string, seconds: number): void;
  /** Seconds between get() and done() for one key. */
  onWorkDuration(name: string, seconds: number): void;
  /** A delayed or rate-limited re-add was requested (client-go counts every AddAfter). */
  onRetry(name: string): void;
  /** runWorkers started `max` workers on this queue (0 once they have all stopped). */
  onWorkers?(name: string, max: number): void;
  /** Workers currently reconciling a key. */
  onActiveWorkers?(name: string, active: number): void;
}

export const noopWorkQueueMetrics: WorkQueueMetrics = {
  onAdd() {},
  onDepth() {},
  onLatency() {},
  onWorkDuration() {},
  onRetry() {},
};
