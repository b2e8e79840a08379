import { FEDERATED_GROUP } from '../federation-types/group.ts';
import {
  errorMessage,
  groupQualifiedName,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '../kube/client/index.ts';
import type { ApiResourceInfo } from '../kube/discovery.ts';
import { ORPHAN_ANNOTATION } from '../propagation/constants.ts';
import { findApiResource } from './api-resources.ts';
import { apiFailure } from './enable.ts';
import { CommandError } from './errors.ts';
import { qualifiedName } from './federate-convert.ts';

export type OrphaningAction = 'enable' | 'disable' | 'status';

export interface OrphaningOptions {
  host: KubeClient;
  action: OrphaningAction;
  /** Federated type name, resolved like enable does (FederatedDeployment, federateddeployments, fdeploy). */
  typeName: string;
  name: string;
  /** Namespace of the federated object (ignored for cluster-scoped types). */
  namespace: string;
  /** Check everything, change nothing. */
  dryRun?: boolean;
  out?: (line: string) => void;
  warn?: (line: string) => void;
}

export interface OrphaningResult {
  /** Whether orphaning is enabled after the command (with dryRun: would be). */
  enabled: boolean;
  /** Whether the object was (or with dryRun would be) changed. */
  changed: boolean;
}

/** KubeFed's IsOrphaningEnabled: only the exact value "true" counts, as in the sync controller. */
export function isOrphaningEnabled(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[ORPHAN_ANNOTATION] === 'true';
}

/** The JSON merge patch that sets (enable) or removes (disable) the orphan annotation. */
export function orphanAnnotationPatch(enable: boolean): {
  metadata: { annotations: Record<string, string | null> };
} {
  return { metadata: { annotations: { [ORPHAN_ANNOTATION]: enable ? 'true' : null } } };
}

/** KubeFed's IsFederatedAPIResource: a Federated* kind in the default federated group. */
export function isFederatedApiResource(r: { kind: string; group: string }): boolean {
  return r.kind.startsWith('Federated') && r.group === FEDERATED_GROUP;
}

/**
 * kubefedctl orphaning-deletion enable|disable|status (KubeFed pkg/kubefedctl/orphaning/enable.go,
 * disable.go, status.go). enable and disable are no-ops when the annotation already says so. They write a
 * merge patch of the annotation alone where KubeFed updated the whole object it had read: a patch cannot
 * overwrite a change made in between (e.g. by the sync controller).
 */
export async function orphaningDeletion(opts: OrphaningOptions): Promise<OrphaningResult> {
  const out = opts.out ?? (() => {});
  const { host } = opts;
  let resource: ApiResourceInfo;
  try {
    resource = await findApiResource(host, opts.typeName, { warn: opts.warn });
  } catch (e) {
    throw new CommandError(`Failed to find targeted ${opts.typeName} type: ${errorMessage(e)}`);
  }
  if (!isFederatedApiResource(resource)) {
    opts.warn?.(
      `${groupQualifiedName(resource.plural, resource.group)}/${resource.version} might not be a federated resource`,
    );
  }
  const type: ResourceType = {
    group: resource.group,
    version: resource.version,
    plural: resource.plural,
    namespaced: resource.namespaced,
    kind: resource.kind,
  };
  const namespace = resource.namespaced ? opts.namespace : undefined;
  const qn = qualifiedName(opts.name, namespace);
  let obj: KubeObject;
  try {
    obj = await host.get(type, opts.name, namespace);
  } catch (e) {
    throw apiFailure(host, `Failed to retrieve resource: "${qn}"`, e);
  }

  const enabled = isOrphaningEnabled(obj);
  if (opts.action === 'status') {
    out(enabled ? 'Enabled' : 'Disabled');
    return { enabled, changed: false };
  }
  const want = opts.action === 'enable';
  if (enabled === want) return { enabled, changed: false };
  if (!opts.dryRun) {
    try {
      await host.patch(type, opts.name, orphanAnnotationPatch(want), { namespace });
    } catch (e) {
      throw apiFailure(host, `Failed to update resource ${resource.kind} "${qn}"`, e);
    }
  }
  return { enabled: want, changed: true };
}
