// Condition rules: manifest conditions computed from the member object with CEL (ocm
// pkg/work/spoke/conditions/reader.go EvaluateConditions, GetConditionByRule, evaluateCelExpressions,
// getConditionMessageByRule; well-known rules in pkg/work/spoke/conditions/rules/rule.go). Expressions run on
// Buf's CEL evaluator; each is parsed and planned once and cached by its text.

import {
  type CelInput,
  CelScalar,
  type CelValue,
  celEnv,
  celFunc,
  isCelError,
  isCelList,
  isCelMap,
  parse,
  plan,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { ConditionRule } from '../../api/ocm/work/v1/index.ts';
import { WorkReason } from '../../api/ocm/work/v1/index.ts';
import type { MetaCondition } from '../../api/policy/v1alpha1/propagationpolicy.ts';
import type { KubeObject } from '../../kube/client/index.ts';

export type RuleCondition = Omit<MetaCondition, 'lastTransitionTime'>;

/** ManifestComplete. */
export const COMPLETE = 'Complete';

interface CelRule {
  condition: string;
  expressions: readonly string[];
  message?: string;
  messageExpression?: string;
}

/** The well-known rules (rules.go DefaultWellKnownConditionResolver), by group/version/kind and condition. */
const WELL_KNOWN: Readonly<Record<string, Readonly<Record<string, CelRule>>>> = {
  'batch/v1/Job': {
    [COMPLETE]: {
      condition: COMPLETE,
      expressions: [
        `hasConditions(object.status)
          ? object.status.conditions.filter(c, c.type == 'Complete' || c.type == 'Failed').exists(c, c.status == 'True')
          : false`,
      ],
      messageExpression: `result ? "Job is finished" : "Job is not finished"`,
    },
  },
  '/v1/Pod': {
    [COMPLETE]: {
      condition: COMPLETE,
      expressions: ["object.status.phase in ['Succeeded', 'Failed']"],
      messageExpression: `"Pod is in phase " + object.status.phase`,
    },
  },
};

/**
 * The conditions the rules give for the live object, each with observedGeneration = the work's generation.
 * A rule never throws: a syntax or runtime error gives False ConditionRuleExpressionError (OCM: "a error in
 * compiling the rule gives False condition status by convention"), an unknown rule type Unknown
 * ConditionRuleInvalid, and a well-known rule for a kind that has none gives no condition. No live object:
 * no conditions (OCM evaluates rules only for available resources).
 */
export function evaluateConditionRules(
  rules: readonly ConditionRule[],
  target: { group: string; kind: string; version?: string },
  live: KubeObject | undefined,
  generation: number | undefined,
): RuleCondition[] {
  if (!live) return [];
  const version = target.version ?? versionOf(live.apiVersion);
  const object = toCel(live);
  const out: RuleCondition[] = [];
  for (const rule of rules) {
    const condition = conditionFor(rule, `${target.group}/${version}/${target.kind}`, object);
    if (condition)
      out.push(generation === undefined ? condition : { ...condition, observedGeneration: generation });
  }
  return out;
}

function conditionFor(rule: ConditionRule, gvk: string, object: CelInput): RuleCondition | undefined {
  const type: string = rule.type;
  // OCM's API calls the well-known type WellKnownConditions; WellKnownCompletions is accepted as well.
  if (type === 'WellKnownConditions' || type === 'WellKnownCompletions') {
    const name = rule.condition || COMPLETE;
    const known = WELL_KNOWN[gvk]?.[name];
    if (!known) return undefined;
    return celCondition(
      {
        ...known,
        ...(rule.message ? { message: rule.message } : {}),
        ...(rule.messageExpression ? { messageExpression: rule.messageExpression } : {}),
      },
      object,
    );
  }
  if (type === 'CEL') {
    return celCondition(
      {
        condition: rule.condition ?? '',
        expressions: expressionsOf(rule),
        ...(rule.message ? { message: rule.message } : {}),
        ...(rule.messageExpression ? { messageExpression: rule.messageExpression } : {}),
      },
      object,
    );
  }
  return {
    type: rule.condition ?? '',
    status: 'Unknown',
    reason: WorkReason.ConditionRuleInvalid,
    message: `unrecognized condition rule type ${type}`,
  };
}

/** celExpressions as OCM writes them (strings) or as {expression} objects. */
function expressionsOf(rule: ConditionRule): string[] {
  const list: unknown[] = Array.isArray(rule.celExpressions) ? rule.celExpressions : [];
  return list.flatMap((e) => {
    if (typeof e === 'string') return [e];
    if (
      typeof e === 'object' &&
      e !== null &&
      typeof (e as { expression?: unknown }).expression === 'string'
    ) {
      return [(e as { expression: string }).expression];
    }
    return [];
  });
}

function celCondition(rule: CelRule, object: CelInput): RuleCondition {
  const base = { type: rule.condition };
  // Expressions are ANDed; the first false (or failing) one decides.
  for (const expression of rule.expressions) {
    const result = evaluate(RULE_ENV, expression, { object });
    if ('error' in result) {
      return {
        ...base,
        status: 'False',
        reason: WorkReason.ConditionRuleExpressionError,
        message: result.error,
      };
    }
    if (typeof result.value !== 'boolean') {
      return {
        ...base,
        status: 'False',
        reason: WorkReason.ConditionRuleExpressionError,
        message: `expected bool result, got ${goTypeName(result.value)}`,
      };
    }
    if (!result.value) {
      return {
        ...base,
        status: 'False',
        reason: WorkReason.ConditionRuleEvaluated,
        message: message(rule, object, false),
      };
    }
  }
  return {
    ...base,
    status: 'True',
    reason: WorkReason.ConditionRuleEvaluated,
    message: message(rule, object, true),
  };
}

/** getConditionMessageByRule: messageExpression, else message, else "Manifest is [not] <condition>". */
function message(rule: CelRule, object: CelInput, result: boolean): string {
  if (rule.messageExpression) {
    const out = evaluate(MESSAGE_ENV, rule.messageExpression, { object, result });
    if ('error' in out) return out.error;
    if (typeof out.value !== 'string') {
      return `expected message expression to have a string result, got ${goTypeName(out.value)}`;
    }
    if (out.value !== '') return out.value;
  }
  if (rule.message) return rule.message;
  return result ? `Manifest is ${rule.condition}` : `Manifest is not ${rule.condition}`;
}

/** ocm sdk-go cel library ConditionsLib hasConditions: a map whose `conditions` is a non-empty list. */
const hasConditions = celFunc('hasConditions', [CelScalar.DYN], CelScalar.BOOL, (status) => {
  if (!isCelMap(status)) return false;
  const conditions = status.get('conditions');
  return isCelList(conditions) && conditions.size > 0;
});

const RULE_ENV = celEnv({ variables: { object: CelScalar.DYN }, funcs: [...strings, hasConditions] });
const MESSAGE_ENV = celEnv({
  variables: { object: CelScalar.DYN, result: CelScalar.BOOL },
  funcs: [...strings, hasConditions],
});

type Program = (bindings: Record<string, CelInput>) => unknown;
const programs = new Map<string, Program | { error: string }>();

/** Parses and plans `expression` once per environment; never throws. */
function evaluate(
  env: typeof RULE_ENV | typeof MESSAGE_ENV,
  expression: string,
  bindings: Record<string, CelInput>,
): { value: CelValue } | { error: string } {
  const key = `${env === RULE_ENV ? 'rule' : 'message'}\u0000${expression}`;
  let program = programs.get(key);
  if (!program) {
    try {
      program = plan(env, parse(expression)) as unknown as Program;
    } catch (err) {
      program = { error: err instanceof Error ? err.message : String(err) };
    }
    programs.set(key, program);
  }
  if (typeof program !== 'function') return program;
  try {
    const out = program(bindings);
    if (isCelError(out)) return { error: out.message };
    return { value: out as CelValue };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** JSON as the unstructured object cel-go sees: integers are int64, other numbers double, objects maps. */
function toCel(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (typeof value === 'object' && value !== null) {
    return new Map(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toCel(v)]),
    );
  }
  return value as CelInput;
}

function goTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int64';
  if (typeof value === 'number') return 'float64';
  if (typeof value === 'string') return 'string';
  if (value === null) return 'structpb.NullValue';
  if (isCelMap(value)) return 'map[ref.Val]ref.Val';
  if (isCelList(value)) return '[]ref.Val';
  return typeof value;
}

function versionOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const slash = v.lastIndexOf('/');
  return slash < 0 ? v : v.slice(slash + 1);
}
