// Validation of PropagationPolicy and ClusterPropagationPolicy with Karmada's rules and messages
// (karmada pkg/webhook/propagationpolicy/validating.go, pkg/webhook/clusterpropagationpolicy/validating.go,
// pkg/util/validation/validation.go ValidatePropagationSpec and the functions it calls). kubefed-ts adds a
// few checks the controllers would otherwise trip over later: selectors need apiVersion and kind, label
// selectors must compile, a PropagationPolicy's selectors stay in its namespace, and a
// ClusterPropagationPolicy may not select Karmada's reserved namespaces.

import {
  type FieldError,
  forbidden,
  formatFieldErrors,
  invalid,
  notSupported,
  required,
} from '../../api/field-errors.ts';
import { isReservedNamespace } from '../../api/policy/v1alpha1/labels.ts';
import { qualifiedNameErrors } from '../../kube/validation.ts';
import { compileLabelSelector, type LabelSelector } from '../../propagation/label-selector.ts';
import { type PolicyKindInfo, permanentIdLabel } from '../propagationpolicy.ts';
import { asFieldValue, isMissing, isPlainObject, type JsonObject, objectAt } from './common.ts';
import { labelSelectorErrors } from './federated-object.ts';

export const SCHEDULER_NAME_IMMUTABLE_MESSAGE = 'the schedulerName should not be updated';
export const permanentIdImmutableMessage = (label: string): string =>
  `label ${label} is immutable, it can only be set by the system during creation`;
export const permanentIdRequiredMessage = (label: string): string =>
  `label ${label} is required, it should be set by the mutating admission webhook during creation`;

/** Karmada's ClusterAffinityTerm.AffinityName: `+kubebuilder:validation:MaxLength=32`. */
const AFFINITY_NAME_MAX = 32;
const FIELD_SELECTOR_KEYS = ['provider', 'region', 'zone'];
const FIELD_SELECTOR_OPERATORS = ['In', 'NotIn'];
const SUPPORTED_TOLERATION_OPERATORS = ['Exists', 'Equal'];

export interface PropagationPolicyContext extends PolicyKindInfo {
  /** The policy's namespace ('' for a ClusterPropagationPolicy). */
  namespace: string;
}

const labelsOf = (obj: JsonObject): JsonObject => {
  const meta = isPlainObject(obj['metadata']) ? obj['metadata'] : {};
  return isPlainObject(meta['labels']) ? meta['labels'] : {};
};
const specOf = (obj: JsonObject): JsonObject => (isPlainObject(obj['spec']) ? obj['spec'] : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Karmada's admission decision for one policy: the first failing stage's message, as Karmada denies it
 * (immutable fields on UPDATE, then the required label, then every spec error aggregated), or undefined.
 */
export function propagationPolicyDenial(
  obj: JsonObject,
  ctx: PropagationPolicyContext,
  old?: JsonObject,
  opts: { immutabilityOnly?: boolean } = {},
): string | undefined {
  const label = permanentIdLabel(ctx);
  if (old) {
    if (str(specOf(obj)['schedulerName']) !== str(specOf(old)['schedulerName'])) {
      return SCHEDULER_NAME_IMMUTABLE_MESSAGE;
    }
    // Go reads a missing label as "": adding one to a policy stored without it is a change too.
    if (str(labelsOf(obj)[label]) !== str(labelsOf(old)[label])) return permanentIdImmutableMessage(label);
  }
  if (opts.immutabilityOnly) return undefined;
  if (!Object.hasOwn(labelsOf(obj), label)) return permanentIdRequiredMessage(label);
  const errs = validatePropagationSpec(obj['spec'], ctx);
  return errs.length > 0 ? formatFieldErrors(errs) : undefined;
}

/** ValidatePropagationSpec, plus the selector rules above. */
export function validatePropagationSpec(value: unknown, ctx: PropagationPolicyContext): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objectAt(errs, 'spec', value);
  if (!spec) return errs;
  errs.push(...resourceSelectorErrors(spec['resourceSelectors'], ctx));
  errs.push(...placementErrors(spec['placement'], 'spec.placement'));
  const failover = isPlainObject(spec['failover']) ? spec['failover'] : undefined;
  if (isPlainObject(failover?.['application']) && spec['propagateDeps'] !== true) {
    errs.push(
      invalid(
        'spec.propagateDeps',
        asFieldValue(spec['propagateDeps'] ?? false),
        'application failover is set, propagateDeps must be true',
      ),
    );
  }
  errs.push(...failoverErrors(spec['failover'], 'spec.failover'));
  if (spec['preemption'] === 'Always') {
    objectsWithIndex(spec['resourceSelectors']).forEach(([s, i]) => {
      if (str(s['name']) === '') {
        errs.push(
          invalid(
            `spec.resourceSelectors[${i}].name`,
            '',
            'name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption',
          ),
        );
      }
    });
  }
  errs.push(...suspensionErrors(spec['suspension'], 'spec.suspension'));
  return errs;
}

function objectsWithIndex(v: unknown): Array<[JsonObject, number]> {
  if (!Array.isArray(v)) return [];
  const out: Array<[JsonObject, number]> = [];
  v.forEach((x: unknown, i) => {
    if (isPlainObject(x)) out.push([x, i]);
  });
  return out;
}

function listAt(errs: FieldError[], path: string, value: unknown): unknown[] {
  if (isMissing(value)) return [];
  if (Array.isArray(value)) return value;
  errs.push(invalid(path, asFieldValue(value), 'must be a list'));
  return [];
}

/** The selectors: at least one; apiVersion and kind; namespace rules; a label selector that compiles. */
function resourceSelectorErrors(value: unknown, ctx: PropagationPolicyContext): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'spec.resourceSelectors';
  const list = listAt(errs, path, value);
  if (errs.length > 0) return errs;
  // The CRD's minItems refuses this first; kept for objects the schema did not check.
  if (list.length === 0) return [required(path, 'empty is not allowed and does not mean match all')];
  list.forEach((item: unknown, i) => {
    const p = `${path}[${i}]`;
    const s = objectAt(errs, p, item);
    if (!s) return;
    for (const field of ['apiVersion', 'kind']) {
      if (str(s[field]) === '') errs.push(required(`${p}.${field}`));
    }
    const ns = str(s['namespace']);
    if (!ctx.cluster && ns !== ctx.namespace) {
      errs.push(
        invalid(
          `${p}.namespace`,
          ns,
          `must be the namespace of the PropagationPolicy ("${ctx.namespace}"): a PropagationPolicy selects resources in its own namespace only`,
        ),
      );
    }
    if (ctx.cluster && ns !== '' && isReservedNamespace(ns)) {
      errs.push(
        forbidden(
          `${p}.namespace`,
          `namespace ${JSON.stringify(ns)} is reserved by Karmada (karmada-system, karmada-cluster, karmada-es-*) and cannot be propagated`,
        ),
      );
    }
    errs.push(...selectorErrors(s['labelSelector'], `${p}.labelSelector`));
  });
  return errs;
}

/** metav1validation.ValidateLabelSelector, then the compiler the controllers match with. */
function selectorErrors(value: unknown, path: string): FieldError[] {
  if (isMissing(value)) return [];
  if (!isPlainObject(value)) return [invalid(path, asFieldValue(value), 'must be an object')];
  const errs = labelSelectorErrors(value, path);
  if (errs.length > 0) return errs;
  try {
    compileLabelSelector(value as LabelSelector);
  } catch (e) {
    return [invalid(path, asFieldValue(value), (e as Error).message)];
  }
  return [];
}

/** ValidatePlacement. */
function placementErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const placement = objectAt(errs, path, value);
  if (!placement) return errs;
  const affinity = placement['clusterAffinity'];
  const affinities = placement['clusterAffinities'];
  if (!isMissing(affinity) && !isMissing(affinities)) {
    errs.push(invalid(path, placement, 'clusterAffinities cannot co-exist with clusterAffinity'));
  }
  if (!isMissing(affinity)) errs.push(...clusterAffinityErrors(affinity, `${path}.clusterAffinity`));
  errs.push(
    ...clusterAffinitiesErrors(affinities, `${path}.clusterAffinities`, placement['replicaScheduling']),
  );
  errs.push(...tolerationErrors(placement['clusterTolerations'], `${path}.clusterTolerations`));
  errs.push(...spreadConstraintErrors(placement['spreadConstraints'], `${path}.spreadConstraints`));
  errs.push(...replicaSchedulingErrors(placement['replicaScheduling'], `${path}.replicaScheduling`));
  errs.push(...workloadAffinityErrors(placement['workloadAffinity'], `${path}.workloadAffinity`));
  return errs;
}

/** ValidateClusterAffinity (the field selector, first problem only, as Karmada) and the label selector. */
function clusterAffinityErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const affinity = objectAt(errs, path, value);
  if (!affinity) return errs;
  const fieldSelector = affinity['fieldSelector'];
  const msg = fieldSelectorProblem(fieldSelector);
  if (msg) errs.push(invalid(`${path}.fieldSelector`, asFieldValue(fieldSelector), msg));
  errs.push(...selectorErrors(affinity['labelSelector'], `${path}.labelSelector`));
  return errs;
}

/** ValidatePolicyFieldSelector. */
function fieldSelectorProblem(value: unknown): string | undefined {
  if (isMissing(value)) return undefined;
  if (!isPlainObject(value)) return 'must be an object';
  const exprs = value['matchExpressions'];
  if (isMissing(exprs)) return undefined;
  if (!Array.isArray(exprs)) return 'matchExpressions must be a list';
  for (const e of exprs) {
    const expr: JsonObject = isPlainObject(e) ? e : {};
    const key = str(expr['key']);
    if (!FIELD_SELECTOR_KEYS.includes(key))
      return `unsupported key ${JSON.stringify(key)}, must be provider, region, or zone`;
    const op = str(expr['operator']);
    if (!FIELD_SELECTOR_OPERATORS.includes(op))
      return `unsupported operator ${JSON.stringify(op)}, must be In or NotIn`;
  }
  return undefined;
}

/** The inline affinity of a term: every field but the term's own. */
function inlineAffinity(term: JsonObject): JsonObject {
  const { affinityName: _, overflowAffinities: __, ...rest } = term;
  return rest;
}

const isEmptyAffinity = (a: JsonObject): boolean =>
  Object.values(a).every(
    (v) =>
      isMissing(v) ||
      (Array.isArray(v) && v.length === 0) ||
      (isPlainObject(v) && Object.keys(v).length === 0),
  );

/** IsReplicaDynamicDivided: Divided and either Aggregated or Weighted by dynamic weight. */
function dynamicDivided(value: unknown): boolean {
  if (!isPlainObject(value) || value['replicaSchedulingType'] !== 'Divided') return false;
  const pref = value['replicaDivisionPreference'];
  if (pref === 'Aggregated') return true;
  const weights = value['weightPreference'];
  return pref === 'Weighted' && isPlainObject(weights) && str(weights['dynamicWeight']) !== '';
}

/** ValidateClusterAffinities and ValidateOverflowAffinities. */
function clusterAffinitiesErrors(value: unknown, path: string, replicaScheduling: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const list = listAt(errs, path, value);
  const names = new Set<string>();
  let duplicated = false;
  list.forEach((item: unknown, i) => {
    const p = `${path}[${i}]`;
    const term = objectAt(errs, p, item);
    if (!term) return;
    const name = str(term['affinityName']);
    errs.push(...affinityNameErrors(name, p));
    if (names.has(name)) duplicated = true;
    names.add(name);
    errs.push(...clusterAffinityErrors(inlineAffinity(term), p));
    const overflow = listAt(errs, `${p}.overflowAffinities`, term['overflowAffinities']);
    if (overflow.length === 0) return;
    if (!dynamicDivided(replicaScheduling)) {
      errs.push(
        invalid(
          `${p}.overflowAffinities`,
          asFieldValue(overflow),
          'overflowAffinities can only be used together with dynamic weight or aggregated scheduling',
        ),
      );
    }
    if (isEmptyAffinity(inlineAffinity(term))) {
      errs.push(
        invalid(
          `${p}.overflowAffinities`,
          asFieldValue(overflow),
          'overflowAffinities can only be used together with the inline ClusterAffinity',
        ),
      );
    }
    const seen = new Set<string>([name]);
    let clash = false;
    overflow.forEach((o: unknown, j) => {
      const op = `${p}.overflowAffinities[${j}]`;
      const entry = objectAt(errs, op, o);
      if (!entry) return;
      const overflowName = str(entry['affinityName']);
      errs.push(...affinityNameErrors(overflowName, op));
      if (seen.has(overflowName)) clash = true;
      seen.add(overflowName);
      errs.push(...clusterAffinityErrors(inlineAffinity(entry), op));
    });
    if (clash) {
      errs.push(
        invalid(
          `${p}.overflowAffinities`,
          asFieldValue(overflow),
          "overflow affinity name must be unique and must not duplicate the primary group's affinityName",
        ),
      );
    }
  });
  if (duplicated) {
    errs.push(invalid(path, asFieldValue(list), 'each affinity term in a policy must have a unique name'));
  }
  return errs;
}

/** A valid label key (IsQualifiedName) of 1-32 characters. */
function affinityNameErrors(name: string, path: string): FieldError[] {
  const errs = qualifiedNameErrors(name).map((m) => invalid(path, name, m));
  if (name.length > AFFINITY_NAME_MAX) {
    errs.push(invalid(`${path}.affinityName`, name, `must be no more than ${AFFINITY_NAME_MAX} characters`));
  }
  return errs;
}

/** validateClusterTolerations: Lt and Gt compare numbers, which cluster taints do not carry. */
function tolerationErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  listAt(errs, path, value).forEach((item: unknown, i) => {
    const t = objectAt(errs, `${path}[${i}]`, item);
    const op = t?.['operator'];
    if (op === 'Lt' || op === 'Gt') {
      errs.push(notSupported(`${path}[${i}].operator`, op, SUPPORTED_TOLERATION_OPERATORS));
    }
  });
  return errs;
}

const intOr = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);

/** ValidateSpreadConstraint. */
function spreadConstraintErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = listAt(errs, path, value);
  const byField = new Map<string, boolean>();
  list.forEach((item: unknown, i) => {
    const p = `${path}[${i}]`;
    const c = objectAt(errs, p, item);
    if (!c) return;
    const field = str(c['spreadByField']);
    const min = intOr(c['minGroups'], 0);
    const max = intOr(c['maxGroups'], 0);
    if (field !== '' && str(c['spreadByLabel']) !== '') {
      errs.push(invalid(p, c, 'spreadByLabel should not co-exist with spreadByField'));
    }
    if (min < 0) errs.push(invalid(p, c, 'minGroups lower than 0 is not allowed'));
    if (max < 0) errs.push(invalid(p, c, 'maxGroups lower than 0 is not allowed'));
    if (max > 0 && max < min) errs.push(invalid(p, c, 'maxGroups lower than minGroups is not allowed'));
    if (field !== '') {
      const reported = byField.get(field);
      if (reported === false) {
        errs.push(invalid(path, asFieldValue(list), `multiple ${field} spread constraints are not allowed`));
        byField.set(field, true);
      } else if (reported === undefined) byField.set(field, false);
    }
  });
  if (byField.size > 0 && !byField.has('cluster')) {
    errs.push(
      invalid(
        path,
        asFieldValue(list),
        'the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled',
      ),
    );
  }
  return errs;
}

/** Static weights (Karmada's CRD: `weight` minimum 1) and their target clusters. */
function replicaSchedulingErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rs = objectAt(errs, path, value);
  const prefs = rs && objectAt(errs, `${path}.weightPreference`, rs['weightPreference']);
  if (!prefs) return errs;
  const listPath = `${path}.weightPreference.staticWeightList`;
  listAt(errs, listPath, prefs['staticWeightList']).forEach((item: unknown, i) => {
    const p = `${listPath}[${i}]`;
    const w = objectAt(errs, p, item);
    if (!w) return;
    const weight = w['weight'];
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1) {
      errs.push(invalid(`${p}.weight`, asFieldValue(weight), 'must be greater than or equal to 1'));
    }
    errs.push(...clusterAffinityErrors(w['targetCluster'], `${p}.targetCluster`));
  });
  return errs;
}

/** ValidateWorkloadAffinity. */
function workloadAffinityErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const wa = objectAt(errs, path, value);
  if (!wa) return errs;
  const keys: string[] = [];
  for (const side of ['affinity', 'antiAffinity']) {
    const term = objectAt(errs, `${path}.${side}`, wa[side]);
    if (!term || isMissing(wa[side])) continue;
    const key = str(term['groupByLabelKey']);
    for (const m of qualifiedNameErrors(key)) errs.push(invalid(`${path}.${side}.groupByLabelKey`, key, m));
    keys.push(key);
  }
  if (keys.length === 2 && keys[0] === keys[1]) {
    errs.push(invalid(path, wa, 'affinity and antiAffinity must not use the same groupByLabelKey'));
  }
  return errs;
}

/** ValidateFailover: ValidateApplicationFailover and validateClusterFailover. */
function failoverErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const failover = objectAt(errs, path, value);
  if (!failover) return errs;
  const appPath = `${path}.application`;
  const app = isMissing(failover['application'])
    ? undefined
    : objectAt(errs, appPath, failover['application']);
  if (app) {
    const conditions = isPlainObject(app['decisionConditions']) ? app['decisionConditions'] : {};
    const toleration = conditions['tolerationSeconds'];
    if (typeof toleration === 'number' && toleration < 0) {
      errs.push(
        invalid(
          `${appPath}.decisionConditions.tolerationSeconds`,
          toleration,
          'must be greater than or equal to 0',
        ),
      );
    }
    const grace = app['gracePeriodSeconds'];
    const gracefully = app['purgeMode'] === 'Gracefully';
    if (!gracefully && !isMissing(grace)) {
      errs.push(
        invalid(
          `${appPath}.gracePeriodSeconds`,
          asFieldValue(grace),
          'only takes effect when purgeMode is gracefully',
        ),
      );
    }
    if (gracefully && isMissing(grace)) {
      errs.push(
        invalid(`${appPath}.gracePeriodSeconds`, null, 'should not be empty when purgeMode is gracefully'),
      );
    }
    if (typeof grace === 'number' && grace <= 0) {
      errs.push(invalid(`${appPath}.gracePeriodSeconds`, grace, 'must be greater than 0'));
    }
    errs.push(...statePreservationErrors(app['statePreservation'], `${appPath}.statePreservation`));
  }
  const cluster = isMissing(failover['cluster'])
    ? undefined
    : objectAt(errs, `${path}.cluster`, failover['cluster']);
  if (cluster)
    errs.push(...statePreservationErrors(cluster['statePreservation'], `${path}.cluster.statePreservation`));
  return errs;
}

/** Each rule's aliasLabelName becomes a label key on the member: a qualified name. */
function statePreservationErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const sp = objectAt(errs, path, value);
  if (!sp) return errs;
  listAt(errs, `${path}.rules`, sp['rules']).forEach((item: unknown, i) => {
    const rule = objectAt(errs, `${path}.rules[${i}]`, item);
    if (!rule) return;
    const alias = str(rule['aliasLabelName']);
    for (const m of qualifiedNameErrors(alias))
      errs.push(invalid(`${path}.rules[${i}].aliasLabelName`, alias, m));
  });
  return errs;
}

/** validateSuspension. */
function suspensionErrors(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const suspension = objectAt(errs, path, value);
  if (!suspension) return errs;
  const on = suspension['dispatchingOnClusters'];
  const names = isPlainObject(on) && Array.isArray(on['clusterNames']) ? on['clusterNames'] : [];
  if (suspension['dispatching'] === true && names.length > 0) {
    errs.push(
      invalid(
        path,
        suspension,
        'suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames',
      ),
    );
  }
  return errs;
}
