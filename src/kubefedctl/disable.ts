import { FederatedTypeConfigType, PropagationMode, resourceTypeOf } from '../api/core/v1beta1/index.ts';
import { ftcNameFor } from '../federation-types/federate-names.ts';
import { type FederatedTypeConfigObject, federatedCrdName } from '../federation-types/federated-crd.ts';
import { FEDERATED_GROUP, FEDERATED_VERSION } from '../federation-types/group.ts';
import { CoreTypes, isNotFound, type KubeClient, type ResourceType } from '../kube/client/index.ts';
import { findApiResource } from './api-resources.ts';
import { apiFailure, generateEnableResources } from './enable.ts';
import { CommandError } from './errors.ts';

export interface DisableTypeOptions {
  /** Client of the host cluster; its name (the host context) appears in connection errors. */
  host: KubeClient;
  /** The KubeFed system namespace. */
  namespace: string;
  /** An FTC name (anything with a dot is taken as one) or a target type name to look up. */
  name: string;
  deleteCrd?: boolean;
  /** Only with deleteCrd: the target version, used to find the CRD when there is no FTC. */
  targetVersion?: string;
  /** Only with deleteCrd: the federated group, used to find the CRD when there is no FTC. */
  federatedGroup?: string;
  dryRun?: boolean;
  out?: (line: string) => void;
  warn?: (line: string) => void;
  /** How long to wait for the FTC controller to report the sync controller stopped (KubeFed: 10 s). */
  stopTimeoutMs?: number;
  pollIntervalMs?: number;
}

export interface DisableTypeResult {
  ftcName: string;
  ftcExisted: boolean;
  crdDeleted: boolean;
}

/** --version and --federated-group only choose the CRD to delete, so they need --delete-crd (KubeFed). */
export function validateDisableFlags(opts: {
  deleteCrd?: boolean;
  targetVersion?: string;
  federatedGroup?: string;
}): void {
  if (opts.deleteCrd) return;
  if (opts.targetVersion) throw new CommandError('--version flag valid only with --delete-crd');
  // KubeFed names the flag --kubefed-group in this message although it is --federated-group.
  if ((opts.federatedGroup || FEDERATED_GROUP) !== FEDERATED_GROUP)
    throw new CommandError('--kubefed-group flag valid only with --delete-crd');
}

/**
 * kubefedctl disable (KubeFed pkg/kubefedctl/disable.go, DisableFederation): turns propagation off, waits
 * until the FTC controller reports the sync controller stopped, optionally deletes the federated CRD (refused
 * while instances exist), then deletes the FTC. The FTC's finalizer keeps it until the controller manager
 * lets go; that is not waited for.
 */
export async function disableType(opts: DisableTypeOptions): Promise<DisableTypeResult> {
  const out = opts.out ?? (() => {});
  const { host, namespace: ns } = opts;
  validateDisableFlags(opts);
  const federatedGroup = opts.federatedGroup || FEDERATED_GROUP;

  // A dotted name is an FTC name already: that way an FTC whose target type is gone can still be removed.
  const name = opts.name.includes('.')
    ? opts.name
    : ftcNameFor(await findApiResource(host, opts.name, { warn: opts.warn }));
  const qualified = `${ns}/${name}`;

  let ftc: FederatedTypeConfigObject | undefined;
  try {
    ftc = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, name, ns);
  } catch (e) {
    if (!isNotFound(e)) throw apiFailure(host, `Error retrieving FederatedTypeConfig "${qualified}"`, e);
    out(`FederatedTypeConfig "${qualified}" does not exist`);
  }
  const result: DisableTypeResult = { ftcName: name, ftcExisted: ftc !== undefined, crdDeleted: false };
  if (opts.dryRun) return result;

  let crdName: string | undefined;
  let fedType: ResourceType | undefined;
  if (opts.deleteCrd) {
    if (ftc) {
      crdName = federatedCrdName(ftc);
      fedType = resourceTypeOf(ftc.spec.federatedType);
    } else {
      const gen = await generateEnableResources(
        host,
        ns,
        { name, targetVersion: opts.targetVersion, federatedGroup, federatedVersion: FEDERATED_VERSION },
        opts.warn,
      );
      crdName = gen.crd.metadata.name;
      fedType = resourceTypeOf(gen.ftc.spec.federatedType);
    }
    // Checked before anything changes, so a refused disable leaves propagation as it was.
    await refuseIfInstancesExist(host, fedType, crdName);
  }

  if (ftc) {
    if (ftc.spec.propagation === PropagationMode.Enabled) {
      try {
        await host.patch(
          FederatedTypeConfigType,
          name,
          { spec: { propagation: PropagationMode.Disabled } },
          { namespace: ns },
        );
      } catch (e) {
        throw apiFailure(host, `Error disabling propagation for FederatedTypeConfig "${qualified}"`, e);
      }
      out(`Disabled propagation for FederatedTypeConfig "${qualified}"`);
    } else {
      out(`Propagation already disabled for FederatedTypeConfig "${qualified}"`);
    }
    out(`Verifying propagation controller is stopped for FederatedTypeConfig "${qualified}"`);
    await waitForStopped(host, name, ns, opts.stopTimeoutMs ?? 10_000, opts.pollIntervalMs ?? 100);
    out(`Propagation controller for FederatedTypeConfig "${qualified}" is stopped`);
  }

  if (crdName && fedType) {
    try {
      await host.delete(CoreTypes.crds, crdName);
      out(`customresourcedefinition "${crdName}" deleted`);
      result.crdDeleted = true;
    } catch (e) {
      if (!isNotFound(e)) throw apiFailure(host, `Error deleting crd "${crdName}"`, e);
      out(`customresourcedefinition "${crdName}" does not exist`);
    }
  }

  if (ftc) {
    try {
      await host.delete(FederatedTypeConfigType, name, { namespace: ns });
    } catch (e) {
      if (!isNotFound(e)) throw apiFailure(host, `Error deleting FederatedTypeConfig "${qualified}"`, e);
    }
    out(`federatedtypeconfig "${qualified}" deleted`);
  }
  return result;
}

/** Deleting a CRD deletes every instance with it, so KubeFed refuses while any exists (in any namespace). */
async function refuseIfInstancesExist(host: KubeClient, type: ResourceType, crdName: string): Promise<void> {
  let exists: boolean;
  try {
    exists = (await host.list(type, { limit: 1 })).items.length > 0;
  } catch (e) {
    if (!isNotFound(e)) throw apiFailure(host, `Error listing instances of "${crdName}"`, e);
    exists = false;
  }
  if (exists) {
    throw new CommandError(
      `Cannot delete CRD "${crdName}" while resource instances exist. Please try kubefedctl disable again after ` +
        `removing the resource instances or without the '--delete-crd' option`,
    );
  }
}

async function waitForStopped(
  host: KubeClient,
  name: string,
  ns: string,
  timeoutMs: number,
  intervalMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const ftc = await host.get<FederatedTypeConfigObject>(FederatedTypeConfigType, name, ns);
      if (ftc.status?.propagationController === 'NotRunning') return;
    } catch {
      // KubeFed logs a failed read and keeps polling until the deadline.
    }
    if (Date.now() >= deadline) {
      throw new CommandError(
        `Timed out waiting for propagation controller for FederatedTypeConfig "${ns}/${name}" to stop`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
