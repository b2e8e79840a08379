import {
  ApiError,
  errorMessage,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  TransportError,
} from '../kube/client/index.ts';
import type { ClusterRegistry } from '../members/cluster-registry.ts';
import type { MemberCache } from '../members/member-caches.ts';
import type { Members } from '../members/members.ts';
import { ClusterStatus, inClusterFailureReason, MANAGED_LABEL } from '../propagation/constants.ts';
import { buildClusterObject } from '../propagation/desired.ts';
import { needsUpdate, objectVersion } from '../propagation/versions.ts';
import { truncateMiddle } from '../runtime/events.ts';
import { logFailure } from '../runtime/failure-log.ts';
import { type Logger, silentLogger } from '../runtime/logger.ts';
import { timedDispatch } from '../runtime/metrics.ts';
import { deletionTarget } from './deletion-target.ts';
import {
  type DeletionOutcome,
  emptyOutcome,
  type PropagationOutcome,
  type PropagationRequest,
  type TargetType,
} from './types.ts';

/** KubeFed's dispatcher waits this long for the member operations of one reconcile. */
export const OPERATION_TIMEOUT_MS = 30_000;

export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface PropagationEngineOptions {
  members: Members;
  target: TargetType;
  /** Member objects are watched in this namespace only (namespaced control plane). */
  namespace?: string;
  logger?: Logger;
  /** A managed member object changed. */
  onMemberObject(cluster: string, key: string): void;
  onClusterChange(cluster: string, ready: boolean): void;
  onCacheSynced?(cluster: string): void;
  operationTimeoutMs?: number;
}

type OpResult = {
  status: string;
  message?: string;
  object?: KubeObject;
  version?: string;
  updated?: boolean;
  /** Drop the cluster's status entry (a successful label removal). */
  drop?: boolean;
};

/**
 * The propagation engine for one target type: member caches plus the per-cluster create / update / delete /
 * unlabel decisions of KubeFed's sync controller (§3.5.2–3.5.5, 3.5.8). It knows nothing of where template,
 * placement and overrides come from, so any front end can drive it. Member operations run concurrently and
 * each is bounded, so a slow or throttling member delays only its own entry.
 */
export class PropagationEngine {
  readonly target: TargetType;
  readonly #opts: PropagationEngineOptions;
  readonly #log: Logger;
  #members: MemberCache | undefined;
  readonly #registry: ClusterRegistry;
  readonly #type: ResourceType;

  constructor(opts: PropagationEngineOptions) {
    this.#opts = opts;
    this.target = opts.target;
    this.#type = {
      group: opts.target.group,
      version: opts.target.version,
      plural: opts.target.plural,
      namespaced: opts.target.namespaced,
      kind: opts.target.kind,
    };
    this.#log = (opts.logger ?? silentLogger).child({ target: opts.target.plural });
    this.#registry = opts.members.registry;
  }

  start(): void {
    const opts = this.#opts;
    this.#members ??= opts.members.caches.open(
      { type: this.#type, namespace: opts.namespace, labelSelector: `${MANAGED_LABEL}=true` },
      {
        onObject: (cluster, o) => {
          const ns = o.metadata.namespace;
          opts.onMemberObject(cluster, ns ? `${ns}/${o.metadata.name}` : (o.metadata.name ?? ''));
        },
        onClusterChange: opts.onClusterChange,
        onCacheSynced: opts.onCacheSynced,
      },
    );
  }

  async stop(): Promise<void> {
    await this.#members?.close();
  }

  /** The cached member object (managed-labelled ones only), or why it cannot be known. */
  cached(
    cluster: string,
    key: string,
  ): { object?: KubeObject; unavailable?: string; pending?: boolean; typeNotServed?: boolean } {
    const state = this.#members?.state(cluster) ?? { kind: 'none' as const };
    switch (state.kind) {
      case 'synced':
        return { object: state.store.get(key) };
      case 'syncing':
        return { pending: true };
      case 'none':
        return { unavailable: 'cluster is not ready' };
      case 'typeNotServed':
        return { typeNotServed: true };
      default:
        return { unavailable: state.message };
    }
  }

  /**
   * uid of the managed member object as last seen, also once the member is no longer ready (its cache is
   * kept until it is ready again); undefined when this process never saw it.
   */
  lastKnownUid(cluster: string, key: string): string | undefined {
    return this.#members?.lastSeen(cluster, key)?.metadata.uid;
  }

  /** Brings every member in line with the request (§3.5.2 step 5–6). */
  async propagate(req: PropagationRequest): Promise<PropagationOutcome> {
    const out = emptyOutcome();
    const key = this.#key(req);
    const ops: Array<Promise<void>> = [];
    const registry = this.#registry;
    for (const cluster of registry.list()) {
      const name = cluster.metadata.name ?? '';
      const selected = req.selected.has(name);
      if (!registry.isReady(name)) {
        if (selected) {
          out.statuses.set(name, ClusterStatus.ClusterNotReady);
          out.memberObjects.set(name, undefined);
          req.event('Warning', 'ClusterNotReady', `Cluster "${name}" is not ready`);
        }
        continue;
      }
      const state = this.#members?.state(name) ?? { kind: 'none' as const };
      if (state.kind === 'syncing' || state.kind === 'none') {
        out.pending = true;
        continue;
      }
      if (state.kind !== 'synced') {
        if (selected || state.kind === 'failed') {
          const status =
            state.kind === 'typeNotServed'
              ? ClusterStatus.TypeNotServed
              : state.kind === 'clientError'
                ? ClusterStatus.ClientRetrievalFailed
                : ClusterStatus.CachedRetrievalFailed;
          out.statuses.set(name, status);
          out.messages.set(name, state.message);
        }
        if (selected) out.memberObjects.set(name, undefined);
        continue;
      }
      const obj = state.store.get(key);
      if (!selected) {
        if (!obj) continue;
        if (obj.metadata.deletionTimestamp) {
          out.statuses.set(name, ClusterStatus.WaitingForRemoval);
          continue;
        }
        ops.push(
          this.#bounded(
            name,
            this.#isHostNamespace(req, obj)
              ? this.#unlabel(req, name, obj)
              : this.#delete(req, name, obj, undefined),
            this.#isHostNamespace(req, obj)
              ? ClusterStatus.LabelRemovalTimedOut
              : ClusterStatus.DeletionTimedOut,
          ).then((r) => this.#record(out, name, r, false)),
        );
        continue;
      }
      if (req.overridesError !== undefined) {
        out.statuses.set(name, ClusterStatus.ApplyOverridesFailed);
        out.messages.set(name, req.overridesError);
        out.memberObjects.set(name, obj);
        if (obj?.status !== undefined) out.remoteStatuses.set(name, obj.status);
        continue;
      }
      const op = obj ? this.#update(req, name, obj) : this.#create(req, name);
      ops.push(
        this.#bounded(name, op, obj ? ClusterStatus.UpdateTimedOut : ClusterStatus.CreationTimedOut).then(
          (r) => this.#record(out, name, r, true, obj),
        ),
      );
    }
    if (req.overridesError !== undefined && req.selected.size > 0) {
      req.event('Warning', 'ApplyOverridesFailed', `Invalid overrides: ${req.overridesError}`);
    }
    await Promise.all(ops);
    return out;
  }

  #record(out: PropagationOutcome, name: string, r: OpResult, selected: boolean, before?: KubeObject): void {
    if (!r.drop) out.statuses.set(name, r.status);
    if (!r.drop && r.status && r.message) out.messages.set(name, r.message);
    if (r.version) out.versions.set(name, r.version);
    if (r.updated) out.resourcesUpdated = true;
    if (selected) {
      const obj = r.object ?? before;
      out.memberObjects.set(name, obj);
      if (obj?.status !== undefined) out.remoteStatuses.set(name, obj.status);
    }
  }

  async #bounded(cluster: string, op: Promise<OpResult>, timedOut: string): Promise<OpResult> {
    const ms = this.#opts.operationTimeoutMs ?? OPERATION_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<OpResult>((resolve) => {
      timer = setTimeout(() => {
        logFailure(this.#log, 'member operation timed out', {
          cluster,
          err: `no answer within ${ms} ms`,
          kind: 'timeout',
        });
        resolve({ status: timedOut });
      }, ms);
    });
    try {
      return await Promise.race([
        op.catch((e: unknown) => {
          // The operations map their own errors; anything escaping is a bug, reported, never a crash.
          logFailure(this.#log, 'member operation threw', { cluster, err: e });
          return { status: ClusterStatus.ComputeResourceFailed };
        }),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  #key(req: { name: string; namespace?: string }): string {
    return this.target.namespaced && req.namespace ? `${req.namespace}/${req.name}` : req.name;
  }

  #describe(req: { name: string; namespace?: string }): string {
    return this.#key(req);
  }

  #client(cluster: string): KubeClient {
    return this.#registry.clientFor(cluster);
  }

  #isHostNamespace(req: PropagationRequest, obj: KubeObject): boolean {
    return (
      this.target.kind === 'Namespace' && !!req.hostNamespaceUid && obj.metadata.uid === req.hostNamespaceUid
    );
  }

  #fail(req: PropagationRequest, op: string, cluster: string, e: unknown, status: string): OpResult {
    if (e instanceof TransportError) this.#registry.markUnresponsive(cluster);
    const msg = `Failed to ${op} ${this.target.kind} "${this.#describe(req)}" in cluster "${cluster}": ${errorMessage(e)}`;
    req.event('Warning', inClusterFailureReason(op), msg);
    logFailure(this.#log, `${op} failed`, { cluster, err: e, fields: { object: this.#describe(req) } });
    return { status, message: truncateMiddle(errorMessage(e), 1024) };
  }

  async #create(req: PropagationRequest, cluster: string): Promise<OpResult> {
    let desired: KubeObject;
    try {
      desired = this.#desired(req, cluster, undefined);
    } catch (e) {
      return this.#buildFailure(req, cluster, e);
    }
    if (this.#registry.isUnresponsive(cluster)) return { status: ClusterStatus.CreationTimedOut };
    req.event(
      'Normal',
      'CreateInCluster',
      `Creating ${this.target.kind} "${this.#describe(req)}" in cluster "${cluster}"`,
    );
    let client: KubeClient;
    try {
      client = this.#client(cluster);
    } catch (e) {
      return this.#fail(req, 'create', cluster, e, ClusterStatus.ClientRetrievalFailed);
    }
    try {
      const created = await timedDispatch('create', cluster, client.create(this.#type, desired));
      this.#members?.assumeWritten(cluster, created, undefined);
      return { status: '', object: created, version: objectVersion(created), updated: true };
    } catch (e) {
      const namespaceTimeout =
        this.target.kind === 'Namespace' && e instanceof ApiError && e.statusCode === 504;
      if (!isAlreadyExists(e) && !namespaceTimeout) {
        return this.#fail(req, 'create', cluster, e, ClusterStatus.CreationFailed);
      }
      let existing: KubeObject;
      try {
        existing = await client.get(this.#type, req.name, this.target.namespaced ? req.namespace : undefined);
      } catch (getErr) {
        return this.#fail(req, 'retrieve', cluster, getErr, ClusterStatus.RetrievalFailed);
      }
      if (!req.adoptResources && !this.#isHostNamespace(req, existing)) {
        return { status: ClusterStatus.AlreadyExists, object: existing };
      }
      req.event(
        'Warning',
        'CreateInClusterFailed',
        `Failed to create ${this.target.kind} "${this.#describe(req)}" in cluster "${cluster}": ${errorMessage(e)}. ` +
          'An update will be attempted instead of a creation due to an existing resource',
      );
      return this.#update(req, cluster, existing);
    }
  }

  async #update(req: PropagationRequest, cluster: string, member: KubeObject): Promise<OpResult> {
    if (member.metadata.labels?.[MANAGED_LABEL] === 'false') {
      return { status: ClusterStatus.ManagedLabelFalse, object: member };
    }
    let desired: KubeObject;
    try {
      desired = this.#desired(req, cluster, member);
    } catch (e) {
      return this.#buildFailure(req, cluster, e);
    }
    if (!needsUpdate({ recordedVersion: req.recordedVersions.get(cluster), member, desired })) {
      return { status: '', object: member, version: req.recordedVersions.get(cluster) };
    }
    if (this.#registry.isUnresponsive(cluster)) return { status: ClusterStatus.UpdateTimedOut };
    req.event(
      'Normal',
      'UpdateInCluster',
      `Updating ${this.target.kind} "${this.#describe(req)}" in cluster "${cluster}"`,
    );
    try {
      const updated = await timedDispatch(
        'update',
        cluster,
        this.#client(cluster).update(this.#type, desired),
      );
      this.#members?.assumeWritten(cluster, updated, member.metadata.resourceVersion);
      return { status: '', object: updated, version: objectVersion(updated), updated: true };
    } catch (e) {
      return this.#fail(req, 'update', cluster, e, ClusterStatus.UpdateFailed);
    }
  }

  #desired(req: PropagationRequest, cluster: string, member: KubeObject | undefined): KubeObject {
    const { object, warnings } = buildClusterObject({
      template: req.template,
      name: req.name,
      namespace: this.target.namespaced ? req.namespace : undefined,
      target: this.target,
      retainReplicas: req.retainReplicas,
      member,
      overrides: req.overrides.get(cluster) ?? [],
    });
    for (const w of warnings) req.event('Warning', w.reason, w.message);
    return object;
  }

  #buildFailure(req: PropagationRequest, cluster: string, e: unknown): OpResult {
    const name = e instanceof Error ? e.name : '';
    const status =
      name === 'FieldRetentionError'
        ? ClusterStatus.FieldRetentionFailed
        : name === 'JsonPatchError' || name === 'OverridesError'
          ? ClusterStatus.ApplyOverridesFailed
          : ClusterStatus.ComputeResourceFailed;
    req.event('Warning', status, `Cluster "${cluster}": ${errorMessage(e)}`);
    return { status, message: errorMessage(e) };
  }

  async #delete(
    req: { name: string; namespace?: string; event: PropagationRequest['event'] },
    cluster: string,
    obj: KubeObject,
    options: DeleteOptions | undefined,
  ): Promise<OpResult> {
    if (this.#registry.isUnresponsive(cluster)) return { status: ClusterStatus.DeletionTimedOut };
    req.event(
      'Normal',
      'DeleteInCluster',
      `Deleting ${this.target.kind} "${this.#describe(req)}" in cluster "${cluster}"`,
    );
    try {
      await timedDispatch(
        'delete',
        cluster,
        this.#client(cluster).delete(this.#type, obj.metadata.name ?? '', {
          namespace: obj.metadata.namespace,
          ...options,
        }),
      );
      return { status: ClusterStatus.WaitingForRemoval };
    } catch (e) {
      if (isNotFound(e)) return { status: ClusterStatus.WaitingForRemoval };
      return this.#fail(req as PropagationRequest, 'delete', cluster, e, ClusterStatus.DeletionFailed);
    }
  }

  async #unlabel(
    req: { name: string; namespace?: string; event: PropagationRequest['event'] },
    cluster: string,
    obj: KubeObject,
  ): Promise<OpResult> {
    if (obj.metadata.labels?.[MANAGED_LABEL] !== 'true') return { status: '', drop: true };
    if (this.#registry.isUnresponsive(cluster)) return { status: ClusterStatus.LabelRemovalTimedOut };
    req.event(
      'Normal',
      'RemoveManagedLabelFromInCluster',
      `Removing managed label from ${this.target.kind} "${this.#describe(req)}" in cluster "${cluster}"`,
    );
    try {
      await this.#client(cluster).patch(
        this.#type,
        obj.metadata.name ?? '',
        { metadata: { labels: { [MANAGED_LABEL]: null } } },
        { namespace: obj.metadata.namespace, patchType: 'merge' },
      );
      return { status: '', drop: true };
    } catch (e) {
      if (isNotFound(e)) return { status: '', drop: true };
      return this.#fail(
        req as PropagationRequest,
        'remove managed label from',
        cluster,
        e,
        ClusterStatus.LabelRemovalFailed,
      );
    }
  }

  /**
   * No federated object exists for `key` any more (or never did): a managed member object is an orphan
   * and loses its managed label, so it is left alone from now on (§3.5.1).
   */
  async unlabelOrphans(
    req: {
      name: string;
      namespace?: string;
      event: PropagationRequest['event'];
    },
    /** Clusters whose copy is owed a deletion: left for the pending-deletion controller. */
    owesDeletion: (cluster: string) => boolean = () => false,
  ): Promise<string[]> {
    const key = this.#key(req);
    const errors: string[] = [];
    await Promise.all(
      this.#registry.list().map(async (c) => {
        const name = c.metadata.name ?? '';
        if (owesDeletion(name)) return;
        const { object } = this.cached(name, key);
        if (!object || object.metadata.deletionTimestamp) return;
        const r = await this.#unlabel(req, name, object);
        if (r.status) errors.push(`${name}: ${r.status}`);
      }),
    );
    return errors;
  }

  /**
   * The cached object of a placement cluster during deletion, or why there is nothing to do there (yet):
   * `skip` (not registered, or it does not serve the type, so it cannot hold the object), or `wait` (not ready
   * or cache unavailable; given up on — "abandoned" — once the deletion bound has passed). With
   * `deferUnready`, a cluster that is not ready is not waited for but listed in `deferred`: its deletion is
   * recorded and carried out when it returns (src/sources/federated/pending-deletion).
   */
  #deletionTarget(
    name: string,
    key: string,
    abandonUnready: boolean,
    out: DeletionOutcome,
    deferUnready = false,
  ): KubeObject | 'skip' | 'wait' {
    const registered = this.#registry.get(name) !== undefined;
    const ready = registered && this.#registry.isReady(name);
    const t = deletionTarget(
      name,
      { registered, ready, cache: ready ? this.cached(name, key) : undefined },
      { abandonUnready, deferUnready },
    );
    switch (t.kind) {
      case 'skip':
        return 'skip';
      case 'object':
        return t.object;
      case 'defer':
        out.deferred.push(name);
        return 'wait';
      case 'abandon':
        out.abandoned.push(name);
        return 'wait';
      case 'wait':
        out.waiting.push(t.why);
        return 'wait';
    }
  }

  /** Orphaning deletion: unlabel the object in every placement cluster (§3.5.8 step 3). */
  async orphan(
    req: { name: string; namespace?: string; event: PropagationRequest['event'] },
    placement: ReadonlySet<string>,
    abandonUnready: boolean,
  ): Promise<DeletionOutcome> {
    const out: DeletionOutcome = { remaining: [], waiting: [], errors: [], abandoned: [], deferred: [] };
    const key = this.#key(req);
    await Promise.all(
      [...placement].map(async (name) => {
        const object = this.#deletionTarget(name, key, abandonUnready, out);
        if (typeof object === 'string' || object.metadata.deletionTimestamp) return;
        const r = await this.#unlabel(req, name, object);
        if (r.status) out.errors.push(`cluster "${name}": ${r.status}`);
      }),
    );
    return sortOutcome(out);
  }

  /** Deletes the object from every placement cluster (§3.5.8 step 5). */
  async deleteFromMembers(
    req: { name: string; namespace?: string; event: PropagationRequest['event']; hostNamespaceUid?: string },
    placement: ReadonlySet<string>,
    options: DeleteOptions | undefined,
    abandonUnready: boolean,
    deferUnready = false,
  ): Promise<DeletionOutcome> {
    const out: DeletionOutcome = { remaining: [], waiting: [], errors: [], abandoned: [], deferred: [] };
    const key = this.#key(req);
    await Promise.all(
      [...placement].map(async (name) => {
        const object = this.#deletionTarget(name, key, abandonUnready, out, deferUnready);
        if (typeof object === 'string') return;
        const host =
          this.target.kind === 'Namespace' &&
          !!req.hostNamespaceUid &&
          object.metadata.uid === req.hostNamespaceUid;
        if (host && object.metadata.deletionTimestamp) return;
        out.remaining.push(name);
        if (object.metadata.deletionTimestamp) return;
        const r = host
          ? await this.#unlabel(req, name, object)
          : await this.#delete(req, name, object, options);
        if (r.status && r.status !== ClusterStatus.WaitingForRemoval)
          out.errors.push(`cluster "${name}": ${r.status}`);
      }),
    );
    return sortOutcome(out);
  }

  /**
   * Checks with live reads, not the cache, that no placement cluster still holds a managed copy
   * (§3.5.8 step 7). Returns the clusters that still do or cannot be checked.
   */
  async verifyDeleted(
    req: { name: string; namespace?: string; hostNamespaceUid?: string },
    placement: ReadonlySet<string>,
    skip: ReadonlySet<string>,
  ): Promise<string[]> {
    const left: string[] = [];
    await Promise.all(
      [...placement].map(async (name) => {
        if (skip.has(name) || !this.#registry.get(name)) return;
        if (!this.#registry.isReady(name)) {
          left.push(name);
          return;
        }
        try {
          const obj = await this.#client(name).get(
            this.#type,
            req.name,
            this.target.namespaced ? req.namespace : undefined,
          );
          const host = this.target.kind === 'Namespace' && obj.metadata.uid === req.hostNamespaceUid;
          if (obj.metadata.labels?.[MANAGED_LABEL] !== 'true') return;
          if (host && obj.metadata.deletionTimestamp) return;
          left.push(name);
        } catch (e) {
          if (isNotFound(e)) return;
          // A member that no longer serves the type cannot hold the object.
          if (e instanceof ApiError && e.statusCode === 404) return;
          left.push(name);
        }
      }),
    );
    return left.sort();
  }
}

function sortOutcome(o: DeletionOutcome): DeletionOutcome {
  o.remaining.sort();
  o.waiting.sort();
  o.errors.sort();
  o.abandoned.sort();
  o.deferred.sort();
  return o;
}
