// The template's own .status from its members' reflected statuses: Karmada's built-in AggregateStatus (karmada
// pkg/resourceinterpreter/default/native/aggregatestatus.go, and ParsingJobStatus in pkg/util/helper/job.go), so
// `kubectl get`, `kubectl rollout status` and GitOps health checks read the fleet on the federation API server.
//
// observedGeneration (Deployment, StatefulSet, DaemonSet, ReplicaSet) becomes the template's generation only when
// every member observed it: applied, its controller caught up (observedGeneration ≥ its own generation) and it
// was rendered from this template generation or a later one (resourcetemplate.karmada.io/generation); otherwise
// the old value stays (karmada#4867, the rule Argo CD's health check needs, karmada#2218).
//
// Deployment conditions are not aggregated, as in Karmada: the reflected status carries none, and `kubectl
// rollout status` needs only observedGeneration, updatedReplicas, replicas and availableReplicas (it fails early
// on a Progressing=ProgressDeadlineExceeded condition only, which a template then never shows; the member's
// Unhealthy health in the ResourceBinding is where that surfaces). Conditions already on the template are kept.
//
// Karmada also aggregates Pod and PersistentVolume; not yet here (rare as templates): their status is left alone.

import type { KubeObject } from '../../../kube/client/index.ts';
import { deepCopy, isPlainObject, type JsonObject } from '../../../propagation/json.ts';
import {
  conditionTrue,
  generationOf,
  intField,
  isBuiltin,
  listField,
  MalformedField,
  objectField,
  objectListField,
  stringField,
  topField,
} from './fields.ts';
import { putCounts, WORKLOAD_COUNTS } from './reflect.ts';

/** One cluster's entry of ResourceBinding.status.aggregatedStatus, as the aggregator reads it. */
export interface MemberStatusItem {
  clusterName: string;
  /** What reflectStatus recorded; absent when the member object is missing or has no status yet. */
  status?: Record<string, unknown>;
  applied: boolean;
}

type Present = MemberStatusItem & { status: JsonObject };

const withStatus = (items: readonly MemberStatusItem[]): Present[] =>
  items.filter((i): i is Present => isPlainObject(i.status));

function currentStatus(template: KubeObject): JsonObject {
  return deepCopy(topField(template, 'status') ?? {});
}

/** The member observed the template's latest generation (Karmada aggregateDeploymentStatus). */
function observedLatest(item: MemberStatusItem, templateGeneration: number): boolean {
  if (!item.applied || !isPlainObject(item.status)) return false;
  const s = item.status;
  return (
    intField(s, 'observedGeneration') >= intField(s, 'generation') &&
    intField(s, 'resourceTemplateGeneration') >= templateGeneration
  );
}

function aggregateWorkload(kind: string, template: KubeObject, items: readonly MemberStatusItem[]) {
  const fields = WORKLOAD_COUNTS[kind]!;
  const sums: JsonObject = {};
  for (const f of fields) sums[f.name] = 0;
  for (const { status } of withStatus(items)) {
    for (const f of fields) {
      if (f.name !== 'observedGeneration') sums[f.name] = (sums[f.name] as number) + intField(status, f.name);
    }
  }
  const old = currentStatus(template);
  const generation = generationOf(template);
  // With no members at all every (zero) member observed it, as in Karmada.
  sums.observedGeneration = items.every((i) => observedLatest(i, generation))
    ? generation
    : intField(old, 'observedGeneration');
  // Only the aggregated fields change; the rest of the template's status (conditions, revisions) is kept.
  for (const f of fields) delete old[f.name];
  putCounts(old, sums, fields);
  return old;
}

/** LoadBalancer ingress from every member, each named after its cluster when it has no hostname. */
function loadBalancerIngress(items: readonly MemberStatusItem[]): JsonObject {
  const ingress: JsonObject[] = [];
  for (const { clusterName, status } of withStatus(items)) {
    for (const entry of objectListField(objectField(status, 'loadBalancer'), 'ingress')) {
      const copy = deepCopy(entry);
      if (stringField(copy, 'hostname') === '') copy.hostname = clusterName;
      ingress.push(copy);
    }
  }
  return { loadBalancer: ingress.length > 0 ? { ingress } : {} };
}

/** metav1.Time's wire form: RFC 3339 in seconds. */
const metaTime = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;
const before = (a: string, b: string): boolean => Date.parse(a) < Date.parse(b);

function jobCondition(
  type: 'Complete' | 'Failed' | 'SuccessCriteriaMet' | 'FailureTarget',
  reason: string,
  message: string,
  now: Date,
): JsonObject {
  const t = metaTime(now);
  return { type, status: 'True', lastProbeTime: t, lastTransitionTime: t, reason, message };
}

/** Karmada ParsingJobStatus: counts summed, Failed if any member failed, Complete if all completed. */
function aggregateJob(template: KubeObject, items: readonly MemberStatusItem[], now: Date): JsonObject {
  const old = currentStatus(template);
  // A finished Job's status never changes again.
  if (conditionTrue(old, 'Complete') || conditionTrue(old, 'Failed')) return old;
  const failedIn: string[] = [];
  let succeeded = 0;
  let completed = 0;
  let startTime = '';
  let completionTime = '';
  const sums: JsonObject = { active: 0, succeeded: 0, failed: 0 };
  for (const { clusterName, status } of withStatus(items)) {
    for (const key of ['active', 'succeeded', 'failed'])
      sums[key] = (sums[key] as number) + intField(status, key);
    // Karmada GetJobFinishedStatus: the first Complete/Failed=True condition decides.
    const finished = objectListField(status, 'conditions').find(
      (c) =>
        (stringField(c, 'type') === 'Complete' || stringField(c, 'type') === 'Failed') &&
        stringField(c, 'status') === 'True',
    );
    if (finished !== undefined && stringField(finished, 'type') === 'Complete') succeeded++;
    else if (finished !== undefined) failedIn.push(clusterName);
    const start = stringField(status, 'startTime');
    if (start !== '' && (startTime === '' || before(start, startTime))) startTime = start;
    const completion = stringField(status, 'completionTime');
    if (completion !== '') {
      completed++;
      if (completionTime === '' || before(completionTime, completion)) completionTime = completion;
    }
  }
  const out: JsonObject = {};
  const conditions: JsonObject[] = [];
  // The API server (Kubernetes >= 1.31) accepts a terminal condition only after its interim one:
  // FailureTarget before Failed, SuccessCriteriaMet before Complete, as the Job controller writes them.
  if (failedIn.length > 0)
    conditions.push(
      jobCondition(
        'FailureTarget',
        'JobFailed',
        `Job executed failed in member clusters ${failedIn.join(',')}`,
        now,
      ),
      jobCondition(
        'Failed',
        'JobFailed',
        `Job executed failed in member clusters ${failedIn.join(',')}`,
        now,
      ),
    );
  // Counted against every item, so a member without status yet holds Complete back.
  if (succeeded > 0 && succeeded === items.length)
    conditions.push(
      jobCondition('SuccessCriteriaMet', 'Completed', 'Job completed', now),
      jobCondition('Complete', 'Completed', 'Job completed', now),
    );
  if (conditions.length > 0) out.conditions = conditions;
  if (startTime !== '') out.startTime = startTime;
  if (completionTime !== '' && completed === items.length) out.completionTime = completionTime;
  putCounts(out, sums, [{ name: 'active' }, { name: 'succeeded' }, { name: 'failed' }]);
  return out;
}

/** Karmada aggregateCronJobStatus: active Jobs listed from every member, the latest schedule times. */
function aggregateCronJob(template: KubeObject, items: readonly MemberStatusItem[]): JsonObject {
  const out = currentStatus(template);
  const active: unknown[] = [];
  const latest: Record<string, string> = { lastScheduleTime: '', lastSuccessfulTime: '' };
  for (const { status } of withStatus(items)) {
    active.push(...deepCopy(listField(status, 'active')));
    for (const key of Object.keys(latest)) {
      const t = stringField(status, key);
      if (t !== '' && (latest[key] === '' || before(latest[key]!, t))) latest[key] = t;
    }
  }
  if (active.length > 0) out.active = active;
  else delete out.active;
  for (const [key, t] of Object.entries(latest)) {
    if (t !== '') out[key] = t;
    else delete out[key];
  }
  return out;
}

/** Karmada aggregatePodDisruptionBudgetStatus: counts summed, disrupted pods keyed cluster/pod. */
function aggregatePodDisruptionBudget(items: readonly MemberStatusItem[]): JsonObject {
  const disrupted: JsonObject = {};
  const sums: JsonObject = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  for (const { clusterName, status } of withStatus(items)) {
    for (const key of Object.keys(sums)) sums[key] = (sums[key] as number) + intField(status, key);
    for (const [pod, time] of Object.entries(objectField(status, 'disruptedPods') ?? {}))
      disrupted[`${clusterName}/${pod}`] = time;
  }
  const out: JsonObject = {};
  if (Object.keys(disrupted).length > 0) out.disruptedPods = disrupted;
  putCounts(
    out,
    sums,
    Object.keys(sums).map((name) => ({ name, required: true as const })),
  );
  return out;
}

/** Karmada aggregatePersistentVolumeClaimStatus: Bound unless a member is Lost or in another phase. */
function aggregatePersistentVolumeClaim(items: readonly MemberStatusItem[]): JsonObject {
  let phase = 'Bound';
  for (const { status } of withStatus(items)) {
    const p = stringField(status, 'phase');
    if (p === 'Lost') {
      phase = p;
      break;
    }
    if (p !== 'Bound') phase = p;
  }
  return phase === '' ? {} : { phase };
}

function aggregate(template: KubeObject, items: readonly MemberStatusItem[], now: Date) {
  const kind = template.kind ?? '';
  if (isBuiltin(kind, template, 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'))
    return aggregateWorkload(kind, template, items);
  if (isBuiltin(kind, template, 'Service')) {
    if (stringField(topField(template, 'spec'), 'type') !== 'LoadBalancer') return currentStatus(template);
    return loadBalancerIngress(items);
  }
  if (isBuiltin(kind, template, 'Ingress')) return loadBalancerIngress(items);
  if (isBuiltin(kind, template, 'Job')) return aggregateJob(template, items, now);
  if (isBuiltin(kind, template, 'CronJob')) return aggregateCronJob(template, items);
  if (isBuiltin(kind, template, 'PodDisruptionBudget')) return aggregatePodDisruptionBudget(items);
  if (isBuiltin(kind, template, 'PersistentVolumeClaim')) return aggregatePersistentVolumeClaim(items);
  return undefined;
}

/**
 * The status the template should have, or undefined to leave it alone: its kind has no aggregator, or a field
 * has the wrong type (Karmada then fails the aggregation and writes nothing). A kind whose rule says nothing
 * changes (a Service that is not a LoadBalancer, a finished Job) gets its current status back, so the caller
 * writes the /status subresource only when the result differs from what is there. `now` stamps the Job
 * conditions this adds.
 */
export function aggregateStatus(
  template: KubeObject,
  items: readonly MemberStatusItem[],
  now: Date = new Date(),
): Record<string, unknown> | undefined {
  try {
    return aggregate(template, items, now);
  } catch (err) {
    if (err instanceof MalformedField) return undefined;
    throw err;
  }
}
