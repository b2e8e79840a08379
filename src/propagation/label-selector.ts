// metav1.LabelSelectorAsSelector: validation and matching of a standard Kubernetes label selector,
// with error messages worded like apimachinery's so users recognise them.

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

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MAX = 63;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MAX = 63;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const encoder = new TextEncoder();
// Go measures strings in bytes.
const byteLength = (s: string): number => encoder.encode(s).length;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** validation.IsDNS1123Subdomain. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** validation.IsQualifiedName. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name))
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  return errs;
}

/** validation.IsValidLabelValue. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

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
