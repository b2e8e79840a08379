// PropagationPolicy and ClusterPropagationPolicy lifecycle (karmada pkg/detector/detector.go
// HandlePropagationPolicyDeletion and the policy webhook's create-time label), plus the status Karmada's
// policies lack (karmada#4048): which templates a policy claims and whether it is usable.

import { randomUUID } from 'node:crypto';
import {
  CPP_FINALIZER,
  CPP_PERMANENT_ID_LABEL,
  type MetaCondition,
  type PolicyStatus,
  PP_FINALIZER,
  PP_PERMANENT_ID_LABEL,
} from '../../api/policy/v1alpha1/index.ts';
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '../../kube/client/index.ts';
import type { Members } from '../../members/members.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import { hasFinalizer, removeFinalizer } from '../../runtime/finalizers.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { statusWriteResult, writeStatusIfChanged } from '../../runtime/status.ts';
import { typeMetaOf } from '../../runtime/type-meta.ts';
import { conditionTimestamp } from '../../util/conditions.ts';
import type { Bindings } from './bindings.ts';
import { claimOf } from './claim.ts';
import { unclaim } from './claim-writer.ts';
import { bindingKeyOfTemplate, parsePolicyKey, policyKey, templateKey } from './keys.ts';
import type { PolicyKind } from './matching.ts';
import { overridePolicyPriority } from './overrides/select.ts';
import { type Policies, type PolicyObject, PolicyTypes, permanentIdOf } from './policies.ts';
import { invalidOverrideSelectors, overrideConditions, policyConditions } from './policy-status.ts';
import type { Templates } from './templates.ts';

/** At most this many claimed templates are listed in a policy's status (claimedCount has the total). */
export const MAX_LISTED_CLAIMS = 100;

export interface PolicyControllerOptions {
  host: KubeClient;
  templates: Templates;
  policies: Policies;
  bindings: Bindings;
  /** Re-examines a template after its claim was released (the detector's enqueue). */
  reexamine(templateKey: string): void;
  /**
   * The member clusters, for the ClustersKnown condition: waited for before the first status, so that a
   * restart never reports every named cluster as unknown while the registry loads.
   */
  members: Members;
  logger?: Logger;
}

export class PolicyController {
  readonly #opts: PolicyControllerOptions;
  readonly controller: Controller;

  constructor(opts: PolicyControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: 'propagation-policy' });
    this.controller = new Controller({
      name: 'propagation-policy',
      logger: log,
      reconcile: (k) => this.reconcile(k),
    });
    this.controller
      .cache(opts.members.asCache())
      .source((enqueue) =>
        opts.policies.addListener((kind, obj) => {
          enqueue(policyKey(kind, obj.metadata.namespace, obj.metadata.name ?? ''));
        }),
      )
      // A template claimed or released changes its policy's status: batched, one write per second at most.
      .source((enqueue) =>
        opts.templates.addListener((_kind, obj) => {
          const claim = claimOf(obj.metadata);
          if (claim) enqueue(policyKey(claim.kind, claim.namespace, claim.name), 1_000);
          // The override policies that may shape it: their status counts it.
          for (const o of opts.policies.op.store.list(obj.metadata.namespace ?? ''))
            enqueue(policyKey('OverridePolicy', o.metadata.namespace, o.metadata.name ?? ''), 1_000);
          for (const o of opts.policies.cop.store.list())
            enqueue(policyKey('ClusterOverridePolicy', undefined, o.metadata.name ?? ''), 1_000);
        }),
      );
  }

  /** Every policy, e.g. after clusters changed (UnknownClusters). */
  enqueueAll(delayMs?: number): void {
    for (const p of this.#opts.policies.pp.store.list())
      this.controller.enqueue(
        policyKey('PropagationPolicy', p.metadata.namespace, p.metadata.name ?? ''),
        delayMs,
      );
    for (const p of this.#opts.policies.cpp.store.list())
      this.controller.enqueue(
        policyKey('ClusterPropagationPolicy', undefined, p.metadata.name ?? ''),
        delayMs,
      );
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const k = parsePolicyKey(key);
    if (k.kind === 'OverridePolicy' || k.kind === 'ClusterOverridePolicy') {
      try {
        return await this.#writeOverrideStatus(k.kind, k.namespace, k.name);
      } catch (e) {
        return isNotFound(e) ? ok() : retry(e);
      }
    }
    const kind = k.kind as PolicyKind;
    const policy = this.#opts.policies.policy(kind, k.namespace, k.name);
    if (!policy) return ok();
    try {
      if (policy.metadata.deletionTimestamp) return await this.#delete(kind, policy);
      const labelled = await this.#ensureIdentity(kind, policy);
      if (labelled === 'written') return ok(); // its watch event brings the labelled policy back
      return await this.#writeStatus(kind, policy);
    } catch (e) {
      if (isConflict(e)) return requeueAfter(1_000);
      if (isNotFound(e)) return ok();
      return retry(e);
    }
  }

  /**
   * The permanent-id label and the finalizer, which Karmada's webhook adds at creation: added here when no
   * webhook did (a federation API server without the admission webhook), so a policy always works.
   */
  async #ensureIdentity(kind: PolicyKind, policy: PolicyObject): Promise<'written' | 'unchanged'> {
    const label = kind === 'PropagationPolicy' ? PP_PERMANENT_ID_LABEL : CPP_PERMANENT_ID_LABEL;
    const finalizer = kind === 'PropagationPolicy' ? PP_FINALIZER : CPP_FINALIZER;
    const needsLabel = !policy.metadata.labels?.[label];
    const needsFinalizer = !hasFinalizer(policy, finalizer);
    if (!needsLabel && !needsFinalizer) return 'unchanged';
    await this.#opts.host.patch(
      PolicyTypes[kind],
      policy.metadata.name ?? '',
      {
        metadata: {
          resourceVersion: policy.metadata.resourceVersion,
          ...(needsLabel ? { labels: { [label]: randomUUID() } } : {}),
          ...(needsFinalizer ? { finalizers: [...(policy.metadata.finalizers ?? []), finalizer] } : {}),
        },
      },
      { namespace: policy.metadata.namespace },
    );
    return 'written';
  }

  /** The templates this policy claims now, across every watched kind. */
  #claimed(kind: PolicyKind, policy: PolicyObject): Array<{ template: KubeObject; key: string }> {
    const id = permanentIdOf(kind, policy);
    if (!id) return [];
    const label = kind === 'PropagationPolicy' ? PP_PERMANENT_ID_LABEL : CPP_PERMANENT_ID_LABEL;
    const ns = kind === 'PropagationPolicy' ? policy.metadata.namespace : undefined;
    const out: Array<{ template: KubeObject; key: string }> = [];
    for (const tk of this.#opts.templates.kinds()) {
      for (const t of this.#opts.templates.list(tk, ns)) {
        if (t.metadata.labels?.[label] === id)
          out.push({ template: { ...t, apiVersion: tk.apiVersion, kind: tk.kind }, key: templateKey(tk, t) });
      }
    }
    return out;
  }

  /**
   * Karmada's policy deletion: every claimed template loses the claim (binding first, then template), the
   * member copies stay, and the templates are looked at again, so the next matching policy takes them.
   */
  async #delete(kind: PolicyKind, policy: PolicyObject): Promise<ReconcileResult> {
    const finalizer = kind === 'PropagationPolicy' ? PP_FINALIZER : CPP_FINALIZER;
    if (!hasFinalizer(policy, finalizer)) return ok();
    const id = permanentIdOf(kind, policy);
    const released: string[] = [];
    for (const { template, key } of this.#claimed(kind, policy)) {
      const type = this.#opts.templates.typeOf({
        apiVersion: template.apiVersion ?? '',
        kind: template.kind ?? '',
      });
      if (!type) continue;
      await unclaim(
        this.#opts.host,
        type,
        template,
        this.#opts.bindings.get(bindingKeyOfTemplate(template)),
        id,
      );
      released.push(key);
    }
    const w = await removeFinalizer(this.#opts.host, PolicyTypes[kind], policy, finalizer);
    if (!w.done) return w.result;
    for (const key of released) this.#opts.reexamine(key);
    return ok();
  }

  async #writeStatus(kind: PolicyKind, policy: PolicyObject): Promise<ReconcileResult> {
    const claimed = this.#claimed(kind, policy);
    const refs = claimed
      .map(({ template: t }) => ({
        apiVersion: t.apiVersion ?? '',
        kind: t.kind ?? '',
        ...(t.metadata.namespace ? { namespace: t.metadata.namespace } : {}),
        name: t.metadata.name ?? '',
      }))
      .sort((a, b) =>
        `${a.kind}/${a.namespace}/${a.name}`.localeCompare(`${b.kind}/${b.namespace}/${b.name}`),
      );
    const unresolved = (policy.spec?.resourceSelectors ?? [])
      .map((s) => this.#opts.templates.unresolvedReason(s))
      .filter((r): r is string => r !== undefined);
    const now = conditionTimestamp(new Date());
    const w = await writeStatusIfChanged({
      client: this.#opts.host,
      type: PolicyTypes[kind],
      typeMeta: typeMetaOf(PolicyTypes[kind], kind),
      object: policy,
      compute: (current) => {
        const old = current.status ?? {};
        const conditions: MetaCondition[] = policyConditions({
          spec: current.spec,
          generation: current.metadata.generation ?? 0,
          claimed: refs.length,
          unresolvedKinds: unresolved,
          knownClusters: this.#opts.members.registry.list().map((c) => c.metadata.name ?? ''),
          previous: old.conditions ?? [],
          now,
        });
        const status: PolicyStatus = {
          observedGeneration: current.metadata.generation,
          conditions,
          claimedCount: refs.length,
          ...(refs.length > 0 ? { claimedResources: refs.slice(0, MAX_LISTED_CLAIMS) } : {}),
        };
        return { status, changed: !jsonEqual(status, old) };
      },
    });
    return statusWriteResult(w);
  }

  /** An override policy's status: how many propagated templates it selects (it shapes their copies). */
  async #writeOverrideStatus(
    kind: 'OverridePolicy' | 'ClusterOverridePolicy',
    namespace: string | undefined,
    name: string,
  ): Promise<ReconcileResult> {
    const store = kind === 'OverridePolicy' ? this.#opts.policies.op : this.#opts.policies.cop;
    const policy = store.store.get(namespace ? `${namespace}/${name}` : name);
    if (!policy) return ok();
    const refs: Array<{ apiVersion: string; kind: string; namespace?: string; name: string }> = [];
    for (const tk of this.#opts.templates.kinds()) {
      for (const t of this.#opts.templates.list(tk, kind === 'OverridePolicy' ? namespace : undefined)) {
        if (!claimOf(t.metadata)) continue;
        const template = { ...t, apiVersion: tk.apiVersion, kind: tk.kind };
        if (overridePolicyPriority(template, policy.spec ?? {}) === 0) continue;
        refs.push({
          apiVersion: tk.apiVersion,
          kind: tk.kind,
          ...(t.metadata.namespace ? { namespace: t.metadata.namespace } : {}),
          name: t.metadata.name ?? '',
        });
      }
    }
    refs.sort((a, b) =>
      `${a.kind}/${a.namespace}/${a.name}`.localeCompare(`${b.kind}/${b.namespace}/${b.name}`),
    );
    const now = conditionTimestamp(new Date());
    const type = PolicyTypes[kind];
    const w = await writeStatusIfChanged({
      client: this.#opts.host,
      type,
      typeMeta: typeMetaOf(type, kind),
      object: policy,
      compute: (current) => {
        const old = current.status ?? {};
        const status: PolicyStatus = {
          observedGeneration: current.metadata.generation,
          conditions: overrideConditions({
            generation: current.metadata.generation ?? 0,
            matched: refs.length,
            invalid: invalidOverrideSelectors(current.spec),
            previous: old.conditions ?? [],
            now,
          }),
          claimedCount: refs.length,
          ...(refs.length > 0 ? { claimedResources: refs.slice(0, MAX_LISTED_CLAIMS) } : {}),
        };
        return { status, changed: !jsonEqual(status, old) };
      },
    });
    return statusWriteResult(w);
  }
}
