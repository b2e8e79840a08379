import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatFieldErrors } from '../../../src/api/field-errors.ts';
import { defaultFederatedTypes } from '../../../src/federation-types/default-types.ts';
import { validateFederatedTypeConfig } from '../../../src/webhook/validation/federatedtypeconfig.ts';

const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const apiResource = (over: Record<string, unknown> = {}) => ({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  pluralName: 'deployments',
  scope: 'Namespaced',
  ...over,
});

const ftc = (spec: Record<string, unknown> = {}, name = 'deployments.apps') => ({
  apiVersion: 'core.kubefed.io/v1beta1',
  kind: 'FederatedTypeConfig',
  metadata: { name, namespace: 'kube-federation-system' },
  spec: {
    targetType: apiResource(),
    propagation: 'Enabled',
    federatedType: apiResource({
      group: 'types.kubefed.io',
      version: 'v1beta1',
      kind: 'FederatedDeployment',
      pluralName: 'federateddeployments',
    }),
    ...spec,
  },
});

const messages = (obj: unknown, statusSubresource = false) =>
  formatFieldErrors(validateFederatedTypeConfig(obj, { statusSubresource }));

describe('validateFederatedTypeConfig', () => {
  test('the ten default FTCs are valid', () => {
    const { ftcs } = defaultFederatedTypes('kube-federation-system');
    assert.equal(ftcs.length, 10);
    for (const f of ftcs) assert.deepEqual(validateFederatedTypeConfig(f), [], f.metadata.name);
  });

  test('name must be the group-qualified target plural', () => {
    assert.equal(
      messages(ftc({}, 'deployments')),
      `name: Invalid value: "deployments": name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)'`,
    );
    assert.deepEqual(
      validateFederatedTypeConfig(
        ftc(
          { targetType: apiResource({ group: '', kind: 'ConfigMap', pluralName: 'configmaps' }) },
          'configmaps',
        ),
      ),
      [],
    );
    // Checked against the raw spec, as KubeFed does: an empty pluralName is not filled in from the name.
    assert.equal(
      messages(ftc({ targetType: apiResource({ pluralName: '' }) })),
      `[name: Invalid value: "deployments.apps": name must be 'TARGET_PLURAL_NAME(.TARGET_GROUP_NAME)', spec.targetType.pluralName: Required value]`,
    );
  });

  test('federatedType.group: required, with a dot', () => {
    assert.equal(
      messages(
        ftc({
          federatedType: apiResource({
            group: '',
            kind: 'FederatedDeployment',
            pluralName: 'federateddeployments',
          }),
        }),
      ),
      'spec.federatedType.group: Required value',
    );
    assert.equal(
      messages(
        ftc({
          federatedType: apiResource({
            group: 'types',
            kind: 'FederatedDeployment',
            pluralName: 'federateddeployments',
          }),
        }),
      ),
      'spec.federatedType.group: Invalid value: "types": should be a domain with at least one dot',
    );
  });

  test('APIResource fields', () => {
    assert.equal(
      messages(ftc({ targetType: apiResource({ version: '', kind: '', scope: '' }) })),
      '[spec.targetType.version: Required value, spec.targetType.kind: Required value, spec.targetType.scope: Required value]',
    );
    assert.equal(
      messages(ftc({ targetType: apiResource({ version: 'V1' }) })),
      `spec.targetType.version: Invalid value: "V1": ${DNS1035_MSG}`,
    );
    // The kind is checked lower-cased: camel case is fine, other characters are not.
    assert.equal(
      messages(ftc({ targetType: apiResource({ kind: 'Deploy_ment' }) })),
      `spec.targetType.kind: Invalid value: "Deploy_ment": ${DNS1035_MSG}`,
    );
    assert.equal(
      messages(ftc({ targetType: apiResource({ scope: 'Global' }) })),
      'spec.targetType.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
    );
    assert.match(
      messages(ftc({ targetType: apiResource({ group: 'Apps' }) }, 'deployments.Apps')),
      /^spec\.targetType\.group: Invalid value: "Apps": a lowercase RFC 1123 subdomain/,
    );
  });

  test('propagation, statusType and statusCollection', () => {
    assert.equal(messages(ftc({ propagation: '' })), 'spec.propagation: Required value');
    assert.equal(
      messages(ftc({ propagation: 'On' })),
      'spec.propagation: Unsupported value: "On": supported values: "Enabled", "Disabled"',
    );
    assert.equal(
      messages(ftc({ statusCollection: 'Yes' })),
      'spec.statusCollection: Unsupported value: "Yes": supported values: "Enabled", "Disabled"',
    );
    assert.deepEqual(validateFederatedTypeConfig(ftc({ statusCollection: 'Enabled' })), []);
    assert.equal(
      messages(
        ftc({ statusType: apiResource({ group: '', kind: 'ServiceStatus', pluralName: 'servicestatuses' }) }),
      ),
      'spec.statusType.group: Required value',
    );
  });

  test('status subresource: only the status rules', () => {
    const withStatus = (status: unknown) => ({ ...ftc({ propagation: 'bogus' }, 'wrong'), status });
    assert.deepEqual(
      validateFederatedTypeConfig(withStatus({ observedGeneration: 3, propagationController: 'Running' }), {
        statusSubresource: true,
      }),
      [],
    );
    assert.equal(
      messages(
        withStatus({ observedGeneration: -1, propagationController: 'Stopped', statusController: 'x' }),
        true,
      ),
      '[status.observedGeneration: Invalid value: -1: must be greater than or equal to 0, status.propagationController: Unsupported value: "Stopped": supported values: "Running", "NotRunning", status.statusController: Unsupported value: "x": supported values: "Running", "NotRunning"]',
    );
    assert.equal(messages(withStatus(undefined), true), 'status.propagationController: Required value');
  });
});
