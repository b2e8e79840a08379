// The namespaces of native templates (karmada pkg/controllers/namespace: Karmada sends every namespace to
// every member). Here a namespace goes only where something placed by a policy needs it: the clusters its
// bindings are scheduled to. It is a Work of its own through the same engine, and it is never deleted from a
// member, only released when no longer needed: a member namespace may hold objects that are not ours
// (docs/native-resources.md, differences from Karmada).

import { Dispatcher } from '../../engine/dispatcher.ts';
import type { DesiredObject, ObjectRef, Work, WorkOutcome } from '../../engine/work.ts';
import { CoreTypes, errorMessage, type KubeObject } from '../../kube/client/index.ts';
import type { MemberCache } from '../../members/member-caches.ts';
import type { Members } from '../../members/members.ts';
import { MANAGED_LABEL } from '../../propagation/constants.ts';
import { Controller } from '../../runtime/controller.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { POLICY_SOURCE } from './binding-controller.ts';
import { bindingName } from './binding-name.ts';
import type { Bindings } from './bindings.ts';

const NAMESPACE_TYPE = { ...CoreTypes.namespaces, kind: 'Namespace' };
/** The rendering hash of every namespace copy (they are all the same plain Namespace, see namespaceWork). */
export const NAMESPACE_RENDERING = 'namespace';

/** The versions to record from an outcome: by cluster, those written or found up to date. */
export function recordedNamespaceVersions(outcome: WorkOutcome): Map<string, string> {
  const out = new Map<string, string>();
  for (const [cluster, co] of outcome.clusters)
    for (const o of co.objects) if (o.status === '' && o.version) out.set(cluster, o.version);
  return out;
}

/** The clusters each namespace is needed in: those its bindings are scheduled to (pure). */
export function namespaceClusters(
  bindings: ReadonlyArray<{
    metadata: { namespace?: string };
    spec: { clusters?: ReadonlyArray<{ name: string }> };
  }>,
  namespace: string,
): Set<string> {
  const out = new Set<string>();
  for (const b of bindings) {
    if (b.metadata.namespace !== namespace) continue;
    for (const c of b.spec.clusters ?? []) out.add(c.name);
  }
  return out;
}

/**
 * The Work of one namespace: a plain Namespace of that name in each cluster that needs it. `recorded`: the
 * member versions last written or found up to date, by cluster, so that an unchanged copy is not written again
 * on every change of a binding in the namespace; after a restart the rendering stamped on the copy stands in.
 */
export function namespaceWork(
  namespace: string,
  clusters: ReadonlySet<string>,
  event: Work['event'],
  recorded: ReadonlyMap<string, string> = new Map(),
): Work {
  const ref: ObjectRef = { type: NAMESPACE_TYPE, name: namespace };
  const desiredFor = (cluster: string): DesiredObject => ({
    ...ref,
    recordedVersion: recorded.get(cluster),
    // What a member receives does not depend on anything but the name: the rendering is always the same.
    appliedHash: NAMESPACE_RENDERING,
    render: (live: KubeObject | undefined) => ({
      object: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: namespace,
          labels: { ...(live?.metadata.labels ?? {}) },
          annotations: { ...(live?.metadata.annotations ?? {}) },
        },
        ...(live?.spec ? { spec: live.spec } : {}),
      },
      warnings: [],
    }),
  });
  return {
    owner: { source: POLICY_SOURCE, kind: 'Namespace', name: namespace, uid: '' },
    objects: [ref],
    clusters: new Map([...clusters].map((c) => [c, [desiredFor(c)]])),
    adopt: false,
    // Never deleted: released once no template needs it there (it may hold objects that are not ours).
    keep: () => true,
    event,
  };
}

export interface NamespaceControllerOptions {
  members: Members;
  bindings: Bindings;
  logger?: Logger;
}

export class NamespaceController {
  readonly controller: Controller;
  readonly #opts: NamespaceControllerOptions;
  readonly #log: Logger;
  readonly #dispatcher: Dispatcher;
  #cache: MemberCache | undefined;
  /** Per namespace, the member versions last written or found up to date, by cluster. */
  readonly #recorded = new Map<string, Map<string, string>>();

  constructor(opts: NamespaceControllerOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: 'policy-namespaces' });
    this.controller = new Controller({
      name: 'policy-namespaces',
      logger: this.#log,
      reconcile: (k) => this.reconcile(k),
    });
    this.#dispatcher = new Dispatcher({
      registry: opts.members.registry,
      cacheFor: (t) => (t.group === '' && t.plural === 'namespaces' ? this.#cache : undefined),
      logger: this.#log,
    });
    this.controller
      .cache(opts.members.asCache())
      .source((enqueue) =>
        opts.bindings.addListener((_key, b) => {
          if (b.metadata.namespace) enqueue(b.metadata.namespace);
          else if (b.spec.resource?.kind === 'Namespace') enqueue(b.spec.resource.name);
        }),
      )
      .source((enqueue) => {
        // The same member cache as the Federated<Kind> source's namespaces (same spec, shared informers).
        this.#cache = opts.members.caches.open(
          { type: NAMESPACE_TYPE, labelSelector: `${MANAGED_LABEL}=true` },
          {
            onObject: (_c, o) => {
              if (o.metadata.annotations?.['kubefed-ts.io/owner']?.startsWith(`${POLICY_SOURCE}:Namespace:`))
                enqueue(o.metadata.name ?? '', 1_000);
            },
            onCacheSynced: () => this.#enqueueAll(enqueue),
            onClusterChange: () => this.#enqueueAll(enqueue),
          },
        );
        return () => this.#cache?.close();
      });
  }

  #enqueueAll(enqueue: (key: string) => void): void {
    for (const b of this.#opts.bindings.list()) if (b.metadata.namespace) enqueue(b.metadata.namespace);
  }

  async reconcile(namespace: string): Promise<ReconcileResult> {
    // A Namespace placed by a policy of its own (a ClusterPropagationPolicy selecting it) is that binding's:
    // release ours, so the two never fight over it.
    const own = this.#opts.bindings.get(bindingName('Namespace', namespace));
    const clusters = own ? new Set<string>() : namespaceClusters(this.#opts.bindings.list(), namespace);
    try {
      const outcome = await this.#dispatcher.apply(
        namespaceWork(
          namespace,
          clusters,
          (type, reason, message) => this.#log.debug({ namespace, type, reason, message }, 'namespace event'),
          this.#recorded.get(namespace),
        ),
      );
      if (outcome.pending) return requeueAfter(1_000);
      const recorded = recordedNamespaceVersions(outcome);
      if (recorded.size > 0) this.#recorded.set(namespace, recorded);
      else this.#recorded.delete(namespace);
      return ok();
    } catch (e) {
      this.#log.warn({ namespace, err: errorMessage(e) }, 'cannot sync namespace');
      return retry(e);
    }
  }
}
