// metav1.LabelSelectorAsSelector: validation and matching of a standard Kubernetes label selector,
// with error messages worded like apimachinery's so users recognise them.

import { labelValueErrors, qualifiedNameErrors } from '../kube/validation.ts';
import { isPlainObject } from './json.ts';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export class LabelSelectorError extends Error {
  override name = 'LabelSelectorError';
}

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

// Go prints a []string bad value with %#v.
function goStringSlice(values: readonly string[] | undefined): string {
  if (values === undefined || values.length === 0) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

type Op = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

interface Requirement {
  key: string;
  op: Op;
  values: ReadonlySet<string>;
}

/**
 * labels.NewRequirement: collects every problem of one requirement and reports them together, like
 * Go's aggregate error. matchLabels entries are Equals requirements, i.e. In with one value.
 */
function newRequirement(key: string, op: Op | 'Equals', values: readonly string[]): Requirement {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
  if (op === 'In' || op === 'NotIn') {
    if (values.length === 0)
      errs.push(
        `values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`,
      );
  } else if (op === 'Exists' || op === 'DoesNotExist') {
    if (values.length !== 0)
      errs.push(
        `values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`,
      );
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0)
      errs.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${valueErrs.join('; ')}`);
  });
  if (errs.length === 1) throw new LabelSelectorError(errs[0]!);
  if (errs.length > 1) throw new LabelSelectorError(`[${errs.join(', ')}]`);
  return { key, op: op === 'Equals' ? 'In' : op, values: new Set(values) };
}

function matches(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  switch (req.op) {
    case 'In':
      return has && req.values.has(labels[req.key]!);
    case 'NotIn':
      // An absent key satisfies NotIn, as in Kubernetes.
      return !has || !req.values.has(labels[req.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

const OPERATORS: ReadonlySet<string> = new Set<Op>(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function stringList(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new LabelSelectorError(`${where} must be a list of strings`);
  return value;
}

/**
 * Compiles a selector into a predicate over a label map. The empty selector `{}` matches
 * everything; a nil selector is the caller's business (placement treats it as "nothing").
 * Throws LabelSelectorError for an invalid selector, including malformed JSON shapes.
 */
export function compileLabelSelector(sel: LabelSelector): LabelMatcher {
  if (!isPlainObject(sel)) throw new LabelSelectorError('a label selector must be an object');
  const requirements: Requirement[] = [];
  const matchLabels: unknown = sel.matchLabels;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isPlainObject(matchLabels)) throw new LabelSelectorError('matchLabels must be a map of strings');
    // Sorted so that the first reported error does not depend on key order.
    for (const key of Object.keys(matchLabels).sort()) {
      const value = matchLabels[key];
      if (typeof value !== 'string')
        throw new LabelSelectorError(`matchLabels[${JSON.stringify(key)}] must be a string`);
      requirements.push(newRequirement(key, 'Equals', [value]));
    }
  }
  const matchExpressions: unknown = sel.matchExpressions;
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) throw new LabelSelectorError('matchExpressions must be a list');
    matchExpressions.forEach((expr: unknown, i) => {
      if (!isPlainObject(expr)) throw new LabelSelectorError(`matchExpressions[${i}] must be an object`);
      const { key, operator } = expr;
      if (typeof key !== 'string')
        throw new LabelSelectorError(`matchExpressions[${i}].key must be a string`);
      if (typeof operator !== 'string' || !OPERATORS.has(operator))
        throw new LabelSelectorError(
          `${JSON.stringify(typeof operator === 'string' ? operator : String(operator ?? ''))} is not a valid label selector operator`,
        );
      const values = stringList(expr.values, `matchExpressions[${i}].values`);
      requirements.push(newRequirement(key, operator as Op, values));
    });
  }
  if (requirements.length === 0) return () => true;
  return (labels) => {
    const set = labels ?? {};
    return requirements.every((r) => matches(r, set));
  };
}
