import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ConditionRule } from '../../../../src/api/ocm/work/v1/index.ts';
import { evaluateConditionRules } from '../../../../src/engine/agent/condition-rules.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

const job = (conditions?: unknown[]): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j' },
  spec: { completions: 2 },
  ...(conditions ? { status: { conditions } } : { status: {} }),
});
const jobTarget = { group: 'batch', kind: 'Job' };
const wellKnown = { type: 'WellKnownCompletions' } as ConditionRule;
const cel = (expressions: string[], extra: Partial<ConditionRule> = {}): ConditionRule =>
  ({ type: 'CEL', condition: 'Ready', celExpressions: expressions, ...extra }) as unknown as ConditionRule;

describe('evaluateConditionRules: well-known completions (ocm rules.go)', () => {
  test('Job is Complete when a Complete or Failed condition is True', () => {
    assert.deepEqual(
      evaluateConditionRules([wellKnown], jobTarget, job([{ type: 'Failed', status: 'True' }]), 3),
      [
        {
          type: 'Complete',
          status: 'True',
          reason: 'ConditionRuleEvaluated',
          message: 'Job is finished',
          observedGeneration: 3,
        },
      ],
    );
    assert.deepEqual(
      evaluateConditionRules([wellKnown], jobTarget, job([{ type: 'Complete', status: 'False' }]), 3),
      [
        {
          type: 'Complete',
          status: 'False',
          reason: 'ConditionRuleEvaluated',
          message: 'Job is not finished',
          observedGeneration: 3,
        },
      ],
    );
    assert.equal(
      evaluateConditionRules([wellKnown], jobTarget, job(), undefined)[0]?.status,
      'False',
      'no conditions yet',
    );
  });
  test('Pod is Complete in phase Succeeded or Failed; OCM spelling WellKnownConditions works too', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      status: { phase: 'Succeeded' },
    };
    const rule = { type: 'WellKnownConditions', condition: 'Complete' } as unknown as ConditionRule;
    assert.deepEqual(evaluateConditionRules([rule], { group: '', kind: 'Pod' }, pod, undefined), [
      {
        type: 'Complete',
        status: 'True',
        reason: 'ConditionRuleEvaluated',
        message: 'Pod is in phase Succeeded',
      },
    ]);
  });
  test('kinds without a well-known rule, and no live object, give no condition', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.deepEqual(evaluateConditionRules([wellKnown], { group: '', kind: 'ConfigMap' }, cm, 1), []);
    assert.deepEqual(evaluateConditionRules([wellKnown], jobTarget, undefined, 1), []);
  });
  test('message overrides apply to well-known rules', () => {
    const rule = { type: 'WellKnownCompletions', message: 'done?' } as ConditionRule;
    const [c] = evaluateConditionRules([{ ...rule }], jobTarget, job([]), undefined);
    assert.equal(c?.message, 'Job is not finished', 'the rule messageExpression wins over message');
    const [d] = evaluateConditionRules(
      [{ ...rule, messageExpression: '"custom " + string(result)' }],
      jobTarget,
      job([]),
      1,
    );
    assert.equal(d?.message, 'custom false');
  });
});

describe('evaluateConditionRules: CEL rules (ocm conditions reader.go)', () => {
  test('expressions are ANDed; integers are CEL ints; default messages', () => {
    const [t] = evaluateConditionRules(
      [cel(['object.spec.completions == 2', 'object.metadata.name == "j"'])],
      jobTarget,
      job(),
      1,
    );
    assert.deepEqual(t, {
      type: 'Ready',
      status: 'True',
      reason: 'ConditionRuleEvaluated',
      message: 'Manifest is Ready',
      observedGeneration: 1,
    });
    const [f] = evaluateConditionRules([cel(['true', 'object.spec.completions > 5'])], jobTarget, job(), 1);
    assert.equal(f?.status, 'False');
    assert.equal(f?.message, 'Manifest is not Ready');
    const [m] = evaluateConditionRules([cel(['true'], { message: 'fine' })], jobTarget, job(), 1);
    assert.equal(m?.message, 'fine');
  });
  test('accepts OCM-style plain string expressions and {expression} objects', () => {
    const objStyle = {
      type: 'CEL',
      condition: 'Ready',
      celExpressions: [{ expression: 'object.spec.completions + 1 == 3' }],
    } as ConditionRule;
    assert.equal(evaluateConditionRules([objStyle], jobTarget, job(), 1)[0]?.status, 'True');
  });
  test('messageExpression sees result and object', () => {
    const rule = cel(['object.spec.completions >= 1'], {
      messageExpression: 'result ? "ok " + object.metadata.name : "no"',
    });
    assert.equal(evaluateConditionRules([rule], jobTarget, job(), 1)[0]?.message, 'ok j');
  });
  test('a non-bool result is False ConditionRuleExpressionError', () => {
    const [c] = evaluateConditionRules([cel(['object.spec.completions'])], jobTarget, job(), 1);
    assert.deepEqual(c, {
      type: 'Ready',
      status: 'False',
      reason: 'ConditionRuleExpressionError',
      message: 'expected bool result, got int64',
      observedGeneration: 1,
    });
  });
  test('syntax and runtime errors are False ConditionRuleExpressionError and never throw', () => {
    const [syntax] = evaluateConditionRules([cel(['object.spec.'])], jobTarget, job(), 1);
    assert.equal(syntax?.status, 'False');
    assert.equal(syntax?.reason, 'ConditionRuleExpressionError');
    assert.ok(syntax?.message);
    const [missing] = evaluateConditionRules(
      [cel(['object.status.nothing.deeper == 1'])],
      jobTarget,
      job(),
      1,
    );
    assert.equal(missing?.reason, 'ConditionRuleExpressionError');
    // The same broken expression again comes from the cache and still does not throw.
    assert.equal(
      evaluateConditionRules([cel(['object.spec.'])], jobTarget, job(), 1)[0]?.reason,
      'ConditionRuleExpressionError',
    );
  });
  test('a broken messageExpression keeps the status and puts the error in the message', () => {
    const [c] = evaluateConditionRules([cel(['true'], { messageExpression: '"a" +' })], jobTarget, job(), 1);
    assert.equal(c?.status, 'True');
    assert.equal(c?.reason, 'ConditionRuleEvaluated');
    assert.notEqual(c?.message, 'Manifest is Ready');
  });
  test('an unknown rule type is Unknown ConditionRuleInvalid', () => {
    const rule = { type: 'Magic', condition: 'X' } as unknown as ConditionRule;
    assert.deepEqual(evaluateConditionRules([rule], jobTarget, job(), undefined), [
      {
        type: 'X',
        status: 'Unknown',
        reason: 'ConditionRuleInvalid',
        message: 'unrecognized condition rule type Magic',
      },
    ]);
  });
});
