// Which member objects a Pull cluster's ManifestWork holds, by type (pure): the engine writes one
// manifestConfigs entry per manifest, naming its group and resource, which a manifest alone does not.

import type { KubeObject, ResourceType } from '../kube/client/index.ts';
import type { WorkObject } from './pull-works.ts';

/** The manifests of `work` of type `type`, as the objects the member holds (without their status). */
export function pullMemberObjects(work: WorkObject, type: ResourceType): KubeObject[] {
  const configs = work.spec.manifestConfigs ?? [];
  return (work.spec.workload?.manifests ?? []).filter((m, i) => {
    // The engine writes them side by side; a config that does not name this manifest is not its own.
    const id = configs[i]?.resourceIdentifier;
    const names =
      id !== undefined &&
      id.name === m.metadata?.name &&
      (id.namespace ?? '') === (m.metadata?.namespace ?? '');
    return names && (id.group ?? '') === type.group && id.resource === type.plural;
  });
}
