// Admission validation of OverridePolicy and ClusterOverridePolicy specs, exactly Karmada's
// (pkg/util/validation/validation.go: ValidateOverrideSpec, ValidateOverrideRules, validateOverrideOperator,
// ValidateClusterAffinity; called by pkg/webhook/overridepolicy and clusteroverridepolicy validating.go).
// What Karmada leaves alone stays allowed: plaintext paths and operators, the deprecated `spec.overriders`
// (beyond its co-existence with overrideRules), a fieldOverrider with neither json nor yaml.
// Bad values print as Go's field.Error does: strings with %q, v1.JSON and FieldSelector with %#v; other
// structs (which Go prints with pointer addresses) as JSON.

import { labelValueErrors, qualifiedNameErrors } from '../../../kube/validation.ts';
import {
  canonicalJson,
  compareCodePoints,
  isPlainObject,
  type JsonObject,
} from '../../../propagation/json.ts';

/** apimachinery TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10);

const present = (v: unknown): boolean => v !== undefined && v !== null;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const object = (v: unknown): JsonObject => (isPlainObject(v) ? v : {});

/** strconv.Quote for the strings a policy holds. */
export function goStringQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** %#v of an apiextensionsv1.JSON: its raw bytes, as the API server serialised the value. */
function goJsonValue(value: unknown): string {
  if (!present(value)) return 'v1.JSON{Raw:[]uint8(nil)}';
  const bytes = new TextEncoder().encode(canonicalJson(value));
  return `v1.JSON{Raw:[]uint8{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}}`;
}

function goStrings(v: unknown): string {
  if (!Array.isArray(v)) return '[]string(nil)';
  return `[]string{${v.map((s) => goStringQuote(String(s))).join(', ')}}`;
}

/** %#v of a policyv1alpha1.FieldSelector. */
function goFieldSelector(fs: JsonObject): string {
  const exprs = fs['matchExpressions'];
  const body = Array.isArray(exprs)
    ? `[]v1.NodeSelectorRequirement{${exprs
        .map((e) => {
          const r = object(e);
          return `v1.NodeSelectorRequirement{Key:${goStringQuote(String(r['key'] ?? ''))}, Operator:${goStringQuote(String(r['operator'] ?? ''))}, Values:${goStrings(r['values'])}}`;
        })
        .join(', ')}}`
    : '[]v1.NodeSelectorRequirement(nil)';
  return `v1alpha1.FieldSelector{MatchExpressions:${body}}`;
}

const invalidRaw = (field: string, rendered: string, detail: string): string =>
  `${field}: Invalid value: ${rendered}: ${detail}`;

const invalidString = (field: string, value: string, detail: string): string =>
  invalidRaw(field, goStringQuote(value), detail);

/** ValidatePolicyFieldSelector: the first bad key or operator. */
function fieldSelectorError(fs: JsonObject): string | undefined {
  for (const e of list(fs['matchExpressions'])) {
    const r = object(e);
    const key = String(r['key'] ?? '');
    if (key !== 'provider' && key !== 'region' && key !== 'zone')
      return `unsupported key ${goStringQuote(key)}, must be provider, region, or zone`;
    const op = String(r['operator'] ?? '');
    if (op !== 'In' && op !== 'NotIn')
      return `unsupported operator ${goStringQuote(op)}, must be In or NotIn`;
  }
  return undefined;
}

/** ValidateClusterAffinity. */
function validateClusterAffinity(affinity: unknown, path: string): string[] {
  if (!present(affinity)) return [];
  const fs = object(affinity)['fieldSelector'];
  if (!present(fs)) return [];
  const err = fieldSelectorError(object(fs));
  return err ? [invalidRaw(`${path}.fieldSelector`, goFieldSelector(object(fs)), err)] : [];
}

/** jsonpointer.New: empty or starting with `/`. */
function pointerError(path: unknown): string | undefined {
  const p = typeof path === 'string' ? path : '';
  return p === '' || p.startsWith('/') ? undefined : 'JSON pointer must be empty or start with a "/"';
}

const sortedEntries = (m: unknown): [string, string][] =>
  Object.entries(object(m))
    .map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : String(v)])
    .sort(([a], [b]) => compareCodePoints(a, b));

/** metav1validation.ValidateLabels (Go visits the map in random order; this visits keys sorted). */
function validateLabels(labels: unknown, path: string): string[] {
  const errs: string[] = [];
  for (const [k, v] of sortedEntries(labels)) {
    for (const msg of qualifiedNameErrors(k)) errs.push(invalidString(path, k, msg));
    for (const msg of labelValueErrors(v)) errs.push(invalidString(path, v, msg));
  }
  return errs;
}

const byteLength = (s: string): number => new TextEncoder().encode(s).length;

/** apivalidation.ValidateAnnotations: keys are qualified names in any case; 256 KiB in all. */
function validateAnnotations(annotations: unknown, path: string): string[] {
  const errs: string[] = [];
  let size = 0;
  for (const [k, v] of sortedEntries(annotations)) {
    for (const msg of qualifiedNameErrors(k.toLowerCase())) errs.push(invalidString(path, k, msg));
    size += byteLength(k) + byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT)
    errs.push(`${path}: Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`);
  return errs;
}

/** validateOverrideOperator: add and replace need a value, remove must not have one (null is none). */
function validateOperator(operator: unknown, value: unknown, path: string): string[] {
  if ((operator === 'add' || operator === 'replace') && !present(value))
    return [invalidRaw(path, goJsonValue(value), 'value is required for add or replace operation')];
  if (operator === 'remove' && present(value))
    return [invalidRaw(path, goJsonValue(value), 'value is not allowed for remove operation')];
  return [];
}

function validatePatches(patches: unknown, path: string): string[] {
  return list(patches).flatMap((p, i) => {
    const op = object(p);
    const at = `${path}[${i}]`;
    const errs: string[] = [];
    const err = pointerError(op['subPath']);
    if (err) errs.push(invalidString(`${at}.subPath`, String(op['subPath'] ?? ''), err));
    errs.push(...validateOperator(op['operator'], op['value'], `${at}.value`));
    return errs;
  });
}

/** ValidateOverrideRules. */
function validateRules(rules: unknown): string[] {
  return list(rules).flatMap((r, i) => {
    const rule = object(r);
    const rulePath = `spec.overrideRules[${i}]`;
    const o = object(rule['overriders']);
    const errs: string[] = [];
    list(o['annotationsOverrider']).forEach((a, j) => {
      errs.push(
        ...validateAnnotations(object(a)['value'], `${rulePath}.overriders.annotationsOverrider[${j}].value`),
      );
    });
    list(o['labelsOverrider']).forEach((l, j) => {
      errs.push(...validateLabels(object(l)['value'], `${rulePath}.overriders.labelsOverrider[${j}].value`));
    });
    list(o['imageOverrider']).forEach((im, j) => {
      const predicate = object(im)['predicate'];
      if (!present(predicate)) return;
      const path = object(predicate)['path'];
      const err = pointerError(path);
      if (err)
        errs.push(
          invalidString(
            `${rulePath}.overriders.imageOverrider[${j}].predicate.path`,
            String(path ?? ''),
            err,
          ),
        );
    });
    list(o['fieldOverrider']).forEach((f, j) => {
      const fo = object(f);
      const at = `${rulePath}.overriders.fieldOverrider[${j}]`;
      if (list(fo['yaml']).length > 0 && list(fo['json']).length > 0)
        errs.push(
          invalidRaw(at, canonicalJson(fo), 'FieldOverrider has both YAML and JSON set. Only one is allowed'),
        );
      const err = pointerError(fo['fieldPath']);
      if (err) errs.push(invalidString(`${at}.fieldPath`, String(fo['fieldPath'] ?? ''), err));
      errs.push(...validatePatches(fo['json'], `${at}.json`));
      errs.push(...validatePatches(fo['yaml'], `${at}.yaml`));
    });
    errs.push(...validateClusterAffinity(rule['targetCluster'], `${rulePath}.targetCluster`));
    return errs;
  });
}

/** emptyOverrides: Karmada does not count fieldOverrider here. */
function emptyOverriders(o: unknown): boolean {
  const ov = object(o);
  return [
    'plaintext',
    'imageOverrider',
    'commandOverrider',
    'argsOverrider',
    'labelsOverrider',
    'annotationsOverrider',
  ].every((k) => list(ov[k]).length === 0);
}

/**
 * Karmada's OverridePolicy webhook validation as field errors, e.g.
 * `spec.overrideRules[0].overriders.imageOverrider[1].predicate.path: Invalid value: "spec": JSON pointer must
 * be empty or start with a "/"`. Empty = valid.
 */
export function validateOverrideSpec(spec: unknown): string[] {
  if (!isPlainObject(spec)) return [];
  const errs: string[] = [];
  const targetCluster = spec['targetCluster'];
  const rules = spec['overrideRules'];
  if (present(targetCluster)) errs.push(...validateClusterAffinity(targetCluster, 'spec.targetCluster'));
  if (present(targetCluster) && present(rules))
    errs.push(
      invalidRaw(
        'spec.targetCluster',
        canonicalJson(object(targetCluster)),
        "overrideRules and targetCluster can't co-exist",
      ),
    );
  if (!emptyOverriders(spec['overriders']) && present(rules))
    errs.push(
      invalidRaw(
        'spec.overriders',
        canonicalJson(object(spec['overriders'])),
        "overrideRules and overriders can't co-exist",
      ),
    );
  errs.push(...validateRules(rules));
  return errs;
}
