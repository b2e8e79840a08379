// The I/O around kubefed-lock.ts: read KubeFed's leader lock objects from the host, refuse to start while
// one is live, and (leader only) keep looking, so a KubeFed scaled back up later stops us instead of the two
// controllers fighting over the member objects.
import {
  CoreTypes,
  errorMessage,
  isForbidden,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Runnable } from '../runtime/manager.ts';
import { sleep } from '../util/backoff.ts';
import { FatalConfigError } from './kubefed-config.ts';
import {
  judgeKubeFedLock,
  KUBEFED_LEADER_ANNOTATION,
  KUBEFED_LOCK_NAME,
  type KubeFedLock,
  type KubeFedLockKind,
  kubefedRunningMessage,
  type LeaderElectionRecord,
  parseLeaderRecord,
} from './kubefed-lock.ts';

const ENDPOINTS: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'endpoints',
  namespaced: true,
  kind: 'Endpoints',
};
const LOCK_TYPES: ReadonlyArray<[KubeFedLockKind, ResourceType]> = [
  ['ConfigMap', CoreTypes.configMaps],
  ['Endpoints', ENDPOINTS],
];

/** Raised when KubeFed is found running; its message is the one line to show (a fatal start-up error). */
export class KubeFedRunningError extends FatalConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'KubeFedRunningError';
  }
}

export interface KubeFedLockRead {
  locks: KubeFedLock[];
  /** Lock kinds that could not be read (no RBAC): not checked. */
  unreadable: Array<{ kind: KubeFedLockKind; reason: string }>;
}

/**
 * Both lock kinds KubeFed v0.10 can use (spec.leaderElect.resourceLock: configmaps or endpoints): whichever
 * the KubeFedConfig says now, KubeFed may have run with the other. A missing object is no lock.
 */
export async function readKubeFedLocks(host: KubeClient, namespace: string): Promise<KubeFedLockRead> {
  const out: KubeFedLockRead = { locks: [], unreadable: [] };
  for (const [kind, type] of LOCK_TYPES) {
    try {
      const obj = await host.get<KubeObject>(type, KUBEFED_LOCK_NAME, namespace);
      const record = parseLeaderRecord(obj.metadata.annotations?.[KUBEFED_LEADER_ANNOTATION]);
      out.locks.push({ kind, namespace, record });
    } catch (e) {
      if (isNotFound(e)) continue;
      if (isForbidden(e)) out.unreadable.push({ kind, reason: errorMessage(e) });
      else throw e;
    }
  }
  return out;
}

/** The first live lock, judged against `previous` looks at the same kinds, or undefined. */
export function firstLiveLock(
  locks: KubeFedLock[],
  nowMs: number,
  previous: ReadonlyMap<KubeFedLockKind, LeaderElectionRecord | undefined> = new Map(),
) {
  for (const lock of locks) {
    const verdict = judgeKubeFedLock(lock.record, nowMs, previous.get(lock.kind));
    if (verdict.live) return { lock, verdict };
  }
  return undefined;
}

/** Throws KubeFedRunningError if KubeFed holds a live lock; a lock we may not read is a warning only. */
export async function refuseWhileKubeFedRuns(
  host: KubeClient,
  namespace: string,
  log: Logger,
): Promise<void> {
  const { locks, unreadable } = await readKubeFedLocks(host, namespace);
  for (const u of unreadable)
    log.warn({ lock: u.kind, err: u.reason }, "cannot read KubeFed's leader lock; not checking for KubeFed");
  const live = firstLiveLock(locks, Date.now());
  if (live) {
    throw new KubeFedRunningError(kubefedRunningMessage(live.lock, live.verdict));
  }
}

/**
 * Leader-only: looks at KubeFed's locks every `periodMs` and calls `onKubeFedRunning` (which stops the
 * manager) once one is live. Comparing with the previous look catches a renewing KubeFed whatever the clocks.
 */
export function kubefedLockWatch(opts: {
  host: KubeClient;
  namespace: string;
  periodMs: number;
  log: Logger;
  onKubeFedRunning: (message: string) => void;
}): Runnable {
  return {
    name: 'kubefed-lock-watch',
    leaderOnly: true,
    async run(signal) {
      let previous = new Map<KubeFedLockKind, LeaderElectionRecord | undefined>();
      while (!signal.aborted) {
        try {
          const { locks } = await readKubeFedLocks(opts.host, opts.namespace);
          const live = firstLiveLock(locks, Date.now(), previous);
          if (live) {
            opts.onKubeFedRunning(kubefedRunningMessage(live.lock, live.verdict));
            return;
          }
          previous = new Map(locks.map((l) => [l.kind, l.record]));
        } catch (e) {
          opts.log.debug({ err: errorMessage(e) }, "cannot read KubeFed's leader lock; retrying");
        }
        await sleep(opts.periodMs, signal);
      }
    },
  };
}

/**
 * What main needs for both checks: call `check()` before the manager runs, add `runnable`, run the manager
 * on `signal` (aborted once KubeFed is seen), and afterwards `detected` holds the message, if any.
 */
export function kubefedGuard(opts: {
  host: KubeClient;
  namespace: string;
  periodMs: number;
  log: Logger;
  signal: AbortSignal;
}) {
  const stop = new AbortController();
  const guard = {
    detected: undefined as string | undefined,
    signal: AbortSignal.any([opts.signal, stop.signal]),
    check: () => refuseWhileKubeFedRuns(opts.host, opts.namespace, opts.log),
    runnable: kubefedLockWatch({
      ...opts,
      onKubeFedRunning: (message) => {
        guard.detected = message;
        stop.abort();
      },
    }),
  };
  return guard;
}
