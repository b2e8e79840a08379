// The detector (karmada pkg/detector/detector.go ResourceDetector): for each resource template, which
// policy claims it (matching.ts decides, with Karmada's precedence), the claim written on the template, and
// the ResourceBinding that records the decision (binding-spec.ts). Scheduling and applying are other
// controllers' (scheduler.ts, binding-controller.ts), as in Karmada.

import {
  errorMessage,
  isAlreadyExists,
  isConflict,
  type KubeClient,
  type KubeObject,
} from '../../kube/client/index.ts';
import { jsonEqual } from '../../propagation/json.ts';
import { Controller } from '../../runtime/controller.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { type BindingObject, desiredBinding, mergeBinding } from './binding-spec.ts';
import { type Bindings, bindingTypeOf } from './bindings.ts';
import { claimOf, withClaim } from './claim.ts';
import { patchTemplateMetadata, unclaim } from './claim-writer.ts';
import { bindingKeyOfTemplate, parseTemplateKey, templateKey } from './keys.ts';
import { type CandidatePolicy, claimHolder, isIgnoredTemplate, selectPolicy } from './matching.ts';
import { candidateOf, type Policies } from './policies.ts';
import { kindKey, type Templates } from './templates.ts';

/** A template kind still loading, or a policy being deleted: look again soon. */
const RECHECK_MS = 1_000;

export interface DetectorOptions {
  host: KubeClient;
  /** Reconciles run at once (the sync controllers' `syncController.maxConcurrentReconciles`). */
  workers?: number;
  templates: Templates;
  policies: Policies;
  bindings: Bindings;
  events: EventRecorder;
  /** The scheduler's result written into a binding before it is created, when it can be (Scheduler.firstSchedule). */
  firstSchedule?: (b: BindingObject) => BindingObject;
  /** Namespaces never propagated from besides Karmada's own and kube-*: the KubeFed namespace. */
  skippedNamespaces: readonly string[];
  logger?: Logger;
}

export class Detector {
  readonly #opts: DetectorOptions;
  readonly #log: Logger;
  readonly controller: Controller;

  constructor(opts: DetectorOptions) {
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ controller: 'policy-detector' });
    this.controller = new Controller({
      name: 'policy-detector',
      logger: this.#log,
      reconcile: (key) => this.reconcile(key),
      workers: opts.workers ?? 4,
    });
    this.controller
      .source((enqueue) =>
        opts.templates.addListener((kind, obj, change) => {
          if (change !== 'delete') enqueue(templateKey(kind, obj));
        }),
      )
      // A policy change may claim, re-claim or release any template of the kinds it selects, now or before.
      .source(() =>
        opts.policies.addListener((kind, obj, old) => {
          if (kind !== 'PropagationPolicy' && kind !== 'ClusterPropagationPolicy') return;
          // The policy controller's own status writes change nothing a claim depends on.
          if (old && !claimRelevantChange(old, obj)) return;
          this.#enqueueSelected([obj, ...(old ? [old] : [])]);
        }),
      );
  }

  /** Looks again at every template of the kinds these policies select (in their namespace for a PP). */
  #enqueueSelected(policies: readonly KubeObject[]): void {
    for (const p of policies) {
      const ns =
        p.kind === 'ClusterPropagationPolicy' || !p.metadata.namespace ? undefined : p.metadata.namespace;
      const selectors = (p as { spec?: { resourceSelectors?: { apiVersion: string; kind: string }[] } }).spec
        ?.resourceSelectors;
      for (const s of selectors ?? []) {
        for (const t of this.#opts.templates.list(s, ns)) this.controller.enqueue(templateKey(s, t));
      }
    }
  }

  /** Looks again at every template (a kind just became watched). */
  enqueueKind(kind: { apiVersion: string; kind: string }): void {
    for (const t of this.#opts.templates.list(kind)) this.controller.enqueue(templateKey(kind, t));
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const k = parseTemplateKey(key);
    const { templates, policies } = this.#opts;
    if (!templates.synced(k)) return templates.typeOf(k) ? requeueAfter(RECHECK_MS) : ok();
    const template = templates.get(k, k.namespace, k.name);
    // A deleted template's binding goes with it (owner reference, garbage collector); its finalizer makes
    // the binding controller remove the member copies.
    if (!template || template.metadata.deletionTimestamp) return ok();
    const t = { ...template, apiVersion: k.apiVersion, kind: k.kind };
    if (isIgnoredTemplate(t, this.#opts.skippedNamespaces)) return ok();
    try {
      const current = await this.#currentClaim(t);
      if (current === 'wait') return requeueAfter(RECHECK_MS);
      const policy =
        current ??
        selectPolicy(
          t,
          policies.propagationPolicies(t.metadata.namespace),
          policies.clusterPropagationPolicies(),
        );
      // Nothing selects it (yet): a policy created later re-enqueues it (Karmada's waiting list).
      if (!policy) return ok();
      return await this.#claim(t, policy);
    } catch (e) {
      if (isConflict(e)) return requeueAfter(RECHECK_MS);
      return retry(e);
    }
  }

  /**
   * The policy that holds the template's claim, if it still may (exists with the same permanent-id, and
   * still selects it); a stale claim is removed first. 'wait' while the claiming policy is being deleted.
   */
  async #currentClaim(t: KubeObject): Promise<CandidatePolicy | 'wait' | undefined> {
    const claim = claimOf(t.metadata);
    if (!claim) return undefined;
    const p = this.#opts.policies.policy(claim.kind, claim.namespace, claim.name);
    const holder = claimHolder(t, claim, p ? candidateOf(claim.kind, p) : undefined);
    if (holder === 'deleting') return 'wait';
    if (holder) return holder;
    // The policy is gone, was re-created, or no longer selects the template: release it (the binding and
    // the member copies stay until another policy claims it, as in Karmada).
    const type = this.#opts.templates.typeOf({ apiVersion: t.apiVersion ?? '', kind: t.kind ?? '' });
    if (type) {
      await unclaim(
        this.#opts.host,
        type,
        t,
        this.#opts.bindings.get(bindingKeyOfTemplate(t)),
        claim.permanentId,
      );
      this.#event(t, 'Normal', 'CleanupPolicySucceed', `Claim of ${claim.kind} ${describe(claim)} removed`);
    }
    return undefined;
  }

  async #claim(t: KubeObject, policy: CandidatePolicy): Promise<ReconcileResult> {
    const { host, templates, bindings, policies } = this.#opts;
    if (!policy.permanentId) return requeueAfter(RECHECK_MS); // the policy controller labels it first
    const missing = (policy.spec.dependentOverrides ?? []).filter(
      (name) => !policies.overridePolicies(t.metadata.namespace).ops.some((o) => o.name === name),
    );
    if (missing.length > 0) {
      this.#event(
        t,
        'Warning',
        'ApplyPolicyFailed',
        `${policy.kind} ${describe(policy)} waits for OverridePolicies that do not exist: ${missing.join(', ')}`,
      );
      return requeueAfter(5_000);
    }
    const type = templates.typeOf({ apiVersion: t.apiVersion ?? '', kind: t.kind ?? '' });
    if (!type) return ok();
    const claimed = withClaim(t.metadata, {
      kind: policy.kind,
      namespace: policy.namespace,
      name: policy.name,
      permanentId: policy.permanentId,
    });
    let template = t;
    if (claimed)
      template = {
        ...(await patchTemplateMetadata(host, type, t, claimed)),
        apiVersion: t.apiVersion,
        kind: t.kind,
      };

    const desired = desiredBinding(template, policy);
    const existing = bindings.get(bindingKeyOfTemplate(template));
    if (!existing) {
      const scheduled = this.#opts.firstSchedule?.(desired) ?? desired;
      try {
        await host.create(bindingTypeOf(scheduled), scheduled);
      } catch (e) {
        if (isAlreadyExists(e)) return requeueAfter(RECHECK_MS);
        throw e;
      }
      this.#event(template, 'Normal', 'ApplyPolicySucceed', `Apply policy(${describe(policy)}) succeed`);
      return ok();
    }
    const owner = (
      existing.metadata.ownerReferences as Array<{ uid?: string; controller?: boolean }> | undefined
    )?.find((o) => o.controller);
    if (owner && owner.uid !== template.metadata.uid) {
      // The template was deleted and re-created: wait for the garbage collector (karmada#2090).
      return requeueAfter(5_000);
    }
    const merged = mergeBinding(existing, desired);
    if (merged) {
      await host.update(bindingTypeOf(merged), merged);
      if (claimed)
        this.#event(template, 'Normal', 'ApplyPolicySucceed', `Apply policy(${describe(policy)}) succeed`);
    }
    return ok();
  }

  #event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.#opts.events.record(obj, type, reason, message).catch((e: unknown) => {
      this.#log.debug({ err: errorMessage(e) }, 'event not recorded');
    });
  }

  get kindsWatched(): string[] {
    return this.#opts.templates.kinds().map(kindKey);
  }
}

/** Whether a policy update can change a claim: its spec, identity label or deletion, not its status. */
export function claimRelevantChange(old: KubeObject, obj: KubeObject): boolean {
  return (
    !jsonEqual((old as { spec?: unknown }).spec, (obj as { spec?: unknown }).spec) ||
    !jsonEqual(old.metadata.labels, obj.metadata.labels) ||
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp
  );
}

function describe(p: { namespace?: string; name: string }): string {
  return p.namespace ? `${p.namespace}/${p.name}` : p.name;
}
