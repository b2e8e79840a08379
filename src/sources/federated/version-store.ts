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
import { isPlainObject, jsonEqual } from '../../propagation/json.ts';
import {
  type ClusterVersion,
  nextPropagatedVersion,
  overridesHash,
  type PropagatedVersionStatus,
  recordedVersions,
  templateHash,
} from '../../propagation/versions.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { sleep } from '../../util/backoff.ts';

type VersionObject = KubeObject & { status?: PropagatedVersionStatus };

/**
 * Where recorded versions are kept: `status` (default) in the federated object's own
 * `status.propagatedVersion`, written only along with its status; `objects` in PropagatedVersion /
 * ClusterPropagatedVersion objects, as KubeFed does (`--propagated-versions=true`).
 */
export type VersionBackend = 'status' | 'objects';

/** What `status.propagatedVersion` should say after a round, and whether it must be written (status backend). */
export interface StatusVersions {
  propagatedVersion: PropagatedVersionStatus;
  /** Members were written since these versions were last saved: a status write is owed for them alone. */
  unsaved: boolean;
}

export interface VersionRound {
  /** Cluster → the member object's version when this template and these overrides were last applied. */
  recorded: ReadonlyMap<string, string>;
  /**
   * Records the versions written (or found up to date) this round; '' means the member copy was deleted.
   * `membersWritten`: a member object was created or updated this round. The objects backend writes the
   * PropagatedVersion (the promise never rejects); the status backend records in memory and returns undefined.
   */
  record(
    selectedClusters: ReadonlySet<string>,
    updated: ReadonlyMap<string, string>,
    membersWritten: boolean,
  ): Promise<void> | undefined;
  /** Status backend, after `record`: the versions for the status write; undefined otherwise. */
  statusVersions(): StatusVersions | undefined;
}

export interface VersionOwner {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid: string;
}

/**
 * The PropagatedVersion of a federated object whose target kind is `targetKind` (kubefed
 * pkg/controller/util/propagatedversion.go, PropagatedVersionName and PropagatedVersionPrefix).
 */
export function propagatedVersionName(targetKind: string, objectName: string): string {
  return `${propagatedVersionPrefix(targetKind)}${objectName}`;
}

function propagatedVersionPrefix(targetKind: string): string {
  return `${targetKind.toLowerCase()}-`;
}

/** `status.propagatedVersion` if it has the PropagatedVersion status shape (a pruned or hand-edited one has not). */
export function propagatedVersionOf(value: unknown): PropagatedVersionStatus | undefined {
  if (!isPlainObject(value)) return undefined;
  const { templateVersion, overridesVersion, clusterVersions } = value;
  if (typeof templateVersion !== 'string' || typeof overridesVersion !== 'string') return undefined;
  const list = clusterVersions ?? [];
  if (!Array.isArray(list)) return undefined;
  const versions: ClusterVersion[] = [];
  for (const cv of list) {
    if (!isPlainObject(cv) || typeof cv.clusterName !== 'string' || typeof cv.version !== 'string')
      return undefined;
    versions.push({ clusterName: cv.clusterName, version: cv.version });
  }
  return { templateVersion, overridesVersion, clusterVersions: versions };
}

/**
 * The versions a round starts from when this process has recorded none: the federated object's status, else
 * a PropagatedVersion read at start (KubeFed's, or this controller's with `--propagated-versions=true`).
 * Whichever was recorded for the current template and overrides wins: the other one is stale.
 */
export function seedVersions(
  fromStatus: PropagatedVersionStatus | undefined,
  fromObject: PropagatedVersionStatus | undefined,
  templateVersion: string,
  overridesVersion: string,
): PropagatedVersionStatus | undefined {
  const current = (v: PropagatedVersionStatus | undefined) =>
    v !== undefined && v.templateVersion === templateVersion && v.overridesVersion === overridesVersion;
  if (current(fromStatus)) return fromStatus;
  if (current(fromObject)) return fromObject;
  return fromStatus ?? fromObject;
}

/**
 * The recorded versions of one federated type (KubeFed pkg/controller/sync/version/manager.go,
 * VersionManager): what was last written to each member, so an unchanged object is never written again, not
 * even after a restart or a takeover. See VersionBackend for where they are kept. Either way the
 * PropagatedVersions are listed once at start (the status backend only reads them, to take over KubeFed's
 * without a member write) and what is recorded is kept in memory.
 */
export class VersionStore {
  readonly #client: KubeClient;
  readonly #type: ResourceType;
  readonly #kind: string;
  readonly #prefix: string;
  readonly #namespace: string | undefined;
  readonly #backend: VersionBackend;
  readonly #log: Logger;
  /** The PropagatedVersions as last read or written (objects backend), or as read at start (status backend). */
  readonly #cache = new Map<string, { status: PropagatedVersionStatus; resourceVersion?: string }>();
  /**
   * Status backend: what this process recorded, until the informer shows it in the object's status (our own
   * status writes reach the informer late: reading only the status would write members again meanwhile).
   */
  readonly #recorded = new Map<string, StatusVersions>();
  #warnedPruned = false;

  constructor(opts: {
    client: KubeClient;
    /** Federated type is namespaced: versions are PropagatedVersions next to the objects. */
    namespaced: boolean;
    /** Lower-case target kind: names are `<kind>-<federated object name>`. */
    targetKind: string;
    /** Namespaced control plane: only this namespace. */
    namespace?: string;
    backend?: VersionBackend;
    logger?: Logger;
  }) {
    this.#client = opts.client;
    this.#type = opts.namespaced ? PropagatedVersionType : ClusterPropagatedVersionType;
    this.#kind = opts.namespaced ? PROPAGATED_VERSION_KIND : CLUSTER_PROPAGATED_VERSION_KIND;
    this.#prefix = propagatedVersionPrefix(opts.targetKind);
    this.#namespace = opts.namespaced ? opts.namespace : undefined;
    this.#backend = opts.backend ?? 'status';
    this.#log = (opts.logger ?? silentLogger).child({ versions: this.#prefix });
  }

  get backend(): VersionBackend {
    return this.#backend;
  }

  versionName(objectName: string): string {
    return `${this.#prefix}${objectName}`;
  }

  #key(objectName: string, namespace: string | undefined): string {
    const name = this.versionName(objectName);
    return this.#type.namespaced && namespace ? `${namespace}/${name}` : name;
  }

  /**
   * Reads the PropagatedVersions. The status backend only seeds from them: where their API is not served
   * (404) or not granted, it starts without.
   */
  async load(): Promise<void> {
    let list: { items: VersionObject[] };
    try {
      list = await this.#client.listAll<VersionObject>(this.#type, { namespace: this.#namespace });
    } catch (e) {
      if (this.#backend === 'objects' || !(isNotFound(e) || isForbidden(e))) throw e;
      this.#log.info({ err: errorMessage(e) }, 'no propagated versions to take over');
      return;
    }
    for (const item of list.items) {
      const name = item.metadata.name ?? '';
      if (!name.startsWith(this.#prefix) || !item.status) continue;
      const key = item.metadata.namespace ? `${item.metadata.namespace}/${name}` : name;
      this.#cache.set(key, { status: item.status, resourceVersion: item.metadata.resourceVersion });
    }
  }

  get(objectName: string, namespace: string | undefined): PropagatedVersionStatus | undefined {
    const key = this.#key(objectName, namespace);
    return this.#recorded.get(key)?.propagatedVersion ?? this.#cache.get(key)?.status;
  }

  forget(objectName: string, namespace: string | undefined): void {
    const key = this.#key(objectName, namespace);
    this.#cache.delete(key);
    this.#recorded.delete(key);
  }

  /**
   * The member versions recorded for this template and these overrides, and how to record this round's
   * (KubeFed's pkg/controller/sync/version/manager.go: Get before propagating, Update after). `status` is the
   * federated object's status as read in this round.
   */
  round(
    owner: VersionOwner,
    spec: { template: unknown; overrides: unknown },
    status?: { propagatedVersion?: unknown },
  ): VersionRound {
    const templateVersion = templateHash(spec.template);
    const overridesVersion = overridesHash(spec.overrides);
    const fromStatus = propagatedVersionOf(status?.propagatedVersion);
    return this.#backend === 'objects'
      ? this.#objectsRound(owner, templateVersion, overridesVersion, fromStatus)
      : this.#statusRound(owner, templateVersion, overridesVersion, fromStatus);
  }

  #objectsRound(
    owner: VersionOwner,
    templateVersion: string,
    overridesVersion: string,
    fromStatus: PropagatedVersionStatus | undefined,
  ): VersionRound {
    const object = this.#cache.get(this.#key(owner.name, owner.namespace));
    // Without a PropagatedVersion, the versions a run with the status backend left: switching to objects
    // (e.g. on the way back to KubeFed) then writes the PropagatedVersions, not the members.
    const stored = object?.status ?? fromStatus;
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
        return (next.changed || object === undefined) && owner.uid
          ? this.write(owner, next.status)
          : undefined;
      },
      statusVersions: () => undefined,
    };
  }

  #statusRound(
    owner: VersionOwner,
    templateVersion: string,
    overridesVersion: string,
    fromStatus: PropagatedVersionStatus | undefined,
  ): VersionRound {
    const key = this.#key(owner.name, owner.namespace);
    this.#forgetIfShown(key, fromStatus);
    const own = this.#recorded.get(key);
    const fromObject = this.#cache.get(key)?.status;
    const stored =
      own?.propagatedVersion ?? seedVersions(fromStatus, fromObject, templateVersion, overridesVersion);
    // The status supersedes the PropagatedVersion read at start (it is stale, or for an older template).
    if (fromObject && fromStatus && stored === fromStatus) this.#cache.delete(key);
    let result: StatusVersions | undefined;
    return {
      recorded: recordedVersions(stored, templateVersion, overridesVersion),
      record: (selectedClusters, updated, membersWritten) => {
        const next = nextPropagatedVersion({
          stored,
          templateVersion,
          overridesVersion,
          selectedClusters,
          updated,
        });
        const before = this.#recorded.get(key);
        result = {
          propagatedVersion: next.changed ? next.status : (stored ?? next.status),
          unsaved: (before?.unsaved ?? false) || (membersWritten && next.changed),
        };
        if (next.changed || before) this.#recorded.set(key, result);
        return undefined;
      },
      statusVersions: () => result,
    };
  }

  /**
   * Status backend: the cache now holds this status of the owner (its own write, assumed into the informer
   * before the watch event, which then triggers no reconcile to do this).
   */
  shown(owner: VersionOwner, status?: { propagatedVersion?: unknown }): void {
    this.#forgetIfShown(
      this.#key(owner.name, owner.namespace),
      propagatedVersionOf(status?.propagatedVersion),
    );
  }

  /** The status shows what we recorded and nothing is owed: the status alone is enough from now on. */
  #forgetIfShown(key: string, fromStatus: PropagatedVersionStatus | undefined): void {
    const own = this.#recorded.get(key);
    if (own && !own.unsaved && jsonEqual(own.propagatedVersion, fromStatus)) this.#recorded.delete(key);
  }

  /**
   * Status backend: `sent` was written in the status. `readBack` is the status.propagatedVersion the API
   * server returned: missing, the CRD prunes it (KubeFed's own CRDs), which is worth a word once.
   */
  saved(owner: VersionOwner, sent: PropagatedVersionStatus, readBack: unknown): void {
    const own = this.#recorded.get(this.#key(owner.name, owner.namespace));
    if (own && jsonEqual(own.propagatedVersion, sent)) own.unsaved = false;
    if (readBack === undefined && !this.#warnedPruned) {
      this.#warnedPruned = true;
      this.#log.warn(
        { kind: owner.kind },
        "the CRD prunes status.propagatedVersion (KubeFed's own CRD?): recorded versions survive a restart " +
          'only through PropagatedVersions; take over the CRDs (kubefedctl migrate-from-kubefed) or run ' +
          'with --propagated-versions=true',
      );
    }
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
