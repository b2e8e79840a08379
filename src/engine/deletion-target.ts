// What deleting a federated object does about one placement cluster (pure): which members are deleted
// from now, waited for, given up on, or owe a deletion that is recorded for later.

import type { KubeObject } from '../kube/client/index.ts';

/** A placement cluster as the engine sees it during a deletion. */
export interface DeletionCluster {
  registered: boolean;
  ready: boolean;
  /** The member cache of a ready cluster. */
  cache?: { object?: KubeObject; pending?: boolean; unavailable?: string; typeNotServed?: boolean };
}

export type DeletionTarget =
  /** Nothing there (not registered, no copy, or the type is not served there). */
  | { kind: 'skip' }
  /** The managed copy to delete (or unlabel). */
  | { kind: 'object'; object: KubeObject }
  /** Wait for it, saying why: a ready member whose cache cannot be read yet, before the bound. */
  | { kind: 'wait'; why: string }
  /** Past the deletion bound: released without it. */
  | { kind: 'abandon' }
  /** Not ready: not waited for; its deletion is recorded and carried out when it returns. */
  | { kind: 'defer' };

export function deletionTarget(
  name: string,
  c: DeletionCluster,
  opts: { abandonUnready: boolean; deferUnready: boolean },
): DeletionTarget {
  if (!c.registered) return { kind: 'skip' };
  let why: string;
  if (!c.ready) {
    if (opts.deferUnready) return { kind: 'defer' };
    why = `cluster "${name}" is not ready`;
  } else {
    const { object, pending, unavailable, typeNotServed } = c.cache ?? {};
    if (typeNotServed) return { kind: 'skip' };
    if (!pending && unavailable === undefined) return object ? { kind: 'object', object } : { kind: 'skip' };
    why = `cluster "${name}": ${unavailable ?? 'cache not synced'}`;
  }
  return opts.abandonUnready ? { kind: 'abandon' } : { kind: 'wait', why };
}
