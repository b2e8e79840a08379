// Which member nodes a replica may land on, from the binding's spec.replicaRequirements.nodeClaim (the pod
// template's nodeSelector, required node affinity and tolerations): karmada pkg/estimator/server/nodes
// filter.go (IsNodeAffinityMatched, IsTolerationMatched) over k8s.io/component-helpers scheduling/corev1
// nodeaffinity (GetRequiredNodeAffinity, LazyErrorNodeSelector) and apimachinery labels.Requirement.
// The capacity estimate counts only the nodes this accepts. Pure.

import type { Toleration } from '../../api/policy/v1alpha1/index.ts';
import type { KubeObject } from '../../kube/client/types.ts';
import { labelValueErrors, qualifiedNameErrors } from '../../kube/validation.ts';
import { isPlainObject } from '../../propagation/json.ts';
import { tolerates } from './taints.ts';

export type NodeMatcher = (node: KubeObject) => boolean;

type Labels = Readonly<Record<string, unknown>>;

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function strings(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64), or undefined where Go reports an error. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

type LabelTest = (labels: Labels) => boolean;

/**
 * One matchExpressions entry as labels.NewRequirement validates it and Requirement.Matches applies it;
 * undefined when invalid (the whole term then matches nothing, as a parse error does).
 */
function labelRequirement(expr: Record<string, unknown>): LabelTest | undefined {
  const { key, operator } = expr;
  const values = strings(expr.values);
  if (typeof key !== 'string' || values === undefined) return undefined;
  if (qualifiedNameErrors(key).length > 0 || values.some((v) => labelValueErrors(v).length > 0))
    return undefined;
  const has = (labels: Labels) => Object.hasOwn(labels, key) && typeof labels[key] === 'string';
  switch (operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0) return undefined;
      const set = new Set(values);
      return operator === 'In'
        ? (l) => has(l) && set.has(l[key] as string)
        : (l) => !has(l) || !set.has(l[key] as string);
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) return undefined;
      return operator === 'Exists' ? has : (l) => !has(l);
    case 'Gt':
    case 'Lt': {
      const bound = values.length === 1 ? parseInt64(values[0]!) : undefined;
      if (bound === undefined) return undefined;
      return (l) => {
        // A label that is not an integer does not satisfy Gt or Lt.
        const n = has(l) ? parseInt64(l[key] as string) : undefined;
        if (n === undefined) return false;
        return operator === 'Gt' ? n > bound : n < bound;
      };
    }
    default:
      return undefined;
  }
}

/** One matchFields entry (nodeSelectorRequirementsAsFieldSelector): In or NotIn with exactly one value. */
function fieldRequirement(expr: Record<string, unknown>): ((fields: Labels) => boolean) | undefined {
  const { key, operator } = expr;
  const values = strings(expr.values);
  if (typeof key !== 'string' || values?.length !== 1) return undefined;
  const value = values[0]!;
  // fields.Set.Get: an absent field reads as the empty string.
  const get = (f: Labels) => (typeof f[key] === 'string' ? (f[key] as string) : '');
  if (operator === 'In') return (f) => get(f) === value;
  if (operator === 'NotIn') return (f) => get(f) !== value;
  return undefined;
}

interface Term {
  labels?: LabelTest[];
  fields?: ((fields: Labels) => boolean)[];
}

/** newNodeSelectorTerm; undefined for a term with a parse error. */
function nodeSelectorTerm(term: Record<string, unknown>): Term | undefined {
  const out: Term = {};
  const exprs = list(term.matchExpressions);
  if (exprs.length > 0) {
    const tests = exprs.map(labelRequirement);
    if (tests.some((t) => t === undefined)) return undefined;
    out.labels = tests as LabelTest[];
  }
  const fields = list(term.matchFields);
  if (fields.length > 0) {
    const tests = fields.map(fieldRequirement);
    if (tests.some((t) => t === undefined)) return undefined;
    out.fields = tests as ((f: Labels) => boolean)[];
  }
  return out;
}

/**
 * The required node affinity (a corev1.NodeSelector): its terms ORed, each term's expressions ANDed; an
 * empty term and a term that does not parse match nothing, so an affinity without a valid term matches no
 * node. matchFields know metadata.name only, and are skipped for a node without a name (as upstream).
 */
function nodeAffinityMatcher(selector: unknown): NodeMatcher {
  const terms = list(record(selector).nodeSelectorTerms)
    .filter((t) => list(t.matchExpressions).length > 0 || list(t.matchFields).length > 0)
    .map(nodeSelectorTerm)
    .filter((t): t is Term => t !== undefined);
  return (node) => {
    const labels = record(node.metadata.labels);
    const name = node.metadata.name ?? '';
    const fields: Labels = name ? { 'metadata.name': name } : {};
    return terms.some(
      (t) =>
        (t.labels ?? []).every((test) => test(labels)) &&
        (!t.fields || !name || t.fields.every((test) => test(fields))),
    );
  };
}

/** The claim's tolerations as corev1 tolerations (non-string members dropped). */
function tolerationsOf(value: unknown): Toleration[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return list(value).map((t) => {
    const out: Toleration = {};
    const key = str(t.key);
    const operator = str(t.operator);
    const v = str(t.value);
    const effect = str(t.effect);
    if (key !== undefined) out.key = key;
    if (operator !== undefined) out.operator = operator;
    if (v !== undefined) out.value = v;
    if (effect !== undefined) out.effect = effect;
    return out;
  });
}

/** What the node controller and `kubectl cordon` mean by spec.unschedulable (corev1.TaintNodeUnschedulable). */
const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' } as const;

/**
 * IsTolerationMatched: a cordoned node only for pods tolerating the unschedulable taint, and every
 * NoSchedule and NoExecute taint tolerated (PreferNoSchedule is a preference, never a filter).
 */
function toleratedBy(tolerations: readonly Toleration[]): NodeMatcher {
  const tolerated = (taint: { key: string; value?: string; effect: 'NoSchedule' | 'NoExecute' }) =>
    tolerations.some((t) => tolerates(t, taint));
  return (node) => {
    const spec = record(node.spec);
    if (spec.unschedulable === true && !tolerated(UNSCHEDULABLE_TAINT)) return false;
    return list(spec.taints).every((taint) => {
      const effect = taint.effect;
      if (effect !== 'NoSchedule' && effect !== 'NoExecute') return true;
      return tolerated({
        key: typeof taint.key === 'string' ? taint.key : '',
        ...(typeof taint.value === 'string' ? { value: taint.value } : {}),
        effect,
      });
    });
  };
}

/**
 * Whether a replica with this node claim (work/v1alpha2 NodeClaim: nodeSelector, hardNodeAffinity,
 * tolerations; absent: no constraint) may be placed on a node: every nodeSelector label equal, the hard
 * node affinity matched, the node's taints and cordon tolerated.
 */
export function nodeClaimMatcher(nodeClaim: unknown): NodeMatcher {
  const claim = record(nodeClaim);
  const selector = Object.entries(record(claim.nodeSelector));
  const affinity =
    claim.hardNodeAffinity !== undefined && claim.hardNodeAffinity !== null
      ? nodeAffinityMatcher(claim.hardNodeAffinity)
      : undefined;
  const taints = toleratedBy(tolerationsOf(claim.tolerations));
  return (node) => {
    const labels = record(node.metadata.labels);
    if (!selector.every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v)) return false;
    if (affinity && !affinity(node)) return false;
    return taints(node);
  };
}
