// Validation of Federated<Kind> objects (a kubefed-ts extension: KubeFed validates them only in the sync
// controller). The rules are those under which the sync controller refuses to propagate an object —
// placement that cannot be computed, overrides it cannot parse, a template it cannot use — so the
// user hears at `kubectl apply` what would otherwise be an event and a status reason. Nothing the
// controller would accept and propagate is rejected, with harmless additions: an empty or repeated cluster
// name in placement and an empty override clusterName (no cluster has an empty name, a repeat adds nothing).

import {
  duplicate,
  type FieldError,
  forbidden,
  invalid,
  notSupported,
  required,
} from '../../api/field-errors.ts';
import { labelValueErrors, qualifiedNameErrors } from '../../kube/validation.ts';
import {
  ANNOTATIONS_NOT_SUPPORTED_MESSAGE,
  FINALIZERS_NOT_SUPPORTED_MESSAGE,
} from '../../propagation/desired.ts';
import { compileLabelSelector, type LabelSelector } from '../../propagation/label-selector.ts';
import {
  FORBIDDEN_OVERRIDE_PATHS,
  normalizeOverridePath,
  OverridesError,
  parseOverrides,
} from '../../propagation/overrides.ts';
import { asFieldValue, isMissing, isPlainObject, type JsonObject, objectAt } from './common.ts';

export const FEDERATED_NAMESPACE_NAME_MESSAGE =
  'the name of a federated namespace must match the name of its containing namespace';

const OPS = ['add', 'remove', 'replace'];
const FORBIDDEN = new Set(FORBIDDEN_OVERRIDE_PATHS);

export interface FederatedObjectValidation {
  errors: FieldError[];
  /** Accepted but dropped by the controller: shown by kubectl as `Warning: ...`. */
  warnings: string[];
}

export interface FederatedObjectContext {
  /** The object is a FederatedNamespace: its name must equal its namespace. */
  federatedNamespace?: boolean;
  /** The request's namespace, used when the object does not carry one. */
  namespace?: string;
}

export function validateFederatedObject(
  obj: unknown,
  ctx: FederatedObjectContext = {},
): FederatedObjectValidation {
  const root = isPlainObject(obj) ? obj : {};
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  if (ctx.federatedNamespace) errors.push(...federatedNamespaceNameErrors(root, ctx.namespace));
  const spec = root['spec'];
  if (isMissing(spec)) {
    errors.push(required('spec'));
    return { errors, warnings };
  }
  if (!isPlainObject(spec)) {
    errors.push(invalid('spec', asFieldValue(spec), 'must be an object'));
    return { errors, warnings };
  }
  const template = templateChecks(spec['template']);
  errors.push(...template.errors);
  warnings.push(...template.warnings);
  errors.push(...placementErrors(spec['placement']));
  errors.push(...overridesErrors(spec['overrides']));
  return { errors, warnings };
}

function federatedNamespaceNameErrors(root: JsonObject, requestNamespace: string | undefined): FieldError[] {
  const meta = isPlainObject(root['metadata']) ? root['metadata'] : {};
  const name = typeof meta['name'] === 'string' ? meta['name'] : '';
  const ns =
    typeof meta['namespace'] === 'string' && meta['namespace'] ? meta['namespace'] : requestNamespace;
  // The apiserver always sends a name (generated ones included); without one there is nothing to compare.
  if (name === '' || name === ns) return [];
  return [invalid('metadata.name', name, FEDERATED_NAMESPACE_NAME_MESSAGE)];
}

/** What desiredObject (src/propagation/desired.ts) throws on, as errors; what it drops, as warnings. */
function templateChecks(template: unknown): FederatedObjectValidation {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  if (isMissing(template)) return { errors, warnings };
  if (!isPlainObject(template)) {
    errors.push(invalid('spec.template', asFieldValue(template), 'must be an object'));
    return { errors, warnings };
  }
  const apiVersion = template['apiVersion'];
  if (!isMissing(apiVersion) && typeof apiVersion !== 'string') {
    errors.push(invalid('spec.template.apiVersion', asFieldValue(apiVersion), 'must be a string'));
  }
  const meta = objectAt(errors, 'spec.template.metadata', template['metadata']);
  if (!meta) return { errors, warnings };
  const labels = meta['labels'];
  if (
    !isMissing(labels) &&
    !(isPlainObject(labels) && Object.values(labels).every((v) => typeof v === 'string'))
  ) {
    errors.push(invalid('spec.template.metadata.labels', asFieldValue(labels), 'must be a map of strings'));
  }
  if (isNonEmpty(meta['annotations'])) warnings.push(`spec.template.${ANNOTATIONS_NOT_SUPPORTED_MESSAGE}`);
  if (isNonEmpty(meta['finalizers'])) warnings.push(`spec.template.${FINALIZERS_NOT_SUPPORTED_MESSAGE}`);
  return { errors, warnings };
}

function isNonEmpty(value: unknown): boolean {
  if (isMissing(value)) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return true;
}

/**
 * `clusters[].name` required and not repeated. The selector counts only without `clusters` (placement
 * ignores it otherwise), and is then checked like metav1validation.ValidateLabelSelector.
 */
function placementErrors(value: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const placement = objectAt(errs, 'spec.placement', value);
  if (!placement) return errs;
  const clusters = placement['clusters'];
  if (!isMissing(clusters)) {
    if (!Array.isArray(clusters)) {
      errs.push(invalid('spec.placement.clusters', asFieldValue(clusters), 'must be a list'));
      return errs;
    }
    const seen = new Set<string>();
    clusters.forEach((ref: unknown, i) => {
      const path = `spec.placement.clusters[${i}].name`;
      const entry = objectAt(errs, `spec.placement.clusters[${i}]`, ref);
      if (!entry) return;
      const name = entry['name'];
      if (isMissing(name) || name === '') errs.push(required(path));
      else if (typeof name !== 'string') errs.push(invalid(path, asFieldValue(name), 'must be a string'));
      else if (seen.has(name)) errs.push(duplicate(path, name));
      else seen.add(name);
    });
    return errs;
  }
  const selector = placement['clusterSelector'];
  if (isMissing(selector)) return errs;
  const path = 'spec.placement.clusterSelector';
  if (!isPlainObject(selector)) return [invalid(path, asFieldValue(selector), 'must be an object')];
  errs.push(...labelSelectorErrors(selector, path));
  if (errs.length === 0) {
    // Placement compiles the selector itself: whatever it refuses must not get through.
    try {
      compileLabelSelector(selector as LabelSelector);
    } catch (e) {
      errs.push(invalid(path, asFieldValue(selector), (e as Error).message));
    }
  }
  return errs;
}

/** metav1validation.ValidateLabelSelector, paths and messages included. */
export function labelSelectorErrors(sel: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const labelsPath = `${path}.matchLabels`;
  const matchLabels = objectAt(errs, labelsPath, sel['matchLabels']);
  for (const [key, value] of Object.entries(matchLabels ?? {})) {
    for (const msg of qualifiedNameErrors(key)) errs.push(invalid(labelsPath, key, msg));
    if (typeof value !== 'string') errs.push(invalid(labelsPath, asFieldValue(value), 'must be a string'));
    else for (const msg of labelValueErrors(value)) errs.push(invalid(labelsPath, value, msg));
  }
  const exprs = sel['matchExpressions'];
  if (isMissing(exprs)) return errs;
  if (!Array.isArray(exprs))
    return [...errs, invalid(`${path}.matchExpressions`, asFieldValue(exprs), 'must be a list')];
  exprs.forEach((e: unknown, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const expr = objectAt(errs, p, e);
    if (!expr) return;
    const values = expr['values'];
    if (!isMissing(values) && !(Array.isArray(values) && values.every((v) => typeof v === 'string'))) {
      errs.push(invalid(`${p}.values`, asFieldValue(values), 'must be a list of strings'));
      return;
    }
    const list: string[] = values ?? [];
    const op = expr['operator'];
    if (op === 'In' || op === 'NotIn') {
      if (list.length === 0)
        errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (list.length > 0)
        errs.push(
          forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
    } else {
      errs.push(invalid(`${p}.operator`, asFieldValue(op ?? ''), 'not a valid selector operator'));
    }
    const key = expr['key'];
    if (typeof key !== 'string') errs.push(invalid(`${p}.key`, asFieldValue(key ?? ''), 'must be a string'));
    else for (const msg of qualifiedNameErrors(key)) errs.push(invalid(`${p}.key`, key, msg));
    list.forEach((v, j) => {
      for (const msg of labelValueErrors(v)) errs.push(invalid(`${p}.values[${j}]`, v, msg));
    });
  });
  return errs;
}

/**
 * The rules of parseOverrides (src/propagation/overrides.ts), every violation reported with its path
 * rather than only the first: clusterName given once; per cluster, valid paths given once and none of the
 * object's identity; op add, remove, replace or empty (the CRD's pattern). No value is needed: null is a value.
 */
function overridesErrors(value: unknown): FieldError[] {
  if (isMissing(value)) return [];
  if (!Array.isArray(value)) return [invalid('spec.overrides', asFieldValue(value), 'must be a list')];
  const errs: FieldError[] = [];
  const clusters = new Set<string>();
  value.forEach((item: unknown, i) => {
    const p = `spec.overrides[${i}]`;
    const entry = objectAt(errs, p, item);
    if (!entry) return;
    const cluster = entry['clusterName'];
    if (isMissing(cluster) || cluster === '') errs.push(required(`${p}.clusterName`));
    else if (typeof cluster !== 'string') {
      errs.push(invalid(`${p}.clusterName`, asFieldValue(cluster), 'must be a string'));
    } else if (clusters.has(cluster)) errs.push(duplicate(`${p}.clusterName`, cluster));
    else clusters.add(cluster);
    const list = entry['clusterOverrides'];
    if (isMissing(list)) return;
    if (!Array.isArray(list)) {
      errs.push(invalid(`${p}.clusterOverrides`, asFieldValue(list), 'must be a list'));
      return;
    }
    const paths = new Set<string>();
    list.forEach((o: unknown, j) => {
      const q = `${p}.clusterOverrides[${j}]`;
      const op = objectAt(errs, q, o);
      if (op) errs.push(...clusterOverrideErrors(op, q, paths));
    });
  });
  if (errs.length === 0) {
    // The controller's own parser has the last word, so the two can never disagree silently.
    try {
      parseOverrides(value);
    } catch (e) {
      if (!(e instanceof OverridesError)) throw e;
      errs.push(invalid('spec.overrides', asFieldValue(value), e.message));
    }
  }
  return errs;
}

function clusterOverrideErrors(entry: JsonObject, path: string, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const rawOp = entry['op'];
  // An empty op means replace, as in KubeFed.
  let op: string | undefined = 'replace';
  if (!isMissing(rawOp) && rawOp !== '') {
    op = typeof rawOp === 'string' && OPS.includes(rawOp) ? rawOp : undefined;
    if (op === undefined) errs.push(notSupported(`${path}.op`, asFieldValue(rawOp), OPS));
  }
  const rawPath = entry['path'];
  // The CRD requires the key; "" is the whole object, which KubeFed's JSON-patch library accepts for replace.
  if (isMissing(rawPath)) errs.push(required(`${path}.path`));
  else if (typeof rawPath !== 'string')
    errs.push(invalid(`${path}.path`, asFieldValue(rawPath), 'must be a string'));
  else {
    let pointer: string | undefined;
    try {
      pointer = normalizeOverridePath(rawPath);
    } catch (e) {
      if (!(e instanceof OverridesError)) throw e;
      errs.push(invalid(`${path}.path`, rawPath, e.message));
    }
    if (pointer !== undefined && FORBIDDEN.has(pointer)) {
      errs.push(
        forbidden(
          `${path}.path`,
          `${pointer} may not be overridden: the name, namespace and kind of member objects come from the federated object`,
        ),
      );
    } else if (pointer !== undefined && seen.has(pointer)) errs.push(duplicate(`${path}.path`, rawPath));
    if (pointer !== undefined) seen.add(pointer);
  }
  // No value is allowed: KubeFed serialises it with omitempty, so add and replace set null (the field is unset).
  return errs;
}
