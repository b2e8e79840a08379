// OCM's hub-side work controllers, as the controller manager runs them: the Placement decisions, the
// ManifestWorkReplicaSets, and the garbage collection of completed ManifestWorks.
import type { KubeClient } from '../../../kube/client/index.ts';
import type { Logger } from '../../../runtime/logger.ts';
import type { Runnable } from '../../../runtime/manager.ts';
import { PlacementController } from '../placement/controller.ts';
import { CompletedWorkController } from '../ttl/controller.ts';
import { ManifestWorkReplicaSetController } from './controller.ts';

export function manifestWorkHubControllers(opts: {
  host: KubeClient;
  /** The KubeFed namespace, where the KubeFedClusters are. */
  namespace: string;
  logger?: Logger;
}): Runnable[] {
  return [
    new PlacementController(opts),
    new ManifestWorkReplicaSetController(opts),
    new CompletedWorkController(opts),
  ];
}
