// Keeps the template claim webhook's rules to the kinds the policies select (claim-admission.ts decides).
// It writes one object, the MutatingWebhookConfiguration the install registered, and only its claim entry,
// when the selected kinds change; an install without that entry or without the grant changes nothing, and
// the detector claims every template as Karmada's does.

import {
  CoreTypes,
  errorMessage,
  isConflict,
  isForbidden,
  isNotFound,
  type KubeClient,
  type KubeObject,
} from '../../kube/client/index.ts';
import { Controller } from '../../runtime/controller.ts';
import { type Logger, silentLogger } from '../../runtime/logger.ts';
import { ok, type ReconcileResult, requeueAfter, retry } from '../../runtime/reconcile.ts';
import { MUTATING_CONFIGURATION_NAME } from '../../webhook/configurations.ts';
import { claimRules, type MutatingConfiguration, selectorKinds, withClaimRules } from './claim-admission.ts';
import type { Policies } from './policies.ts';
import { parseKindKey, type Templates, type TemplateType } from './templates.ts';

type ConfigurationObject = KubeObject & MutatingConfiguration;

/** A selected kind whose type is still being looked up: look again before writing anything. */
const RESOLVING_RECHECK_MS = 1_000;
const KEY = 'rules';

export interface ClaimAdmissionControllerOptions {
  host: KubeClient;
  policies: Policies;
  templates: Templates;
  logger?: Logger;
}

export class ClaimAdmissionController {
  readonly controller: Controller;
  readonly #opts: ClaimAdmissionControllerOptions;
  readonly #configs;
  readonly #log: Logger;

  constructor(opts: ClaimAdmissionControllerOptions) {
    this.#opts = opts;
    const log = (opts.logger ?? silentLogger).child({ controller: 'template-claim-admission' });
    this.#log = log;
    this.controller = new Controller({
      name: 'template-claim-admission',
      logger: log,
      reconcile: () => this.reconcile(),
    });
    const enqueue = () => this.controller.enqueue(KEY);
    // One object, by name: the chart grants exactly that one.
    this.#configs = this.controller.watch<ConfigurationObject>(
      {
        client: opts.host,
        type: CoreTypes.mutatingWebhookConfigurations,
        fieldSelector: `metadata.name=${MUTATING_CONFIGURATION_NAME}`,
      },
      () => ({ onAdd: enqueue, onUpdate: enqueue, onDelete: enqueue }),
    );
    this.controller.source(() =>
      opts.policies.addListener((kind) => {
        if (kind === 'PropagationPolicy' || kind === 'ClusterPropagationPolicy') enqueue();
      }),
    );
  }

  async reconcile(): Promise<ReconcileResult> {
    const config = this.#configs.store.get(MUTATING_CONFIGURATION_NAME);
    if (!config) return ok();
    const { policies, templates } = this.#opts;
    const kinds = selectorKinds([
      ...policies.propagationPolicies(undefined),
      ...policies.clusterPropagationPolicies(),
    ]);
    const types: TemplateType[] = [];
    for (const key of kinds) {
      const kind = parseKindKey(key);
      const type = templates.typeOf(kind);
      if (type) types.push(type);
      // Neither watched nor known to be unserved: a rule set written now would drop it for a moment.
      else if (templates.unresolvedReason(kind) === undefined) return requeueAfter(RESOLVING_RECHECK_MS);
    }
    const next = withClaimRules(config, claimRules(types));
    if (!next) return ok();
    try {
      await this.#opts.host.update(CoreTypes.mutatingWebhookConfigurations, next);
    } catch (e) {
      // Changed meanwhile (the install re-applied it) or removed: the watch brings the next version.
      if (isConflict(e) || isNotFound(e)) return ok();
      if (isForbidden(e)) {
        // Not granted (an install of its own RBAC): the detector claims every template, as Karmada's does.
        this.#log.warn({ err: errorMessage(e) }, 'cannot set the template claim webhook rules');
        return ok();
      }
      return retry(e);
    }
    return ok();
  }
}
