// `kubefedctl explain`'s report, built from plain inputs: for each template, the policies that select it
// and which one claims it (matching.ts), where it lands (scheduling.ts on the binding desiredBinding
// makes), and what each cluster receives (render.ts memberObject with the override policies select.ts
// picks). Every decision is the policy source's own function; this file only gathers and explains them.

import { RETAIN_REPLICAS_LABEL } from '../api/policy/v1alpha1/labels.ts';
import type { TargetCluster } from '../api/work/v1alpha2/resourcebinding.ts';
import { errorMessage, type KubeObject } from '../kube/client/index.ts';
import { isPlainObject, jsonEqual } from '../propagation/json.ts';
import { claimMetadata, desiredBinding } from '../sources/policy/binding-spec.ts';
import { claimOf } from '../sources/policy/claim.ts';
import type { PolicyCluster } from '../sources/policy/cluster-affinity.ts';
import { dependenciesOf } from '../sources/policy/dependencies.ts';
import {
  type CandidatePolicy,
  claimHolder,
  ImplicitPriority,
  implicitPriority,
  isIgnoredTemplate,
  selectPolicy,
} from '../sources/policy/matching.ts';
import { type NamedOverridePolicy, overridePoliciesFor } from '../sources/policy/overrides/select.ts';
import {
  MANAGED_ANNOTATIONS_ANNOTATION,
  MANAGED_LABELS_ANNOTATION,
  memberObject,
} from '../sources/policy/render.ts';
import { scheduleBinding } from '../sources/policy/scheduling.ts';

export interface ExplainInput {
  templates: readonly KubeObject[];
  /** PropagationPolicies of every namespace (each is only a candidate in its own). */
  pps: readonly CandidatePolicy[];
  cpps: readonly CandidatePolicy[];
  ops: readonly NamedOverridePolicy[];
  cops: readonly NamedOverridePolicy[];
  clusters: readonly PolicyCluster[];
  /** Namespaces policies never look at beyond Karmada's own (the KubeFed namespace). */
  skippedNamespaces: readonly string[];
  /** Live only: the template's current binding (its spec.clusters keep the scheduler's earlier choice). */
  bindingOf?: (template: KubeObject) => CurrentBinding | undefined;
}

export interface CurrentBinding {
  clusters?: readonly TargetCluster[];
  affinityName?: string;
}

export type MatchName = 'name' | 'labelSelector' | 'kind';

export interface CandidateReport {
  kind: CandidatePolicy['kind'];
  namespace?: string;
  name: string;
  explicitPriority: number;
  implicitPriority: number;
  /** What the best selector matched on. */
  match: MatchName;
  winner: boolean;
  /** Why the winner wins over this one, or why this one is out of the running. */
  reason: string;
}

export interface ClusterReport {
  cluster: string;
  replicas?: number;
  /** The override policies applied, in order, as "<Kind> <ns/name>". */
  overrides: string[];
  /** Paths the member copy differs from the template at (claim bookkeeping left out). */
  changes: string[];
  object?: KubeObject;
  /** The override that failed: the copy is not sent. */
  error?: string;
}

export interface TemplateReport {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Set when policies never propagate this template. */
  ignored?: string;
  candidates: CandidateReport[];
  claimedBy?: { kind: CandidatePolicy['kind']; namespace?: string; name: string; how: string };
  placement?:
    | { ok: true; clusters: TargetCluster[]; affinityName?: string }
    | { ok: false; reason: string; message: string };
  /** Notes on the placement: suspension, dependencies sent along. */
  notes: string[];
  members: ClusterReport[];
}

const MATCH_NAMES: Record<number, MatchName> = {
  [ImplicitPriority.MatchName]: 'name',
  [ImplicitPriority.MatchLabelSelector]: 'labelSelector',
  [ImplicitPriority.MatchAll]: 'kind',
};

const MATCH_WORDS: Record<MatchName, string> = {
  name: 'name match',
  labelSelector: 'label selector match',
  kind: 'kind-only match',
};

export function policyLabel(p: { kind: string; namespace?: string; name: string }): string {
  return p.namespace ? `${p.kind} ${p.namespace}/${p.name}` : `${p.kind} ${p.name}`;
}

const same = (a: CandidatePolicy, b: { kind: string; namespace?: string; name: string }): boolean =>
  a.kind === b.kind && (a.namespace ?? '') === (b.namespace ?? '') && a.name === b.name;

/** Why `winner` beats `other`, in the order Karmada compares them. */
function whyBeaten(winner: CandidatePolicy, other: CandidatePolicy, template: KubeObject): string {
  if (winner.kind === 'PropagationPolicy' && other.kind === 'ClusterPropagationPolicy')
    return 'a PropagationPolicy of the namespace wins over any ClusterPropagationPolicy';
  const we = winner.spec.priority ?? 0;
  const oe = other.spec.priority ?? 0;
  if (we !== oe) return `lower explicit priority (${oe} < ${we})`;
  const wi = implicitPriority(winner.spec.resourceSelectors, template);
  const oi = implicitPriority(other.spec.resourceSelectors, template);
  if (wi !== oi)
    return `less specific (${MATCH_WORDS[MATCH_NAMES[oi] ?? 'kind']} < ${MATCH_WORDS[MATCH_NAMES[wi] ?? 'kind']})`;
  return `same priorities; the smaller name wins (${JSON.stringify(winner.name)})`;
}

/** The policy holding the template's claim, as the detector keeps it (matching.ts claimHolder). */
function currentHolder(
  template: KubeObject,
  candidates: readonly CandidatePolicy[],
): CandidatePolicy | 'deleting' | undefined {
  const claim = claimOf(template.metadata);
  if (!claim) return undefined;
  return claimHolder(
    template,
    claim,
    candidates.find((c) => same(c, claim)),
  );
}

function templateRef(t: KubeObject) {
  return {
    apiVersion: t.apiVersion ?? '',
    kind: t.kind ?? '',
    ...(t.metadata.namespace ? { namespace: t.metadata.namespace } : {}),
    name: t.metadata.name ?? '',
  };
}

/** Leaf paths where `b` differs from `a` (objects compared key by key, arrays and scalars as a whole). */
export function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (jsonEqual(a, b)) return [];
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => changedPaths(a[k], b[k], path === '' ? k : `${path}.${k}`));
  }
  const show = (v: unknown) => {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  };
  if (a === undefined) return [`+ ${path}: ${show(b)}`];
  if (b === undefined) return [`- ${path}`];
  return [`~ ${path}: ${show(a)} -> ${show(b)}`];
}

/** The member copy without what every copy gets (claim labels/annotations, Karmada's bookkeeping). */
function withoutBookkeeping(
  object: KubeObject,
  claim: { labels: Record<string, string>; annotations: Record<string, string> },
): KubeObject {
  const drop = (m: Record<string, string> | undefined, keys: string[]) => {
    const out = Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !keys.includes(k)));
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const labels = drop(object.metadata.labels, [...Object.keys(claim.labels), 'karmada.io/managed']);
  const annotations = drop(object.metadata.annotations, [
    ...Object.keys(claim.annotations),
    'resourcetemplate.karmada.io/generation',
    MANAGED_LABELS_ANNOTATION,
    MANAGED_ANNOTATIONS_ANNOTATION,
  ]);
  const { labels: _l, annotations: _a, ...meta } = object.metadata;
  return {
    ...object,
    metadata: { ...meta, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  };
}

/** The template as a member copy starts: metadata name/namespace/labels/annotations, no status. */
function templateBody(t: KubeObject): KubeObject {
  const { status: _s, metadata, ...body } = t as KubeObject & { status?: unknown };
  return {
    ...body,
    metadata: {
      name: metadata.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
      ...(metadata.labels && Object.keys(metadata.labels).length > 0 ? { labels: metadata.labels } : {}),
      ...(metadata.annotations && Object.keys(metadata.annotations).length > 0
        ? { annotations: metadata.annotations }
        : {}),
    },
  };
}

export function explainTemplate(input: ExplainInput, template: KubeObject): TemplateReport {
  const report: TemplateReport = { ...templateRef(template), candidates: [], notes: [], members: [] };
  if (isIgnoredTemplate(template, input.skippedNamespaces)) {
    report.ignored =
      'policies never propagate it (a reserved or skipped namespace, or the resourcetemplate.karmada.io/claimed-by label)';
    return report;
  }
  const namespace = template.metadata.namespace ?? '';
  const pps = namespace === '' ? [] : input.pps.filter((p) => (p.namespace ?? '') === namespace);
  const all = [...pps, ...input.cpps];
  const holder = currentHolder(template, all);
  if (holder === 'deleting')
    report.notes.push('the policy holding its claim is being deleted: it waits for that');
  const winner =
    holder !== undefined && holder !== 'deleting'
      ? holder
      : holder === 'deleting'
        ? undefined
        : selectPolicy(template, pps, input.cpps);
  for (const p of all) {
    const implicit = implicitPriority(p.spec.resourceSelectors, template);
    if (implicit === ImplicitPriority.MisMatch) continue;
    const isWinner = winner !== undefined && same(winner, p);
    let reason: string;
    if (isWinner)
      reason = holder === winner ? 'holds the claim and still selects the template' : 'highest precedence';
    else if (p.deleting) reason = 'being deleted: ignored';
    else if (winner && holder === winner)
      reason = `${policyLabel(winner)} holds the claim (Karmada keeps it)`;
    else if (winner) reason = whyBeaten(winner, p, template);
    else reason = 'not chosen';
    report.candidates.push({
      kind: p.kind,
      ...(p.namespace ? { namespace: p.namespace } : {}),
      name: p.name,
      explicitPriority: p.spec.priority ?? 0,
      implicitPriority: implicit,
      match: MATCH_NAMES[implicit] ?? 'kind',
      winner: isWinner,
      reason,
    });
  }
  if (!winner) return report;
  report.claimedBy = {
    kind: winner.kind,
    ...(winner.namespace ? { namespace: winner.namespace } : {}),
    name: winner.name,
    how: holder === winner ? 'current claim' : 'new claim',
  };

  const binding = desiredBinding(template, winner);
  const current = input.bindingOf?.(template);
  if (binding.spec.suspension?.scheduling)
    report.notes.push('scheduling is suspended: the binding keeps the clusters it has');
  const result = scheduleBinding({
    placement: binding.spec.placement,
    clusters: input.clusters,
    replicas: binding.spec.replicas ?? 0,
    bindingUid: binding.spec.resource.uid ?? '',
    previous: current?.clusters,
    previousAffinityName: current?.affinityName,
  });
  report.placement = result.ok
    ? {
        ok: true,
        clusters: result.clusters,
        ...(result.affinityName ? { affinityName: result.affinityName } : {}),
      }
    : { ok: false, reason: result.reason, message: result.message };
  if (!result.ok) return report;

  const suspended = new Set(binding.spec.suspension?.dispatchingOnClusters?.clusterNames ?? []);
  if (binding.spec.suspension?.dispatching)
    report.notes.push('dispatching is suspended: no member is updated');
  if (binding.spec.propagateDeps) {
    const deps = dependenciesOf(template);
    if (deps.length > 0)
      report.notes.push(`propagateDeps sends along: ${deps.map((d) => `${d.kind} ${d.name}`).join(', ')}`);
  }
  const claim = claimMetadata({
    kind: winner.kind,
    namespace: winner.namespace,
    name: winner.name,
    permanentId: winner.permanentId,
  });
  const overrides = overridePoliciesFor(template, input.cops, input.ops);
  const retainReplicas = template.metadata.labels?.[RETAIN_REPLICAS_LABEL] === 'true';
  for (const target of result.clusters) {
    const cluster = input.clusters.find((c) => c.name === target.name);
    if (!cluster) continue;
    const member: ClusterReport = {
      cluster: target.name,
      ...(target.replicas !== undefined ? { replicas: target.replicas } : {}),
      overrides: [],
      changes: [],
    };
    if (suspended.has(target.name)) report.notes.push(`dispatching to ${target.name} is suspended`);
    try {
      const { object, applied } = memberObject({
        template,
        cluster,
        replicas: target.replicas,
        overrides,
        claim,
        retainReplicas,
      });
      member.overrides = applied;
      member.object = object;
      member.changes = changedPaths(templateBody(template), withoutBookkeeping(object, claim));
    } catch (e) {
      member.error = errorMessage(e);
    }
    report.members.push(member);
  }
  return report;
}

export function explain(input: ExplainInput): TemplateReport[] {
  return input.templates.map((t) => explainTemplate(input, t));
}

/** Plain text, one block per template. */
export function renderExplainText(reports: readonly TemplateReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    if (lines.length > 0) lines.push('');
    lines.push(`${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} (${r.apiVersion})`);
    if (r.ignored) {
      lines.push(`  ignored: ${r.ignored}`);
      continue;
    }
    if (r.candidates.length === 0) {
      lines.push('  no PropagationPolicy or ClusterPropagationPolicy selects it: it is not propagated');
      continue;
    }
    lines.push('  policies selecting it:');
    for (const c of r.candidates)
      lines.push(
        `    ${c.winner ? '*' : ' '} ${policyLabel(c)}  priority ${c.explicitPriority}, ${MATCH_WORDS[c.match]} (${c.implicitPriority}): ${c.reason}`,
      );
    for (const n of r.notes) lines.push(`  note: ${n}`);
    if (!r.claimedBy) continue;
    lines.push(`  claimed by: ${policyLabel(r.claimedBy)} (${r.claimedBy.how})`);
    const p = r.placement;
    if (!p) continue;
    if (!p.ok) {
      lines.push(`  placement: ${p.reason}: ${p.message}`);
      continue;
    }
    const where = p.clusters.map((c) => (c.replicas !== undefined ? `${c.name} (${c.replicas})` : c.name));
    lines.push(
      `  placement: ${where.length > 0 ? where.join(', ') : 'no cluster'}${p.affinityName ? ` [clusterAffinities term ${JSON.stringify(p.affinityName)}]` : ''}`,
    );
    for (const m of r.members) {
      lines.push(`  ${m.cluster}:${m.replicas !== undefined ? ` replicas ${m.replicas}` : ''}`);
      if (m.error) {
        lines.push(`    not sent: ${m.error}`);
        continue;
      }
      lines.push(`    overrides: ${m.overrides.length > 0 ? m.overrides.join(', ') : 'none'}`);
      for (const c of m.changes) lines.push(`    ${c}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
