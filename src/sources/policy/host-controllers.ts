// Whether the federation API server runs workload controllers of its own. A template there is only a
// template if nothing acts on it; on a host with a full kube-controller-manager, a Deployment template runs
// on the host too and its Deployment controller owns `.status`. That is detected per template, from who
// last wrote its status (managedFields), and reported instead of fought over.

import type { KubeObject } from '../../kube/client/index.ts';

/** Field managers that mean a workload controller writes the template's status. */
const WORKLOAD_STATUS_WRITERS = new Set(['kube-controller-manager']);

/** The field manager of another controller that writes this template's status, if any. */
export function hostStatusWriter(template: KubeObject): string | undefined {
  const writer = template.metadata.managedFields?.find(
    (f) => f.subresource === 'status' && WORKLOAD_STATUS_WRITERS.has(f.manager ?? ''),
  );
  return writer?.manager;
}
