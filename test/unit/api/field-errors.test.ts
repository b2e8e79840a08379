import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  duplicate,
  forbidden,
  formatFieldError,
  formatFieldErrors,
  invalid,
  notSupported,
  required,
} from '../../../src/api/field-errors.ts';

test('formats each error type like k8s.io/apimachinery field.Error', () => {
  assert.equal(formatFieldError(required('spec.scope')), 'spec.scope: Required value');
  assert.equal(
    formatFieldError(invalid('spec.clusterHealthCheck.period', '0s', 'should be greater than 0')),
    'spec.clusterHealthCheck.period: Invalid value: "0s": should be greater than 0',
  );
  assert.equal(
    formatFieldError(invalid('spec.clusterHealthCheck.failureThreshold', 0, 'should be greater than 0')),
    'spec.clusterHealthCheck.failureThreshold: Invalid value: 0: should be greater than 0',
  );
  assert.equal(
    formatFieldError(notSupported('spec.scope', 'Global', ['Cluster', 'Namespaced'])),
    'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
  );
  assert.equal(
    formatFieldError(duplicate('spec.featureGates.name', 'PushReconciler')),
    'spec.featureGates.name: Duplicate value: "PushReconciler"',
  );
  assert.equal(formatFieldError(forbidden('spec.x', 'not allowed')), 'spec.x: Forbidden: not allowed');
  assert.equal(formatFieldError(invalid('spec.x', null, 'bad')), 'spec.x: Invalid value: null: bad');
});

test('aggregates like ErrorList.ToAggregate().Error()', () => {
  assert.equal(formatFieldErrors([]), '');
  assert.equal(formatFieldErrors([required('a')]), 'a: Required value');
  assert.equal(
    formatFieldErrors([required('a'), required('b'), required('a')]),
    '[a: Required value, b: Required value]',
  );
});
