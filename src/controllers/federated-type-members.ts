import type { KubeObject } from '../kube/client/index.ts';
import type { MemberCache } from '../members/member-caches.ts';
import type { Members } from '../members/members.ts';
import { objectKey } from '../runtime/informer/index.ts';
import type { SyncController } from '../sources/federated/sync-controller.ts';
import type { FederatedTypeConfigController } from '../sources/federated/type-config-controller.ts';

export interface FederatedTypeMembersOptions {
  members: Members;
  ftcs: FederatedTypeConfigController;
  /** The FTC whose member objects are read, e.g. `services` or `deployments.apps`. */
  ftcName: string;
  /** A managed member object of the type changed; `key` is its namespace/name. */
  onObject(cluster: string, key: string): void;
  /** The type was enabled, re-enabled or disabled (its sync controller started, restarted or stopped). */
  onTypeChange?(): void;
}

/**
 * The managed member objects of one federated type, read through the shared member caches while the type is
 * enabled. The cache spec is the one the type's sync controller opens (its target type, the KubeFed namespace
 * when namespaced, the managed label), so both read one informer per member; and as before no member watch of
 * the type runs while its FTC is disabled.
 */
export class FederatedTypeMembers {
  readonly #opts: FederatedTypeMembersOptions;
  #cache: MemberCache | undefined;
  #closed = false;

  constructor(opts: FederatedTypeMembersOptions) {
    this.#opts = opts;
  }

  start(): void {
    const { ftcs, ftcName } = this.#opts;
    ftcs.addSyncListener((ftc, controller) => {
      if (ftc === ftcName) this.#follow(controller);
    });
    this.#follow(ftcs.syncController(ftcName));
  }

  /** The cached managed member object, if that member's cache is loaded (shared: copy before changing it). */
  get(cluster: string, key: string): KubeObject | undefined {
    return this.#cache?.get(cluster, key);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const cache = this.#cache;
    this.#cache = undefined;
    await cache?.close();
  }

  #follow(controller: SyncController | undefined): void {
    if (this.#closed) return;
    const old = this.#cache;
    this.#cache = controller
      ? this.#opts.members.caches.open(controller.memberCacheSpec, {
          onObject: (cluster, o) => this.#opts.onObject(cluster, objectKey(o)),
        })
      : undefined;
    void old?.close();
    this.#opts.onTypeChange?.();
  }
}
