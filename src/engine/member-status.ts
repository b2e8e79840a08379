// Writes the /status of member objects a source reports on but does not own through a Work (MCS's
// ServiceExports, whose spec is the user's, and its ServiceImports, whose status the engine never writes):
// only when the status changed, never to a member that has just stopped answering, and marking one that
// does not answer so the next writes skip it instead of each waiting for its own timeout.

import { errorMessage, type KubeObject, type ResourceType, TransportError } from '../kube/client/index.ts';
import type { ClusterRegistry } from '../members/cluster-registry.ts';
import { logFailure } from '../runtime/failure-log.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import { type ComputeStatus, type StatusWrite, writeStatusIfChanged } from '../runtime/status.ts';
import { typeMetaOf } from '../runtime/type-meta.ts';

export type MemberStatusWrite<T> =
  | StatusWrite<T>
  /** The member did not answer a moment ago, or no client can be built for it: not tried. */
  | { readonly kind: 'skipped'; readonly reason: string };

/** What the writer needs of the cluster registry. */
export type StatusRegistry = Pick<ClusterRegistry, 'clientFor' | 'isUnresponsive' | 'markUnresponsive'>;

export class MemberStatusWriter {
  readonly #registry: StatusRegistry;
  readonly #log: Logger;

  constructor(registry: StatusRegistry, logger: Logger = silentLogger) {
    this.#registry = registry;
    this.#log = logger;
  }

  /** Writes `compute(object)`'s status to the member object when it differs from the object's own. */
  async write<T extends KubeObject, S>(
    cluster: string,
    type: ResourceType & { kind: string },
    object: T,
    compute: ComputeStatus<T, S>,
  ): Promise<MemberStatusWrite<T>> {
    if (this.#registry.isUnresponsive(cluster)) return { kind: 'skipped', reason: 'unresponsive' };
    let client: ReturnType<ClusterRegistry['clientFor']>;
    try {
      client = this.#registry.clientFor(cluster);
    } catch (e) {
      return { kind: 'skipped', reason: errorMessage(e) };
    }
    const w = await writeStatusIfChanged({ client, type, typeMeta: typeMetaOf(type), object, compute });
    if (w.kind === 'failed' || w.kind === 'conflict') {
      if (w.error instanceof TransportError) this.#registry.markUnresponsive(cluster);
      logFailure(this.#log, 'member status write failed', {
        cluster,
        err: w.error,
        fields: {
          kind: type.kind,
          object: `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`,
        },
      });
    }
    return w;
  }
}
