import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goJson, statusFeedback } from '../../../../src/engine/agent/feedback.ts';
import type { KubeObject } from '../../../../src/kube/client/index.ts';

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  status: {
    readyReplicas: 1,
    replicas: 2,
    conditions: [{ type: 'Available', status: 'True' }],
    ratio: 0.5,
    paused: false,
  },
};
const target = { group: 'apps', kind: 'Deployment' };

describe('statusFeedback (ocm statusfeedback reader, availablestatus controller)', () => {
  test('WellKnownStatus of a Deployment: the values present, in rule order', () => {
    const got = statusFeedback(target, deployment, [{ type: 'WellKnownStatus' }]);
    assert.deepEqual(got.values, [
      { name: 'ReadyReplicas', fieldValue: { type: 'Integer', integer: 1 } },
      { name: 'Replicas', fieldValue: { type: 'Integer', integer: 2 } },
    ]);
    assert.deepEqual(got.condition, {
      type: 'StatusFeedbackSynced',
      status: 'True',
      reason: 'StatusFeedbackSynced',
      message: '',
    });
  });

  test('WellKnownStatus of a kind without rules fails the condition', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    const got = statusFeedback({ group: '', kind: 'ConfigMap' }, cm, [{ type: 'WellKnownStatus' }]);
    assert.deepEqual(got.values, []);
    assert.equal(got.condition?.status, 'False');
    assert.equal(got.condition?.reason, 'StatusFeedbackSyncFailed');
    assert.equal(
      got.condition?.message,
      'Sync status feedback failed with error cannot find the wellknown statuses for resource with gvk /v1, Kind=ConfigMap',
    );
  });

  test('JSONPaths: scalars by type, a missing path gives nothing and no error', () => {
    const got = statusFeedback(target, deployment, [
      {
        type: 'JSONPaths',
        jsonPaths: [
          { name: 'available', path: '.status.conditions[?(@.type=="Available")].status' },
          { name: 'paused', path: '.status.paused' },
          { name: 'missing', path: '.status.nothing' },
        ],
      },
    ]);
    assert.deepEqual(got.values, [
      { name: 'available', fieldValue: { type: 'String', string: 'True' } },
      { name: 'paused', fieldValue: { type: 'Boolean', boolean: false } },
    ]);
    assert.equal(got.condition?.reason, 'StatusFeedbackSynced');
  });

  test('a map, a list or a float is not a value: StatusFeedbackSyncFailed, errors aggregated', () => {
    const got = statusFeedback(target, deployment, [
      {
        type: 'JSONPaths',
        jsonPaths: [
          { name: 'conds', path: '.status.conditions' },
          { name: 'ratio', path: '.status.ratio' },
          { name: 'ready', path: '.status.readyReplicas' },
        ],
      },
    ]);
    assert.deepEqual(got.values, [{ name: 'ready', fieldValue: { type: 'Integer', integer: 1 } }]);
    assert.equal(
      got.condition?.message,
      'Sync status feedback failed with error [the type []interface {} of the value for conds is not found, the type float64 of the value for ratio is not found]',
    );
  });

  test('with rawJson, a struct is reported as JsonRaw unless longer than the limit', () => {
    const rules = [
      { type: 'JSONPaths' as const, jsonPaths: [{ name: 'conds', path: '.status.conditions' }] },
    ];
    const got = statusFeedback(target, deployment, rules, { rawJson: true });
    assert.deepEqual(got.values, [
      { name: 'conds', fieldValue: { type: 'JsonRaw', jsonRaw: '[{"status":"True","type":"Available"}]' } },
    ]);
    const short = statusFeedback(target, deployment, rules, { rawJson: true, maxJsonRawLength: 10 });
    assert.deepEqual(short.values, []);
    assert.match(short.condition?.message ?? '', /larger than the maximum length 10/);
  });

  test('a version that does not match, and a bad path, are errors', () => {
    const got = statusFeedback(target, deployment, [
      {
        type: 'JSONPaths',
        jsonPaths: [
          { name: 'v', version: 'v2', path: '.status.replicas' },
          { name: 'bad', path: '.status..x' },
        ],
      },
    ]);
    assert.match(
      got.condition?.message ?? '',
      /version set in the path v is not matched for the related resource/,
    );
    assert.match(got.condition?.message ?? '', /failed to parse json path \.status\.\.x of bad/);
  });

  test('no rules → NoStatusFeedbackSynced; no live object → nothing at all', () => {
    assert.deepEqual(statusFeedback(target, deployment, []), {
      values: [],
      condition: {
        type: 'StatusFeedbackSynced',
        status: 'True',
        reason: 'NoStatusFeedbackSynced',
        message: '',
      },
    });
    assert.deepEqual(statusFeedback(target, undefined, [{ type: 'WellKnownStatus' }]), { values: [] });
  });
});

describe('goJson', () => {
  test('sorted keys and HTML-safe escapes like encoding/json', () => {
    assert.equal(goJson({ b: 1, a: ['<x>&'] }), '{"a":["\\u003cx\\u003e\\u0026"],"b":1}');
  });
});
