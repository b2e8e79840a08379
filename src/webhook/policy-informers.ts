// The webhook's view of the PropagationPolicies and ClusterPropagationPolicies, cached by informers, for
// the claim a resource template gets at admission. Separate from the control-plane informers: a webhook
// not granted the policies (an older chart) still sets the sync finalizer, and simply claims nothing.

import type { KubeClient } from '../kube/client/index.ts';
import { Informer } from '../runtime/informer/index.ts';
import type { Logger } from '../runtime/logger.ts';
import { candidateOf, type PolicyObject, PolicyTypes } from '../sources/policy/policies.ts';
import type { PolicyView } from './template-claim.ts';

export class PolicyInformers {
  readonly #namespace: string;
  readonly #pp: Informer<PolicyObject>;
  readonly #cpp: Informer<PolicyObject>;

  constructor(opts: { host: KubeClient; kubefedNamespace: string; logger: Logger }) {
    this.#namespace = opts.kubefedNamespace;
    const common = { client: opts.host, logger: opts.logger };
    this.#pp = new Informer<PolicyObject>({ ...common, type: PolicyTypes.PropagationPolicy });
    this.#cpp = new Informer<PolicyObject>({ ...common, type: PolicyTypes.ClusterPropagationPolicy });
  }

  start(): void {
    this.#pp.start();
    this.#cpp.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#pp.stop(), this.#cpp.stop()]);
  }

  /** Undefined until both caches have synced: a half-loaded cache could name a policy that loses later. */
  view(): PolicyView | undefined {
    if (!this.#pp.hasSynced() || !this.#cpp.hasSynced()) return undefined;
    return {
      kubefedNamespace: this.#namespace,
      propagationPolicies: (namespace) =>
        this.#pp.store.list(namespace).map((p) => candidateOf('PropagationPolicy', p)),
      clusterPropagationPolicies: () =>
        this.#cpp.store.list().map((p) => candidateOf('ClusterPropagationPolicy', p)),
    };
  }
}
