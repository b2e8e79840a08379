// The REST types of OCM's Placement and PlacementDecision (cluster.open-cluster-management.io/v1beta1).
import {
  GROUP,
  PLACEMENT_DECISION_KIND,
  PLACEMENT_DECISION_PLURAL,
  PLACEMENT_KIND,
  PLACEMENT_PLURAL,
  VERSION,
} from '../../../api/ocm/cluster/v1beta1/index.ts';
import type { ResourceType } from '../../../kube/client/index.ts';

export const PlacementType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: PLACEMENT_PLURAL,
  namespaced: true,
  kind: PLACEMENT_KIND,
};

export const PlacementDecisionType: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: PLACEMENT_DECISION_PLURAL,
  namespaced: true,
  kind: PLACEMENT_DECISION_KIND,
};
