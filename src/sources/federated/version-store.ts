import {
  API_VERSION,
  CLUSTER_PROPAGATED_VERSION_KIND,
  ClusterPropagatedVersionType,
  PROPAGATED_VERSION_KIND,
  PropagatedVersionType,
} from '../../api/core/v1alpha1/index.ts';
import {
  errorMessage,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isNamespaceTerminating,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../../kube/client/index.ts';
import {
  nextPropagatedVersion,
  overridesHash,
  type PropagatedVersionStatus,
  recordedVersions,
  templateHash,
} from '../../propagation/versions.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { sleep } from '../../util/backoff.ts';

type VersionObject = KubeObject & { status?: PropagatedVersionStatus };

export interface VersionRound {
  /** Cluster → the member object's version when this template and these overrides were last applied. */
  recorded: ReadonlyMap<string, string>;
  /** Records the versions written (or found up to date) this round; '' means the member copy was deleted. */
  record(
    selectedClusters: ReadonlySet<string>,
    updated: ReadonlyMap<string, string>,
  ): Promise<void> | undefined;
}

export interface VersionOwner {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid: string;
}

/**
 * The PropagatedVersion / ClusterPropagatedVersion bookkeeping of one federated type (KubeFed
 * pkg/controller/sync/version/manager.go, VersionManager): what was last written to each member, so an
 * unchanged object is never written again, not even after a restart. Kept in memory, loaded once at start,
 * written through when it changes.
 */
export class VersionStore {
  readonly #client: KubeClient;
  readonly #type: ResourceType;
  readonly #kind: string;
  readonly #prefix: string;
  readonly #namespace: string | undefined;
  readonly #log: Logger;
  readonly #cache = new Map<string, { status: PropagatedVersionStatus; resourceVersion?: string }>();

  constructor(opts: {
    client: KubeClient;
    /** Federated type is namespaced: versions are PropagatedVersions next to the objects. */
    namespaced: boolean;
    /** Lower-case target kind: names are `<kind>-<federated object name>`. */
    targetKind: string;
    /** Namespaced control plane: only this namespace. */
    namespace?: string;
    logger?: Logger;
  }) {
    this.#client = opts.client;
    this.#type = opts.namespaced ? PropagatedVersionType : ClusterPropagatedVersionType;
    this.#kind = opts.namespaced ? PROPAGATED_VERSION_KIND : CLUSTER_PROPAGATED_VERSION_KIND;
    this.#prefix = `${opts.targetKind.toLowerCase()}-`;
    this.#namespace = opts.namespaced ? opts.namespace : undefined;
    this.#log = (opts.logger ?? silentLogger).child({ versions: this.#prefix });
  }

  versionName(objectName: string): string {
    return `${this.#prefix}${objectName}`;
  }

  #key(objectName: string, namespace: string | undefined): string {
    const name = this.versionName(objectName);
    return this.#type.namespaced && namespace ? `${namespace}/${name}` : name;
  }

  async load(): Promise<void> {
    const list = await this.#client.listAll<VersionObject>(this.#type, { namespace: this.#namespace });
    for (const item of list.items) {
      const name = item.metadata.name ?? '';
      if (!name.startsWith(this.#prefix) || !item.status) continue;
      const key = item.metadata.namespace ? `${item.metadata.namespace}/${name}` : name;
      this.#cache.set(key, { status: item.status, resourceVersion: item.metadata.resourceVersion });
    }
  }

  get(objectName: string, namespace: string | undefined): PropagatedVersionStatus | undefined {
    return this.#cache.get(this.#key(objectName, namespace))?.status;
  }

  forget(objectName: string, namespace: string | undefined): void {
    this.#cache.delete(this.#key(objectName, namespace));
  }

  /**
   * The member versions recorded for this template and these overrides, and how to record this round's
   * (KubeFed's pkg/controller/sync/version/manager.go: Get before propagating, Update after). `record`
   * returns undefined when nothing changed; its write never throws.
   */
  round(owner: VersionOwner, spec: { template: unknown; overrides: unknown }): VersionRound {
    const templateVersion = templateHash(spec.template);
    const overridesVersion = overridesHash(spec.overrides);
    const stored = this.get(owner.name, owner.namespace);
    return {
      recorded: recordedVersions(stored, templateVersion, overridesVersion),
      record: (selectedClusters, updated) => {
        const next = nextPropagatedVersion({
          stored,
          templateVersion,
          overridesVersion,
          selectedClusters,
          updated,
        });
        return next.changed && owner.uid ? this.write(owner, next.status) : undefined;
      },
    };
  }

  /** Writes `status` for the owner; failures are logged, never thrown (KubeFed only logs them too). */
  async write(owner: VersionOwner, status: PropagatedVersionStatus, deadlineMs = 10_000): Promise<void> {
    const key = this.#key(owner.name, owner.namespace);
    const name = this.versionName(owner.name);
    const namespace = this.#type.namespaced ? owner.namespace : undefined;
    const deadline = Date.now() + deadlineMs;
    let entry = this.#cache.get(key);
    for (let attempt = 0; ; attempt++) {
      try {
        if (!entry?.resourceVersion) {
          const created = await this.#client.create<VersionObject>(this.#type, {
            apiVersion: API_VERSION,
            kind: this.#kind,
            metadata: {
              name,
              ...(namespace ? { namespace } : {}),
              ownerReferences: [
                { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid },
              ],
            },
            spec: {},
          });
          entry = { status, resourceVersion: created.metadata.resourceVersion };
        }
        const updated = await this.#client.update<VersionObject>(
          this.#type,
          {
            apiVersion: API_VERSION,
            kind: this.#kind,
            metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: entry.resourceVersion },
            spec: {},
            status,
          },
          { subresource: 'status' },
        );
        this.#cache.set(key, { status, resourceVersion: updated.metadata.resourceVersion });
        return;
      } catch (e) {
        if (isForbidden(e)) {
          // Anything but a terminating namespace is missing RBAC: say so. Either way, retrying cannot help.
          if (!isNamespaceTerminating(e))
            this.#log.warn({ version: key, err: errorMessage(e) }, 'forbidden to write propagated version');
          return;
        }
        if (Date.now() > deadline) {
          this.#log.warn({ version: key, err: errorMessage(e) }, 'could not write propagated version');
          this.#cache.set(key, { status, resourceVersion: entry?.resourceVersion });
          return;
        }
        if (isAlreadyExists(e) || isConflict(e)) {
          try {
            const current = await this.#client.get<VersionObject>(this.#type, name, namespace);
            entry = { status, resourceVersion: current.metadata.resourceVersion };
          } catch (getErr) {
            if (isNotFound(getErr)) entry = undefined;
          }
        } else if (isNotFound(e)) {
          entry = undefined;
        } else {
          await sleep(Math.min(100 * 2 ** attempt, 2000));
        }
      }
    }
  }
}
