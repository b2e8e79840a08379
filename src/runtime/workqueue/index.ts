export type { DelayEntry } from './delay-heap.ts';
export { DelayHeap } from './delay-heap.ts';
export type { WorkQueueMetrics } from './metrics.ts';
export { noopWorkQueueMetrics } from './metrics.ts';
export type { RateLimiter } from './rate-limiter.ts';
export {
  defaultControllerRateLimiter,
  ItemExponentialBackoff,
  kubefedRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
} from './rate-limiter.ts';
export type { RunWorkersOptions } from './run-workers.ts';
export { runWorkers } from './run-workers.ts';
export type { WorkQueueOptions } from './workqueue.ts';
export { WorkQueue } from './workqueue.ts';
