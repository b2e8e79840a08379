// The median of repeated runs of one short measurement: a three-second burst's CPU moves with whatever else
// the apiservers and etcd happen to do in it (a compaction, a lease round, the collector), so one round can be
// a quarter off in either direction.

/**
 * The item whose key is the median of the keys (the lower one of the middle two for an even count), so that
 * every figure reported with it comes from the same round. Throws on no items.
 */
export function medianBy<T>(items: readonly T[], key: (item: T) => number): T {
  if (items.length === 0) throw new Error('medianBy: no items');
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}
