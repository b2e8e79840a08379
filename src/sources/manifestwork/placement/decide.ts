// Which clusters a Placement selects, and the PlacementDecisions and status that say so, in the shape OCM's
// scheduler writes them (ocm pkg/placement/controllers/scheduling/scheduling_controller.go: decision groups,
// at most 100 decisions per object, `<placement>-decision-<n>`). Pure: the controller does the I/O.

import {
  DECISION_GROUP_INDEX_LABEL,
  DECISION_GROUP_NAME_LABEL,
  MAX_DECISIONS_PER_OBJECT,
  PLACEMENT_LABEL,
  type Placement,
} from '../../../api/ocm/cluster/v1beta1/index.ts';
import { compileLabelSelector, type LabelSelector } from '../../../propagation/label-selector.ts';
import { type ClusterInfo, selectedClusterNames } from '../../../propagation/placement.ts';

/**
 * kubefed-ts decides every Placement except those whose PlacementDecisions the user writes: marked with this
 * annotation set to `external` (as OCM's integration tests do, creating Placement and decisions by hand).
 */
export const DECISIONS_ANNOTATION = 'kubefed-ts.io/decisions';
export const EXTERNAL_DECISIONS = 'external';

export const PLACEMENT_SATISFIED = 'PlacementSatisfied';
export const PLACEMENT_MISCONFIGURED = 'PlacementMisconfigured';
/** The reasons of OCM's scheduler (api cluster/v1beta1 PlacementReason*). */
export const PlacementReason = {
  AllDecisionsScheduled: 'AllDecisionsScheduled',
  NotAllDecisionsScheduled: 'NotAllDecisionsScheduled',
  NoManagedClusterMatched: 'NoManagedClusterMatched',
  Misconfigured: 'Misconfigured',
  Succeedconfigured: 'Succeedconfigured',
} as const;

export function decidedByKubefed(placement: Placement): boolean {
  return placement.metadata.annotations?.[DECISIONS_ANNOTATION] !== EXTERNAL_DECISIONS;
}

/** One PlacementDecision to write: its name, labels and the clusters in its status. */
export interface DesiredDecision {
  name: string;
  labels: Record<string, string>;
  clusters: string[];
}

export interface DecisionGroupStatus {
  decisionGroupIndex: number;
  decisionGroupName: string;
  decisions: string[];
  clusterCount: number;
}

export interface SatisfiedCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export type PlacementPlan =
  | {
      kind: 'decided';
      selected: string[];
      decisions: DesiredDecision[];
      groups: DecisionGroupStatus[];
      conditions: SatisfiedCondition[];
    }
  /** The spec cannot be evaluated: the decisions stay as they are, the status says why. */
  | { kind: 'misconfigured'; conditions: SatisfiedCondition[] };

function predicateMatch(placement: Placement, clusters: readonly ClusterInfo[]): Set<string> {
  const predicates = placement.spec?.predicates ?? [];
  const matched = new Set<string>();
  for (const p of predicates) {
    // Only label selectors are understood; an absent one selects every cluster, as in OCM.
    const selector = (p.requiredClusterSelector?.labelSelector ?? {}) as LabelSelector;
    const match = compileLabelSelector(selector);
    for (const c of clusters) if (match(c.labels)) matched.add(c.name);
  }
  return matched;
}

/**
 * The selected cluster names in decision order (by name, as OCM's scheduler orders equal scores): the
 * intersection of kubefed-ts's `spec.placement` and OCM's predicates (OR of predicates), each when present;
 * neither present selects every cluster; `numberOfClusters` keeps the first N.
 */
export function selectClusters(placement: Placement, clusters: readonly ClusterInfo[]): string[] {
  const spec = placement.spec ?? {};
  let names = clusters.map((c) => c.name);
  if (spec.placement) {
    const chosen = selectedClusterNames(spec.placement, clusters);
    names = names.filter((n) => chosen.has(n));
  }
  if (spec.predicates && spec.predicates.length > 0) {
    const chosen = predicateMatch(placement, clusters);
    names = names.filter((n) => chosen.has(n));
  }
  names = [...new Set(names)].sort();
  if (spec.numberOfClusters !== undefined && spec.numberOfClusters >= 0)
    names = names.slice(0, spec.numberOfClusters);
  return names;
}

/** clustersPerDecisionGroup: a count or a percentage of the selected clusters (rounded up); default all. */
export function groupLength(value: string | number | undefined, total: number): number {
  if (value === undefined) return total;
  let length: number;
  if (typeof value === 'number') length = value;
  else {
    const m = /^(\d+(?:\.\d+)?)%$/.exec(value);
    if (!m)
      throw new Error(`clustersPerDecisionGroup ${JSON.stringify(value)} is not a number or percentage`);
    length = Math.ceil((Number(m[1]) / 100) * total);
  }
  return length <= 0 || length > total ? total : length;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  if (items.length === 0) return [[]];
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
  return out;
}

/** Decision groups: each decisionGroup's matching clusters (not already grouped), then the rest unnamed. */
export function divideGroups(
  placement: Placement,
  selected: readonly string[],
  clusters: readonly ClusterInfo[],
): Array<{ name: string; clusters: string[] }> {
  const strategy = placement.spec?.decisionStrategy?.groupStrategy;
  const length = groupLength(strategy?.clustersPerDecisionGroup, selected.length);
  const labelsOf = new Map(clusters.map((c) => [c.name, c.labels]));
  let rest = [...selected];
  const groups: Array<{ name: string; clusters: string[] }> = [];
  for (const g of strategy?.decisionGroups ?? []) {
    const match = compileLabelSelector((g.groupClusterSelector?.labelSelector ?? {}) as LabelSelector);
    const matched = rest.filter((n) => match(labelsOf.get(n)));
    if (matched.length === 0) continue;
    for (const part of chunks(matched, length)) groups.push({ name: g.groupName, clusters: part });
    rest = rest.filter((n) => !matched.includes(n));
  }
  if (rest.length > 0 || groups.length === 0)
    for (const part of chunks(rest, length)) groups.push({ name: '', clusters: part });
  return groups;
}

function satisfied(placement: Placement, selected: number): SatisfiedCondition {
  const wanted = placement.spec?.numberOfClusters;
  if (selected === 0)
    return {
      type: PLACEMENT_SATISFIED,
      status: 'False',
      reason: PlacementReason.NoManagedClusterMatched,
      message: 'No ready cluster matches the placement',
    };
  if (wanted !== undefined && selected < wanted)
    return {
      type: PLACEMENT_SATISFIED,
      status: 'False',
      reason: PlacementReason.NotAllDecisionsScheduled,
      message: `${selected} cluster decisions scheduled, ${wanted - selected} cluster decisions not scheduled`,
    };
  return {
    type: PLACEMENT_SATISFIED,
    status: 'True',
    reason: PlacementReason.AllDecisionsScheduled,
    message: 'All cluster decisions scheduled',
  };
}

/** Everything the controller writes for one Placement, given the clusters that can be chosen. */
export function planPlacement(placement: Placement, clusters: readonly ClusterInfo[]): PlacementPlan {
  const name = placement.metadata.name ?? '';
  let selected: string[];
  let groups: Array<{ name: string; clusters: string[] }>;
  try {
    selected = selectClusters(placement, clusters);
    groups = divideGroups(placement, selected, clusters);
  } catch (e) {
    return {
      kind: 'misconfigured',
      conditions: [
        {
          type: PLACEMENT_MISCONFIGURED,
          status: 'True',
          reason: PlacementReason.Misconfigured,
          message: (e as Error).message,
        },
      ],
    };
  }
  const decisions: DesiredDecision[] = [];
  const groupStatus: DecisionGroupStatus[] = [];
  groups.forEach((g, index) => {
    const names: string[] = [];
    for (const part of chunks(g.clusters, MAX_DECISIONS_PER_OBJECT)) {
      const decisionName = `${name}-decision-${decisions.length + 1}`;
      names.push(decisionName);
      decisions.push({
        name: decisionName,
        labels: {
          [PLACEMENT_LABEL]: name,
          [DECISION_GROUP_INDEX_LABEL]: String(index),
          [DECISION_GROUP_NAME_LABEL]: g.name,
        },
        clusters: part,
      });
    }
    groupStatus.push({
      decisionGroupIndex: index,
      decisionGroupName: g.name,
      decisions: names,
      clusterCount: g.clusters.length,
    });
  });
  return {
    kind: 'decided',
    selected,
    decisions,
    groups: groupStatus,
    conditions: [
      satisfied(placement, selected.length),
      {
        type: PLACEMENT_MISCONFIGURED,
        status: 'False',
        reason: PlacementReason.Succeedconfigured,
        message: 'Placement configurations check pass',
      },
    ],
  };
}
