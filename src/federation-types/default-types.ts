import type { CustomResourceDefinition } from '../api/crd.ts';
import { DEFAULT_TARGET_TYPES } from './defaults.ts';
import { type FederatedTypeConfigObject, federatedCrdFor, federatedTypeConfigFor } from './federated-crd.ts';

/** Kinds whose member status feeds the workload columns, so their FTCs collect remote status. */
const STATUS_COLLECTING_PLURALS = new Set(['deployments.apps', 'replicasets.apps', 'jobs.batch']);

/**
 * CRDs and FTCs of the ten default federated types (KubeFed charts/kubefed/templates/federatedtypeconfig.yaml
 * and crds/), FTCs in the given KubeFed namespace.
 */
export function defaultFederatedTypes(namespace: string): {
  crds: CustomResourceDefinition[];
  ftcs: FederatedTypeConfigObject[];
} {
  const crds: CustomResourceDefinition[] = [];
  const ftcs: FederatedTypeConfigObject[] = [];
  for (const target of DEFAULT_TARGET_TYPES) {
    crds.push(federatedCrdFor(target));
    const collect = STATUS_COLLECTING_PLURALS.has(`${target.plural}.${target.group}`);
    ftcs.push(federatedTypeConfigFor(target, { namespace, ...(collect ? { statusCollection: true } : {}) }));
  }
  return { crds, ftcs };
}
