// `kubefedctl plan --policy`: how Karmada's scheduler would place one template under a PropagationPolicy
// or ClusterPropagationPolicy, per cluster (candidate or why not, weight, available, previous, replicas)
// and overall, without changing anything. The clusters come from KubeFedCluster files (offline) or from
// the federation (plan-live.ts); the scheduling itself is the policy source's explainSchedule.

import type { TargetCluster } from '../api/work/v1alpha2/resourcebinding.ts';
import type { KubeObject } from '../kube/client/index.ts';
import type { JsonObject } from '../propagation/json.ts';
import { type BindingObject, desiredBinding } from '../sources/policy/binding-spec.ts';
import type { PolicyCluster } from '../sources/policy/cluster-affinity.ts';
import { ImplicitPriority, implicitPriority, type PolicyKind } from '../sources/policy/matching.ts';
import { candidateOf, type PolicyObject } from '../sources/policy/policies.ts';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  type ClusterVerdict,
  explainSchedule,
  placementString,
  rescheduleRequested,
  type ScheduleInput,
  type ScheduleResult,
} from '../sources/policy/scheduling.ts';
import { defaultPropagationSpec } from '../webhook/propagationpolicy.ts';
import { CommandError } from './errors.ts';
import { type ExplainFiles, parseExplainFiles } from './explain.ts';
import type { PlanOutput } from './plan.ts';

/** The template and the policy of the files, the policy defaulted as the mutating webhook stores it. */
export interface PolicyPlanFiles {
  template: KubeObject;
  policy: PolicyObject;
  kind: PolicyKind;
  clusters: ExplainFiles['clusters'];
}

/**
 * Reads exactly one template and one PropagationPolicy or ClusterPropagationPolicy from the files, and
 * any KubeFedClusters. A template without a namespace is in `default`, as kubectl would put it.
 */
export function parsePolicyPlanFiles(
  files: ReadonlyArray<{ name: string; text: string }>,
  warn?: (line: string) => void,
): PolicyPlanFiles {
  const parsed = parseExplainFiles(files, 'default');
  if (parsed.ops.length + parsed.cops.length > 0)
    warn?.('OverridePolicies change what members receive, not where: they are ignored by plan');
  if (parsed.templates.length !== 1)
    throw new CommandError(`expected one resource template, found ${parsed.templates.length}`);
  const policies = [
    ...parsed.pps.map((p) => ['PropagationPolicy', p] as const),
    ...parsed.cpps.map((p) => ['ClusterPropagationPolicy', p] as const),
  ];
  if (policies.length !== 1)
    throw new CommandError(
      `expected one PropagationPolicy or ClusterPropagationPolicy, found ${policies.length}`,
    );
  const template = parsed.templates[0] as KubeObject;
  const [kind, raw] = policies[0] as (typeof policies)[number];
  const spec = defaultPropagationSpec(
    raw.spec as unknown as JsonObject,
    kind === 'PropagationPolicy' ? raw.metadata.namespace : undefined,
  ) as unknown as PolicyObject['spec'];
  const policy: PolicyObject = { ...raw, spec };
  if (kind === 'PropagationPolicy' && raw.metadata.namespace !== template.metadata.namespace)
    warn?.(
      `the PropagationPolicy is in namespace "${raw.metadata.namespace}", the template in "${template.metadata.namespace ?? ''}": it cannot claim it`,
    );
  else if (implicitPriority(spec.resourceSelectors, template) === ImplicitPriority.MisMatch)
    warn?.(`the ${kind}'s resourceSelectors do not select the template; planning as if they did`);
  return { template, policy, kind, clusters: parsed.clusters };
}

/** What the scheduler is told beyond the policy and the template: clusters, capacity, the binding's state. */
export interface PolicyPlanState {
  clusters: PolicyCluster[];
  available?: ReadonlyMap<string, number>;
  previous?: readonly TargetCluster[];
  previousAffinityName?: string;
  evicting?: readonly string[];
  bindingUid?: string;
  /** The binding asks for a fresh schedule (rescheduleRequested): divide as the scheduler then would. */
  fresh?: boolean;
  /** The placement the binding's clusters were scheduled for (its applied-placement annotation; '' none). */
  appliedPlacement?: string;
}

/**
 * What the template's current binding tells the scheduler: its clusters, the observed affinity term, the
 * clusters being evicted, its uid, and whether it asks for a fresh schedule (rescheduleTriggeredAt later
 * than lastScheduledTime), exactly as the scheduler reads them.
 */
export function bindingPlanState(binding: BindingObject): Omit<PolicyPlanState, 'clusters' | 'available'> {
  const evicting = (binding.spec.gracefulEvictionTasks ?? []).map((t) => t.fromCluster);
  return {
    ...(binding.spec.clusters ? { previous: binding.spec.clusters } : {}),
    ...(binding.status?.schedulerObservingAffinityName
      ? { previousAffinityName: binding.status.schedulerObservingAffinityName }
      : {}),
    ...(evicting.length > 0 ? { evicting } : {}),
    ...(binding.spec.resource.uid ? { bindingUid: binding.spec.resource.uid } : {}),
    ...(rescheduleRequested(binding) ? { fresh: true } : {}),
    appliedPlacement: binding.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION] ?? '',
  };
}

/** The scheduler's input, as the policy source would build it from the template's binding. */
export function policyScheduleInput(files: PolicyPlanFiles, state: PolicyPlanState): ScheduleInput {
  const binding = desiredBinding(files.template, candidateOf(files.kind, files.policy));
  return {
    placement: binding.spec.placement,
    clusters: state.clusters,
    replicas: binding.spec.replicas ?? 0,
    bindingUid: state.bindingUid ?? binding.spec.resource.uid ?? '',
    ...(state.previous ? { previous: state.previous } : {}),
    ...(state.previousAffinityName ? { previousAffinityName: state.previousAffinityName } : {}),
    ...(state.available ? { available: state.available } : {}),
    ...(state.evicting ? { evicting: state.evicting } : {}),
    ...(state.fresh ? { fresh: true } : {}),
    // A binding read live re-divides when the planned placement is not the one its clusters were made for.
    ...(state.appliedPlacement !== undefined
      ? { placementChanged: state.appliedPlacement !== placementString(binding.spec.placement) }
      : {}),
  };
}

export interface PolicyPlan {
  result: ScheduleResult;
  clusters: ClusterVerdict[];
}

/** Schedules and renders; returns what it printed for tests. */
export function runPolicyPlan(
  files: PolicyPlanFiles,
  state: PolicyPlanState,
  output: PlanOutput,
  out: (text: string) => void,
): PolicyPlan {
  const input = policyScheduleInput(files, state);
  const plan = explainSchedule(input);
  out(output === 'json' ? renderPolicyPlanJson(plan) : renderPolicyPlanTable(plan, input.replicas));
  return plan;
}

export function renderPolicyPlanJson(plan: PolicyPlan): string {
  return `${JSON.stringify({ result: plan.result, clusters: plan.clusters }, null, 2)}\n`;
}

const HEADERS = ['CLUSTER', 'CANDIDATE', 'WEIGHT', 'AVAILABLE', 'PREVIOUS', 'REPLICAS', 'REASON'];

/** One row per cluster, then the overall result (or why the binding is unschedulable). */
export function renderPolicyPlanTable(plan: PolicyPlan, replicas: number): string {
  const opt = (v: number | undefined) => (v === undefined ? '-' : String(v));
  const rows = plan.clusters.map((c) => [
    c.cluster,
    c.candidate ? 'yes' : 'no',
    opt(c.weight),
    opt(c.available),
    opt(c.previous),
    String(c.replicas),
    c.reason ?? '',
  ]);
  const all = [HEADERS, ...rows];
  const widths = HEADERS.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  const table = all
    .map(
      (row) =>
        `${row
          .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd((widths[col] ?? 0) + 2)))
          .join('')
          .trimEnd()}\n`,
    )
    .join('');
  return `${table}${resultLine(plan.result, replicas)}\n`;
}

function resultLine(result: ScheduleResult, replicas: number): string {
  if (!result.ok) return `RESULT: ${result.reason}: ${result.message}`;
  const where = result.clusters
    .map((c) => (c.replicas === undefined ? c.name : `${c.name}=${c.replicas}`))
    .join(', ');
  const term = result.affinityName ? ` (cluster affinity term "${result.affinityName}")` : '';
  if (replicas <= 0) return `RESULT: propagated to ${result.clusters.length} cluster(s): ${where}${term}`;
  const placed = result.clusters.reduce((sum, c) => sum + (c.replicas ?? 0), 0);
  return `RESULT: ${placed} replica(s) on ${result.clusters.length} cluster(s): ${where}${term}`;
}

/** `--current`/`--capacity` counts as the binding's previous clusters and the available map. */
export function offlinePolicyState(
  clusters: PolicyCluster[],
  current: Record<string, number>,
  capacity: Record<string, number>,
): PolicyPlanState {
  const previous = Object.entries(current).map(([name, replicas]) => ({ name, replicas }));
  const available = new Map<string, number>();
  for (const [name, n] of Object.entries(capacity)) available.set(name, n);
  return {
    clusters,
    ...(previous.length > 0 ? { previous } : {}),
    ...(available.size > 0 ? { available } : {}),
  };
}
