import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, isNamespaceTerminating } from '../../../src/kube/client/index.ts';

const forbidden = (message: string) =>
  ApiError.fromResponse(
    'POST',
    '/apis/core.kubefed.io/v1alpha1/namespaces/app/propagatedversions',
    403,
    JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message }),
  );

test('isNamespaceTerminating tells the NamespaceLifecycle refusal from an RBAC denial', () => {
  assert.equal(
    isNamespaceTerminating(
      forbidden(
        'propagatedversions.core.kubefed.io "configmap-x" is forbidden: unable to create new content in namespace app because it is being terminated',
      ),
    ),
    true,
  );
  assert.equal(
    isNamespaceTerminating(
      forbidden(
        'propagatedversions.core.kubefed.io is forbidden: User "system:serviceaccount:kube-federation-system:kubefed-controller" cannot create resource "propagatedversions"',
      ),
    ),
    false,
  );
  assert.equal(isNamespaceTerminating(new Error('because it is being terminated')), false);
});
