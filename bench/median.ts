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

/** What a round of a burst reports (a Throughput's figures). */
interface Round {
  cpuMsPerMemberObject?: number;
  objectsPerSecond: number;
}

/**
 * The round with the median CPU per member object, whole, and beside it every round's CPU and rate in order:
 * how both the fair ceilings' and the systems' rounds are reported.
 */
export function medianRound<T extends Round>(
  rounds: readonly T[],
): T & { roundsCpuMs: number[]; roundsObjectsPerSecond: number[] } {
  return {
    ...medianBy(rounds, (r) => r.cpuMsPerMemberObject ?? 0),
    roundsCpuMs: rounds.map((r) => r.cpuMsPerMemberObject ?? 0),
    roundsObjectsPerSecond: rounds.map((r) => r.objectsPerSecond),
  };
}

/**
 * A fair ceiling measured on both sides of the systems: `before` on apiservers and etcd as fresh as the run's
 * start, `after` as the systems left them (their objects deleted, etcd's history and the host's Events kept). The
 * median round of all of them, so that the ceiling a system is divided by saw the same history on average as the
 * systems did; `roundsBefore` says where the list of rounds turns from one side to the other.
 */
export function bracketedMedianRound<T extends Round>(
  before: readonly T[],
  after: readonly T[],
): T & { roundsCpuMs: number[]; roundsObjectsPerSecond: number[]; roundsBefore: number } {
  return { ...medianRound([...before, ...after]), roundsBefore: before.length };
}
