// The webhook's view of the control plane: FederatedTypeConfigs, the KubeFedConfig and the controller
// manager's leader-election Lease in the KubeFed namespace, cached by informers, so that an admission answer
// never waits for an API call.

import {
  type FederatedTypeConfig,
  FederatedTypeConfigType,
  type KubeFedConfig,
  KubeFedConfigType,
} from '../api/core/v1beta1/index.ts';
import { KUBEFED_CONFIG_NAME } from '../config/index.ts';
import { CoreTypes, type KubeClient, type KubeObject } from '../kube/client/index.ts';
import { Informer } from '../runtime/informer/index.ts';
import type { Logger } from '../runtime/logger.ts';
import { CONTROLLER_MANAGER_LEASE_NAME, type LeaderLease } from './controller-manager-lease.ts';
import type { ControlPlaneView } from './federated-finalizer.ts';

type FtcObject = FederatedTypeConfig & KubeObject;
type ConfigObject = KubeFedConfig & KubeObject;

export class ControlPlaneInformers {
  readonly #namespace: string;
  readonly #ftcs: Informer<FtcObject>;
  readonly #configs: Informer<ConfigObject>;
  readonly #lease: Informer<LeaderLease>;

  constructor(opts: { host: KubeClient; namespace: string; logger: Logger }) {
    this.#namespace = opts.namespace;
    const common = { client: opts.host, namespace: opts.namespace, logger: opts.logger };
    this.#ftcs = new Informer<FtcObject>({ ...common, type: FederatedTypeConfigType });
    this.#configs = new Informer<ConfigObject>({ ...common, type: KubeFedConfigType });
    // One object, by name: the chart grants the webhook that Lease only.
    this.#lease = new Informer<LeaderLease>({
      ...common,
      type: CoreTypes.leases,
      fieldSelector: `metadata.name=${CONTROLLER_MANAGER_LEASE_NAME}`,
    });
  }

  start(): void {
    this.#ftcs.start();
    this.#configs.start();
    this.#lease.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#ftcs.stop(), this.#configs.stop(), this.#lease.stop()]);
  }

  /** Undefined until every cache has synced and while there is no KubeFedConfig with a scope. */
  view(): ControlPlaneView | undefined {
    if (!this.#ftcs.hasSynced() || !this.#configs.hasSynced() || !this.#lease.hasSynced()) return undefined;
    const config = this.#configs.store.get(`${this.#namespace}/${KUBEFED_CONFIG_NAME}`);
    const scope = config?.spec?.scope;
    if (scope !== 'Cluster' && scope !== 'Namespaced') return undefined;
    return {
      kubefedNamespace: this.#namespace,
      scope,
      ftcs: this.#ftcs.store.list(),
      controllerManagerLease: this.#lease.store.get(`${this.#namespace}/${CONTROLLER_MANAGER_LEASE_NAME}`),
      nowMs: Date.now(),
    };
  }
}
