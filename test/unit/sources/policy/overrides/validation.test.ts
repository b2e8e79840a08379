import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateOverrideSpec } from '../../../../../src/sources/policy/overrides/validation.ts';

const rule = (overriders: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  overrideRules: [{ overriders, ...extra }],
});

describe('validateOverrideSpec (Karmada ValidateOverrideSpec)', () => {
  test('valid specs, and what Karmada leaves alone, pass', () => {
    assert.deepEqual(validateOverrideSpec({}), []);
    assert.deepEqual(validateOverrideSpec(undefined), []);
    assert.deepEqual(
      validateOverrideSpec(
        rule({
          plaintext: [{ path: 'no/leading/slash', operator: 'add' }],
          imageOverrider: [{ component: 'Tag', operator: 'replace', value: 'v1' }],
          labelsOverrider: [{ operator: 'add', value: { 'example.com/a': 'b' } }],
          fieldOverrider: [{ fieldPath: '/data/x' }],
        }),
      ),
      [],
    );
    // The deprecated form alone is not validated beyond its targetCluster.
    assert.deepEqual(
      validateOverrideSpec({
        overriders: { labelsOverrider: [{ operator: 'add', value: { 'bad key!': 'x' } }] },
      }),
      [],
    );
  });

  test('overrideRules cannot co-exist with targetCluster or non-empty overriders (fieldOverrider not counted)', () => {
    assert.deepEqual(validateOverrideSpec({ targetCluster: { clusterNames: ['a'] }, overrideRules: [] }), [
      'spec.targetCluster: Invalid value: {"clusterNames":["a"]}: overrideRules and targetCluster can\'t co-exist',
    ]);
    assert.deepEqual(
      validateOverrideSpec({
        overriders: { plaintext: [{ path: '/a', operator: 'remove' }] },
        overrideRules: [],
      }),
      [
        'spec.overriders: Invalid value: {"plaintext":[{"operator":"remove","path":"/a"}]}: overrideRules and overriders can\'t co-exist',
      ],
    );
    assert.deepEqual(
      validateOverrideSpec({ overriders: { fieldOverrider: [{ fieldPath: '/a' }] }, overrideRules: [] }),
      [],
    );
  });

  test('label keys and values, annotation keys and total size', () => {
    assert.deepEqual(
      validateOverrideSpec(rule({ labelsOverrider: [{ operator: 'add', value: { ok: 'bad value!' } }] })),
      [
        "spec.overrideRules[0].overriders.labelsOverrider[0].value: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    );
    const [keyErr] = validateOverrideSpec(
      rule({ annotationsOverrider: [{ operator: 'add', value: { '-bad': 'x', Fine: 'y' } }] }),
    );
    assert.match(
      keyErr!,
      /^spec\.overrideRules\[0\]\.overriders\.annotationsOverrider\[0\]\.value: Invalid value: "-bad": name part must consist of/,
    );
    assert.deepEqual(
      validateOverrideSpec(
        rule({ annotationsOverrider: [{ operator: 'add', value: { big: 'x'.repeat(262142) } }] }),
      ),
      [
        'spec.overrideRules[0].overriders.annotationsOverrider[0].value: Too long: must have at most 262144 bytes',
      ],
    );
  });

  test('image predicate, fieldPath and subPath must be JSON pointers', () => {
    assert.deepEqual(
      validateOverrideSpec(
        rule({
          imageOverrider: [
            { component: 'Tag', operator: 'add', value: 'x', predicate: { path: 'spec/containers/0/image' } },
          ],
          fieldOverrider: [{ fieldPath: 'data/x', json: [{ subPath: 'a', operator: 'add', value: 1 }] }],
        }),
      ),
      [
        'spec.overrideRules[0].overriders.imageOverrider[0].predicate.path: Invalid value: "spec/containers/0/image": JSON pointer must be empty or start with a "/"',
        'spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath: Invalid value: "data/x": JSON pointer must be empty or start with a "/"',
        'spec.overrideRules[0].overriders.fieldOverrider[0].json[0].subPath: Invalid value: "a": JSON pointer must be empty or start with a "/"',
      ],
    );
  });

  test('a fieldOverrider with both json and yaml; operators that do not fit their values (Karmada’s message bytes)', () => {
    const errs = validateOverrideSpec(
      rule({
        fieldOverrider: [
          {
            fieldPath: '/data/config',
            json: [{ subPath: '/db-config', operator: 'remove', value: { db: 'new' } }],
            yaml: [{ subPath: '/a', operator: 'add' }],
          },
        ],
      }),
    );
    assert.equal(errs.length, 3);
    assert.match(
      errs[0]!,
      /^spec\.overrideRules\[0\]\.overriders\.fieldOverrider\[0\]: Invalid value: \{.*\}: FieldOverrider has both YAML and JSON set\. Only one is allowed$/,
    );
    assert.equal(
      errs[1],
      'spec.overrideRules[0].overriders.fieldOverrider[0].json[0].value: Invalid value: v1.JSON{Raw:[]uint8{0x7b, 0x22, 0x64, 0x62, 0x22, 0x3a, 0x22, 0x6e, 0x65, 0x77, 0x22, 0x7d}}: value is not allowed for remove operation',
    );
    assert.equal(
      errs[2],
      'spec.overrideRules[0].overriders.fieldOverrider[0].yaml[0].value: Invalid value: v1.JSON{Raw:[]uint8(nil)}: value is required for add or replace operation',
    );
  });

  test('targetCluster field selectors: provider, region or zone with In or NotIn', () => {
    assert.deepEqual(
      validateOverrideSpec(
        rule(
          {},
          { targetCluster: { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } } },
        ),
      ),
      [
        'spec.overrideRules[0].targetCluster.fieldSelector: Invalid value: v1alpha1.FieldSelector{MatchExpressions:[]v1.NodeSelectorRequirement{v1.NodeSelectorRequirement{Key:"zone", Operator:"Exists", Values:[]string(nil)}}}: unsupported operator "Exists", must be In or NotIn',
      ],
    );
    assert.deepEqual(
      validateOverrideSpec({
        targetCluster: {
          fieldSelector: { matchExpressions: [{ key: 'cloud', operator: 'In', values: ['a'] }] },
        },
      }),
      [
        'spec.targetCluster.fieldSelector: Invalid value: v1alpha1.FieldSelector{MatchExpressions:[]v1.NodeSelectorRequirement{v1.NodeSelectorRequirement{Key:"cloud", Operator:"In", Values:[]string{"a"}}}}: unsupported key "cloud", must be provider, region, or zone',
      ],
    );
  });
});
